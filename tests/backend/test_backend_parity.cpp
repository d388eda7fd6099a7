// Backend parity in the manner of ggml's test-backend-ops: ONE table of op cases
// (core/backend/cases/op_cases.hpp, the same table the self-check runs) on every backend the build
// registers (the CPU always, CUDA when built and a GPU is present), each against the CPU backend
// in float64, compared by core/backend/cases/case_check.hpp: guard elements around every buffer, no
// NaN, infinities where the oracle has them, the masked region (locked state elements, skipped
// rows, frozen parameters) exactly, then normalised MSE under the case's bound. A new backend is
// checked by adding nothing here. Each output's errors are printed, the masked region's apart.
// Backends are made without the self-check: a wrong one must fail here, not be replaced.
#include <gtest/gtest.h>

#include <cstdio>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "core/backend/cases/case_check.hpp"
#include "core/backend/cpu/cpu_backend.hpp"
#include "core/backend/cases/op_cases.hpp"
#include "core/backend/registry.hpp"

namespace {

using namespace proteus::backend;

struct Param {
  std::string backend;
  size_t op;
};

void PrintTo(const Param& p, std::ostream* os) { *os << p.backend << " " << op_cases()[p.op].name; }

class BackendParity : public ::testing::TestWithParam<Param> {};

TEST_P(BackendParity, MatchesTheFloat64Oracle) {
  const OpCase& c = op_cases()[GetParam().op];
  std::string why;
  auto be = make_unchecked_backend(GetParam().backend, 2, &why);
  if (!be) GTEST_SKIP() << why;
  auto oracle = make_cpu_backend<double>(1);
  const CaseCheck r = check_case(c, *be, *oracle);
  if (r.skipped) GTEST_SKIP() << GetParam().backend << " does not run " << c.name << ": " << r.skip_reason;
  for (const auto& o : r.outputs) {
    std::printf("  %-6s %-28s %-15s nmse %8.2e  max|err| %8.2e", GetParam().backend.c_str(), c.name.c_str(),
                o.name.c_str(), o.nmse, o.max_error);
    if (o.masked) std::printf("  masked %5zu: max|err| %.2e", o.masked, o.masked_max_error);
    std::printf("\n");
    EXPECT_GT(o.oracle_scale, 0.0) << c.name << "." << o.name << " is all zeros: the comparison proves nothing";
  }
  EXPECT_FALSE(r.outputs.empty()) << c.name;
  for (const auto& p : r.problems) ADD_FAILURE() << GetParam().backend << " " << c.name << ": " << p;
}

std::vector<Param> all_params() {
  std::vector<Param> ps;
  for (const auto& b : registered_backends())
    for (size_t i = 0; i < op_cases().size(); ++i) ps.push_back({b, i});
  return ps;
}

INSTANTIATE_TEST_SUITE_P(Ops, BackendParity, ::testing::ValuesIn(all_params()), [](const auto& info) {
  return info.param.backend + "_" + op_cases()[info.param.op].name;
});

TEST(ParityTable, CoversEveryOp) {
  std::set<Op> covered;
  for (const auto& c : op_cases()) covered.insert(c.op);
  for (Op op : all_ops()) EXPECT_TRUE(covered.count(op)) << op_name(op) << " has no case in the parity table";
}

TEST(ParityTable, CaseNamesAreUnique) {
  std::set<std::string> names;
  for (const auto& c : op_cases()) EXPECT_TRUE(names.insert(c.name).second) << c.name;
}

// The exact checks must have something to check: each of these outputs has a masked region.
TEST(ParityTable, MaskedRegionsAreNotEmpty) {
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"embedding", "dwte"},
      {"xent", "dlogits"},
      {"adamw", "params"},
      {"memory_rule_delta_E3", "dq"},
      {"memory_rule_comba_E3", "dp"},
      {"memory_rule_titans_E3", "dk"},
      {"memory_block_norms_delta_E3", "norms_elements"},
  };
  auto be = make_cpu_backend<float>(1);
  auto oracle = make_cpu_backend<double>(1);
  for (const auto& [case_name, output] : expected) {
    const OpCase* c = nullptr;
    for (const auto& x : op_cases())
      if (x.name == case_name) c = &x;
    ASSERT_NE(c, nullptr) << case_name;
    const CaseCheck r = check_case(*c, *be, *oracle);
    bool found = false;
    for (const auto& o : r.outputs)
      if (o.name == output) {
        found = true;
        EXPECT_GT(o.masked, 0u) << case_name << "." << output;
        EXPECT_LT(o.masked, o.elements) << case_name << "." << output << ": nothing left for the NMSE";
      }
    EXPECT_TRUE(found) << case_name << "." << output;
  }
}

}  // namespace
