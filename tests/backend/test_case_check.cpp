// The parity checks catch what they claim to: each injected fault (tests/backend/faulty_backend.hpp)
// fails its case for the right reason, and the same case passes on the plain CPU backend.
#include <gtest/gtest.h>

#include <string>

#include "core/backend/cases/case_check.hpp"
#include "core/backend/cases/op_cases.hpp"
#include "tests/backend/faulty_backend.hpp"

namespace {

using namespace proteus::backend;
using proteus::backend::testing::Fault;
using proteus::backend::testing::FaultyBackend;

const OpCase& find_case(const std::string& name) {
  for (const auto& c : op_cases())
    if (c.name == name) return c;
  throw std::out_of_range("no case " + name);
}

struct Expectation {
  Fault fault;
  std::string case_name;
  std::string problem;  // a piece of the one line that must report it
};

class CaseCheckCatches : public ::testing::TestWithParam<Expectation> {};

TEST_P(CaseCheckCatches, TheInjectedFault) {
  const auto& e = GetParam();
  const OpCase& c = find_case(e.case_name);
  auto oracle = make_cpu_backend<double>(1);
  FaultyBackend plain(Fault::none);
  EXPECT_TRUE(check_case(c, plain, *oracle).passed()) << "the case must pass without the fault";
  FaultyBackend faulty(e.fault);
  const CaseCheck r = check_case(c, faulty, *oracle);
  ASSERT_FALSE(r.passed()) << e.case_name;
  bool named = false;
  std::string all;
  for (const auto& p : r.problems) {
    named = named || p.find(e.problem) != std::string::npos;
    all += p + "\n";
  }
  EXPECT_TRUE(named) << "expected '" << e.problem << "' among:\n" << all;
}

INSTANTIATE_TEST_SUITE_P(
    Faults, CaseCheckCatches,
    ::testing::Values(Expectation{Fault::matmul_off, "matmul", "out: normalised error"},
                      Expectation{Fault::dw_overwritten, "matmul", "dw: normalised error"},
                      Expectation{Fault::din_accumulated, "matmul", "din: normalised error"},
                      Expectation{Fault::write_past_end, "scale", "x: 1 guard elements after the end overwritten"},
                      Expectation{Fault::nan_output, "sigmoid", "out: 1 NaN"},
                      Expectation{Fault::locked_not_zero, "memory_block_norms_delta_E3",
                                  "norms_elements: masked region differs"},
                      Expectation{Fault::throws, "add", "threw: add: launch failed (injected)"}),
    [](const auto& info) { return info.param.case_name + "_" + std::to_string(info.index); });

// NMSE alone would pass the locked-element fault: 1e-30 against norms of order 1.
TEST(CaseCheck, ReportsTheMaskedRegionApartFromTheNmse) {
  auto oracle = make_cpu_backend<double>(1);
  FaultyBackend faulty(Fault::locked_not_zero);
  const CaseCheck r = check_case(find_case("memory_block_norms_delta_E3"), faulty, *oracle);
  bool seen = false;
  for (const auto& o : r.outputs)
    if (o.name == "norms_elements") {
      seen = true;
      EXPECT_LT(o.nmse, 1e-12);
      EXPECT_GT(o.masked_max_error, 0.0);
      EXPECT_LT(o.masked_max_error, 1e-29);
    }
  EXPECT_TRUE(seen);
}

TEST(CaseCheck, SkipsWhatTheBackendSaysItCannotRun) {
  auto oracle = make_cpu_backend<double>(1);
  FaultyBackend faulty(Fault::no_attention);
  const CaseCheck r = check_case(find_case("attention"), faulty, *oracle);
  EXPECT_TRUE(r.skipped);
  EXPECT_NE(r.skip_reason.find("no attention kernel"), std::string::npos) << r.skip_reason;
  EXPECT_TRUE(r.passed());
}

}  // namespace
