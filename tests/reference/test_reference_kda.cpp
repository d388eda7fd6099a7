// The reference's kda (experiments/reference/memory_rules.py) checked against itself in float64:
// tests/reference/kda_reference_check.py (its chunked form against its recurrent form, outputs and
// autograd gradients, over E, schedules, chunk sizes and both block axes; finite differences; a row
// of equal retentions against the delta rule; fla's recurrence written out at E = 1; math.md's gated
// row written out at unaligned E; tiny and zero retentions; controls that the checks can fail).
// No C++ model is involved: the agreement with the engine is test_reference_model's.
// Skips when no python3 with torch is found; fails instead under scripts/test.sh.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "tests/support/required_check.hpp"
#include "tests/support/run_command.hpp"

namespace {

using proteus::test_support::python_with;

TEST(ReferenceKda, ChunkedEqualsRecurrentAndTheWrittenOutRules) {
  const std::string python = python_with("torch");
  if (python.empty()) PROTEUS_SKIP_UNLESS_REQUIRED("no python3 with torch found");
  const auto r = proteus::test_support::run_program(
      {python, std::string(PROTEUS_SOURCE_DIR) + "/tests/reference/kda_reference_check.py"});
  std::fputs(r.out.c_str(), stdout);
  EXPECT_EQ(r.status, 0) << "kda_reference_check.py failed";
}

}  // namespace
