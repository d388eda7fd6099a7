// The CPU backend's loops read and write subnormal floats as zero (a locked value_rows column's
// gradient decays through that range, at ~100x the cost), and the caller's own mode returns
// after them, so code outside the backend (the window, the tests' references) keeps IEEE's.
#include <gtest/gtest.h>

#include <cfloat>

#include "core/backend/cpu/flush_subnormals.hpp"

namespace {

// Through volatile, so the compiler cannot fold the product at compile time.
float times_one(float x) {
  volatile float one = 1.0f;
  return x * one;
}

TEST(FlushSubnormals, ASubnormalIsZeroInsideTheScopeAndItselfAfter) {
#if !defined(__SSE__)
  GTEST_SKIP() << "x86 only";
#else
  const float tiny = FLT_MIN / 4;  // subnormal
  ASSERT_NE(times_one(tiny), 0.0f) << "outside the scope: IEEE subnormals";
  {
    const proteus::backend::FlushSubnormals flush;
    EXPECT_EQ(times_one(tiny), 0.0f) << "read as zero";
    EXPECT_EQ(times_one(FLT_MIN) * 0.25f, 0.0f) << "a result in the subnormal range is written as zero";
    EXPECT_EQ(times_one(FLT_MIN), FLT_MIN) << "normal floats untouched";
  }
  EXPECT_EQ(times_one(tiny), tiny) << "the caller's mode is back";
#endif
}

}  // namespace
