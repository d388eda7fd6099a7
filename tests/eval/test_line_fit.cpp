// eval::fit_line (line_fit.hpp): the least-squares trend the gating-effect maps draw and
// `proteus stats trend` fits per seed, on lines whose answers are known by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "core/eval/line_fit.hpp"

namespace {

using proteus::eval::fit_line;

TEST(LineFit, ExactLineOnALogAxis) {
  // +0.08 at 1x falling 0.02 per doubling: 0 at 2^4 = 16x, inside the measured 1x..16x.
  const auto f = fit_line({1, 4, 16}, {0.08, 0.04, 0.0}, true);
  EXPECT_EQ(f.points, 3);
  EXPECT_TRUE(f.log_x);
  EXPECT_NEAR(f.slope, -0.02, 1e-15);
  EXPECT_NEAR(f.intercept, 0.08, 1e-15);
  EXPECT_NEAR(f.slope_lo, -0.02, 1e-12);  // no residual: a zero-width interval
  EXPECT_NEAR(f.slope_hi, -0.02, 1e-12);
  EXPECT_NEAR(f.zero_x, 16, 1e-9);
  EXPECT_TRUE(f.zero_inside);
}

TEST(LineFit, TwoPointsHaveNoSlopeInterval) {
  const auto f = fit_line({0, 2}, {1, 5}, false);
  EXPECT_DOUBLE_EQ(f.slope, 2);
  EXPECT_DOUBLE_EQ(f.intercept, 1);
  EXPECT_TRUE(std::isnan(f.slope_lo) && std::isnan(f.slope_hi));
  EXPECT_DOUBLE_EQ(f.zero_x, -0.5);
  EXPECT_FALSE(f.zero_inside);  // extrapolated
}

TEST(LineFit, ResidualsWidenTheSlopeIntervalByT) {
  // x 2..5, y 1 3 2 5: slope 1.1, intercept -1.1, SSE 2.7, suu 5: half = t(0.975, 2) sqrt(2.7 / 2 / 5).
  const auto f = fit_line({2, 3, 4, 5}, {1, 3, 2, 5}, false);
  EXPECT_NEAR(f.slope, 1.1, 1e-12);
  EXPECT_NEAR(f.intercept, -1.1, 1e-12);
  const double half = 4.302652729911275 * std::sqrt(2.7 / 2 / 5);
  EXPECT_NEAR(f.slope_lo, 1.1 - half, 1e-9);
  EXPECT_NEAR(f.slope_hi, 1.1 + half, 1e-9);
}

TEST(LineFit, FlatLineNeverCrosses) { EXPECT_TRUE(std::isnan(fit_line({1, 2, 3}, {0.2, 0.2, 0.2}, false).zero_x)); }

TEST(LineFit, RefusesWhatIsNoLine) {
  EXPECT_THROW(fit_line({1, 1, 1}, {1, 2, 3}, false), std::invalid_argument);
  EXPECT_THROW(fit_line({1, 2}, {1}, false), std::invalid_argument);
  EXPECT_THROW(fit_line({0, 2}, {1, 2}, true), std::invalid_argument);
}

}  // namespace
