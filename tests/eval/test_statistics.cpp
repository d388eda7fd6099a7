// The intervals of math.md section 7: bootstrap over sequences, paired differences, t over seeds.
// Checked against known values, against their meaning (coverage of a known mean), and for the
// properties a reader relies on: they contain the mean, shrink with more data, replay exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "core/eval/statistics.hpp"

namespace {

using namespace proteus::eval;

std::vector<double> normal_draws(int n, double mean, double sd, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> d(mean, sd);
  std::vector<double> x(n);
  for (auto& v : x) v = d(rng);
  return x;
}

TEST(Statistics, PairedTTestP) {
  // 1..5: t = 3 / (sqrt(2.5) / sqrt(5)) = 4.2426, 4 df: two-sided p = 0.0132356.
  EXPECT_NEAR(t_test_p({1, 2, 3, 4, 5}), 0.0132356, 1e-6);
  EXPECT_NEAR(t_test_p({-1, -2, -3, -4, -5}), 0.0132356, 1e-6);
  EXPECT_TRUE(std::isnan(t_test_p({1})));
  EXPECT_EQ(t_test_p({0.5, 0.5}), 0.0);  // every difference the same nonzero value
  EXPECT_EQ(t_test_p({0, 0, 0}), 1.0);
}

TEST(Statistics, TIntervalMatchesTheTable) {
  // 1..5: mean 3, s = sqrt(2.5), t(0.975, 4) = 2.776445 (any t table).
  const auto i = t_interval({1, 2, 3, 4, 5});
  EXPECT_EQ(i.n, 5);
  EXPECT_DOUBLE_EQ(i.mean, 3.0);
  const double half = 2.776445105 * std::sqrt(2.5) / std::sqrt(5.0);
  EXPECT_NEAR(i.lo, 3.0 - half, 1e-6);
  EXPECT_NEAR(i.hi, 3.0 + half, 1e-6);
  // Two seeds: t(0.975, 1) = 12.7062.
  const auto two = t_interval({1.0, 2.0});
  EXPECT_NEAR(two.hi - two.mean, 12.7062047 * std::sqrt(0.5) / std::sqrt(2.0), 1e-5);
}

TEST(Statistics, TQuantileMatchesTheTable) {
  // Two-sided 95% values from any t table.
  EXPECT_NEAR(t_quantile(0.95, 1), 12.7062047, 1e-6);
  EXPECT_NEAR(t_quantile(0.95, 2), 4.30265273, 1e-6);
  EXPECT_NEAR(t_quantile(0.95, 3), 3.18244631, 1e-6);
  EXPECT_NEAR(t_quantile(0.90, 10), 1.81246112, 1e-6);
  EXPECT_THROW(t_quantile(0.95, 0), std::invalid_argument);
  EXPECT_THROW(t_quantile(1.0, 3), std::invalid_argument);
}

TEST(Statistics, DetectableEffectMatchesTheTable) {
  // 1..8: s = sqrt(6); t(0.975, 7) = 2.364624, t(0.80, 7) = 0.896030 (any t table).
  const double expected = (2.364624252 + 0.896029644) * std::sqrt(6.0) / std::sqrt(8.0);
  EXPECT_NEAR(detectable_effect({1, 2, 3, 4, 5, 6, 7, 8}), expected, 1e-6);
  // NaN seeds are left out, as in t_interval; fewer than two values detect nothing.
  EXPECT_NEAR(detectable_effect({1, 2, std::nan(""), 3, 4, 5, 6, 7, 8}), expected, 1e-6);
  EXPECT_TRUE(std::isnan(detectable_effect({0.5})));
  EXPECT_TRUE(std::isnan(detectable_effect({})));
  // A shift of every difference changes the mean, not the spread: the same detectable effect.
  EXPECT_NEAR(detectable_effect({11, 12, 13, 14, 15, 16, 17, 18}), expected, 1e-6);
  EXPECT_THROW(detectable_effect({1, 2}, 1.0), std::invalid_argument);
  EXPECT_THROW(detectable_effect({1, 2}, 0.8, 0.0), std::invalid_argument);
}

TEST(Statistics, AnEffectOfTheDetectableSizeIsFoundAboutEightyPercentOfTheTime) {
  // Designs of 8 paired seeds with true sd 1 and a true mean equal to the detectable effect of
  // that sd: the two-sided 95% t interval should exclude zero in about 80% of them (the normal-shift
  // approximation gives slightly less with few seeds).
  const int n = 8, designs = 4000;
  const double sd = 1.0, effect = (2.364624252 + 0.896029644) * sd / std::sqrt(double(n));
  std::mt19937 rng(7);
  std::normal_distribution<double> d(effect, sd);
  int found = 0;
  for (int i = 0; i < designs; ++i) {
    std::vector<double> x(n);
    for (auto& v : x) v = d(rng);
    const auto t = t_interval(x);
    found += t.lo > 0 || t.hi < 0;
  }
  const double power = double(found) / designs;
  EXPECT_GT(power, 0.74);
  EXPECT_LT(power, 0.84);
  // And with four times the seeds the same spread detects half the effect.
  std::vector<double> few = normal_draws(8, 0.0, 1.0, 3), many;
  for (int r = 0; r < 4; ++r) many.insert(many.end(), few.begin(), few.end());
  EXPECT_LT(detectable_effect(many), 0.5 * detectable_effect(few));
}

TEST(Statistics, OneSeedHasNoInterval) {
  const auto i = t_interval({2.5});
  EXPECT_EQ(i.n, 1);
  EXPECT_FALSE(i.has_interval());
  EXPECT_EQ(i.lo, 2.5);
  EXPECT_EQ(i.hi, 2.5);
  const auto b = bootstrap_mean({4.0});
  EXPECT_FALSE(b.has_interval());
  EXPECT_EQ(b.mean, 4.0);
}

TEST(Statistics, BootstrapContainsTheMeanAndShrinksWithMoreSequences) {
  const auto few = normal_draws(32, 1.0, 0.5, 1);
  auto many = few;
  const auto more = normal_draws(480, 1.0, 0.5, 2);
  many.insert(many.end(), more.begin(), more.end());
  const auto a = bootstrap_mean(few), b = bootstrap_mean(many);
  for (const auto& i : {a, b}) {
    EXPECT_TRUE(i.has_interval());
    EXPECT_LT(i.lo, i.mean);
    EXPECT_GT(i.hi, i.mean);
  }
  // The width goes as 1/sqrt(n): 16x the sequences, about a quarter of the width.
  const double ratio = (b.hi - b.lo) / (a.hi - a.lo);
  EXPECT_GT(ratio, 0.15);
  EXPECT_LT(ratio, 0.40);
}

TEST(Statistics, BootstrapCoversTheTrueMeanAboutNinetyFivePercentOfTheTime) {
  int covered = 0;
  const int trials = 200;
  BootstrapOptions o;
  o.resamples = 400;
  for (int t = 0; t < trials; ++t) {
    const auto i = bootstrap_mean(normal_draws(64, 2.0, 1.0, 100 + t), o);
    covered += (i.lo <= 2.0 && 2.0 <= i.hi);
  }
  // Binomial(200, 0.95) lies in [178, 197] with probability > 0.999; the percentile bootstrap
  // runs slightly narrow at n = 64, so allow a little below.
  EXPECT_GE(covered, 176);
  EXPECT_LE(covered, 198);
}

TEST(Statistics, TheSameSeedGivesTheSameInterval) {
  const auto x = normal_draws(50, 0.0, 1.0, 7);
  const auto a = bootstrap_mean(x), b = bootstrap_mean(x);
  EXPECT_EQ(a.lo, b.lo);
  EXPECT_EQ(a.hi, b.hi);
  BootstrapOptions other;
  other.seed = 99;
  EXPECT_NE(bootstrap_mean(x, other).lo, a.lo);
}

TEST(Statistics, ColumnsAreResampledTogetherAndSkipMissingValues) {
  // Two columns, the second a copy of the first plus 1 except one missing value.
  const int rows = 40;
  const auto x = normal_draws(rows, 0.0, 1.0, 11);
  std::vector<double> v;
  for (int r = 0; r < rows; ++r) {
    v.push_back(x[r]);
    v.push_back(r == 3 ? std::nan("") : x[r] + 1.0);
  }
  const auto cols = bootstrap_column_means(v, rows, 2);
  ASSERT_EQ(cols.size(), 2u);
  EXPECT_EQ(cols[0].n, rows);
  EXPECT_EQ(cols[1].n, rows - 1);
  double s = 0;
  for (int r = 0; r < rows; ++r)
    if (r != 3) s += x[r] + 1.0;
  EXPECT_NEAR(cols[1].mean, s / (rows - 1), 1e-12);
}

TEST(Statistics, PairedDifferenceCancelsWhatTheRunsShare) {
  // Sequence difficulty varies a lot; the two runs differ by 0.05 with a little noise of their own.
  const int rows = 128;
  const auto difficulty = normal_draws(rows, 3.0, 1.0, 21);
  const auto noise = normal_draws(rows, 0.0, 0.01, 22);
  std::vector<double> a(rows), b(rows);
  for (int r = 0; r < rows; ++r) {
    b[r] = difficulty[r];
    a[r] = difficulty[r] - 0.05 + noise[r];
  }
  const auto d = paired_difference(a, b, rows, 1).front();
  EXPECT_NEAR(d.mean, -0.05, 0.005);
  EXPECT_TRUE(d.excludes(0.0)) << "a consistent per-sequence gain is shown";
  // Unpaired, the same gain hides inside the spread of difficulty.
  const auto ia = bootstrap_mean(a), ib = bootstrap_mean(b);
  EXPECT_TRUE(ia.lo < ib.hi && ib.lo < ia.hi);
  EXPECT_THROW(paired_difference(a, std::vector<double>(rows - 1), rows, 1), std::invalid_argument);
}

TEST(Statistics, TIntervalsPerColumn) {
  const auto cols = t_intervals({{1.0, 10.0}, {3.0, 10.0}, {5.0, 10.0}});
  ASSERT_EQ(cols.size(), 2u);
  EXPECT_DOUBLE_EQ(cols[0].mean, 3.0);
  EXPECT_EQ(cols[1].lo, 10.0);  // no spread, no width
  EXPECT_EQ(cols[1].hi, 10.0);
  EXPECT_THROW(t_intervals({{1.0}, {1.0, 2.0}}), std::invalid_argument);
}

}  // namespace
