#include "core/backend/self_check.hpp"

#include <chrono>

#include "core/backend/case_check.hpp"
#include "core/backend/cpu_backend.hpp"
#include "core/backend/op_cases.hpp"

namespace proteus::backend {
namespace {

constexpr size_t kFailuresNamed = 3;  // a message names this many failing cases, then counts the rest

std::string describe(const CaseCheck& c) {
  // "matmul (dw: ...)", or "memory_rule (memory_rule_delta_E3: dq: ...)" when the case is one of several.
  std::string s = op_name(c.op);
  s += " (";
  if (c.name != op_name(c.op)) s += c.name + ": ";
  s += c.problems.front();
  if (c.problems.size() > 1) s += "; " + std::to_string(c.problems.size() - 1) + " more";
  return s + ")";
}

}  // namespace

SelfCheckVerdict self_check(Backend<float>& be) {
  const auto t0 = std::chrono::steady_clock::now();
  SelfCheckVerdict v;
  std::vector<std::string> failures;
  try {
    auto oracle = make_cpu_backend<double>(1);
    for (const auto& c : op_cases()) {
      const CaseCheck r = check_case(c, be, *oracle);
      if (r.skipped) {
        ++v.skipped;
        continue;
      }
      ++v.cases;
      if (!r.passed()) failures.push_back(describe(r));
    }
  } catch (const std::exception& e) {  // the oracle could not even be set up
    failures.push_back(std::string("the self-check could not run: ") + e.what());
  }
  for (size_t i = 0; i < failures.size() && i < kFailuresNamed; ++i)
    v.failure += (i ? "; " : "") + failures[i];
  if (failures.size() > kFailuresNamed)
    v.failure += "; and " + std::to_string(failures.size() - kFailuresNamed) + " more failing cases";
  v.passed = failures.empty();
  v.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return v;
}

}  // namespace proteus::backend
