#include "core/backend/check/self_check.hpp"

#include <chrono>
#include <map>

#include "core/backend/cases/case_check.hpp"
#include "core/backend/cpu/cpu_backend.hpp"
#include "core/backend/cases/op_cases.hpp"

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

// The table with the chunked forms' cases last, each group in the table's order.
std::vector<const OpCase*> chunked_last() {
  std::vector<const OpCase*> order;
  for (const auto& c : op_cases())
    if (!c.chunked_rule) order.push_back(&c);
  for (const auto& c : op_cases())
    if (c.chunked_rule) order.push_back(&c);
  return order;
}

SelfCheckVerdict self_check(Backend<float>& be, const std::vector<FaultedRule>& faulted) {
  const auto t0 = std::chrono::steady_clock::now();
  SelfCheckVerdict v;
  std::vector<std::string> failures, notices, rule_notices;
  for (const auto& f : faulted) {
    v.chunked_refused.push_back(f.rule);
    notices.push_back(std::string(memory::rule_name(f.rule)) + " (" + f.failure + "; it faulted the device, which was reset)");
  }
  try {
    auto oracle = make_cpu_backend<double>(1);
    std::map<memory::Rule, std::string> chunked_failures;  // rule -> its first failing case, described
    std::map<memory::Rule, std::string> rule_failures;     // the same, of a rule's recurrent form
    for (const OpCase* c : chunked_last()) {
      const CaseCheck r = check_case(*c, be, *oracle);
      if (r.skipped) {
        ++v.skipped;
        continue;
      }
      ++v.cases;
      if (r.passed()) continue;
      if (c->chunked_rule && be.device_lost()) {  // nothing after it can run: the registry resets
        v.device_lost_by = *c->chunked_rule;
        v.failure = describe(r);
        v.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return v;
      }
      if (c->chunked_rule) chunked_failures.emplace(*c->chunked_rule, describe(r));
      else if (c->op == Op::memory_rule) rule_failures.emplace(c->shape.rule, describe(r));
      else failures.push_back(describe(r));
    }
    // The per-op fallback: refuse each failing chunked form, then its rule's chunked cases must
    // pass on the recurrent form, or the rule is refused on this backend after all.
    for (const auto& [rule, first] : chunked_failures) {
      if (rule_failures.count(rule)) continue;  // its recurrent form failed already
      be.refuse_chunked_form(rule);
      bool recurrent_agrees = true;
      for (const auto& c : op_cases()) {
        if (c.chunked_rule != rule) continue;
        const CaseCheck r = check_case(c, be, *oracle);
        if (!r.skipped && !r.passed() && recurrent_agrees) {
          rule_failures.emplace(rule, describe(r) + " (recurrent form too)");
          recurrent_agrees = false;
        }
      }
      if (!recurrent_agrees) continue;
      v.chunked_refused.push_back(rule);
      notices.push_back(std::string(memory::rule_name(rule)) + " (" + first + ")");
    }
    // A rule wrong on both forms costs that rule (its models run on the CPU), not the device:
    // each rule is its own kernel instance, so the others' verdicts stand.
    for (const auto& [rule, first] : rule_failures) {
      be.refuse_rule(rule);
      v.rules_refused.push_back(rule);
      rule_notices.push_back(std::string(memory::rule_name(rule)) + " (" + first + ")");
    }
  } catch (const std::exception& e) {  // the oracle could not even be set up
    failures.push_back(std::string("the self-check could not run: ") + e.what());
  }
  for (size_t i = 0; i < failures.size() && i < kFailuresNamed; ++i)
    v.failure += (i ? "; " : "") + failures[i];
  if (failures.size() > kFailuresNamed)
    v.failure += "; and " + std::to_string(failures.size() - kFailuresNamed) + " more failing cases";
  v.passed = failures.empty();
  if (!notices.empty()) {
    v.notice = "the chunked form of memory rule ";
    for (size_t i = 0; i < notices.size(); ++i) v.notice += (i ? "; " : "") + notices[i];
    v.notice += " disagrees with the CPU: " + std::string(notices.size() > 1 ? "those rules run" : "it runs") +
                " on the recurrent kernel";
  }
  if (!rule_notices.empty()) {
    if (!v.notice.empty()) v.notice += "; ";
    v.notice += "memory rule ";
    for (size_t i = 0; i < rule_notices.size(); ++i) v.notice += (i ? "; " : "") + rule_notices[i];
    v.notice += " disagrees with the CPU: a model of " + std::string(rule_notices.size() > 1 ? "those rules" : "it") +
                " runs on the CPU";
  }
  v.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return v;
}

void apply_refusals(const SelfCheckVerdict& verdict, Backend<float>& be) {
  for (memory::Rule rule : verdict.chunked_refused) be.refuse_chunked_form(rule);
  for (memory::Rule rule : verdict.rules_refused) be.refuse_rule(rule);
}

}  // namespace proteus::backend
