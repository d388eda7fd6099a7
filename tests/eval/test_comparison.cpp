// Comparisons across runs: a seed group's summary and the paired differences against a
// baseline, on synthetic per-sequence losses whose answer is known.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/eval/comparison.hpp"

namespace {

using namespace proteus::eval;

// A run's per-position result from per-position losses (S sequences x L positions): `level` plus
// per-sequence difficulty (shared between runs with the same difficulty seed) plus own noise.
PerPositionResult synthetic_run(int S, int L, double level, uint32_t difficulty_seed, uint32_t noise_seed,
                                double noise = 0.05) {
  std::mt19937 d(difficulty_seed), n(noise_seed);
  std::normal_distribution<double> hard(0.0, 0.5), own(0.0, noise);
  PerPositionResult r;
  r.seq_len = L;
  r.sequences = S;
  r.nll.assign(L, 0.0);
  std::vector<double> losses;
  for (int s = 0; s < S; ++s) {
    const double h = hard(d);
    for (int t = 0; t < L; ++t) {
      const double x = level + h + own(n);
      losses.push_back(x);
      r.nll[t] += x / S;
    }
  }
  double total = 0;
  for (double x : r.nll) total += x;
  r.mean_nll = total / L;
  for (auto [lo, hi] : log_buckets(L, 4)) {
    double s = 0;
    for (int t = lo; t <= hi; ++t) s += r.nll[t - 1];
    r.bucket_lo.push_back(lo);
    r.bucket_hi.push_back(hi);
    r.bucket_nll.push_back(s / (hi - lo + 1));
  }
  summarise_sequences(r, losses);
  r.sequences_fingerprint = difficulty_seed;  // the same sequences when the difficulty is shared
  return r;
}

TEST(Comparison, SeedGroupIntervalsContainTheGroupMeanAndShrinkWithSeeds) {
  std::vector<PerPositionResult> three, six;
  for (uint32_t s = 1; s <= 6; ++s) {
    auto r = synthetic_run(32, 16, 2.0 + 0.02 * (s % 3), 100 + s, 200 + s);
    if (s <= 3) three.push_back(r);
    six.push_back(r);
  }
  const auto g3 = summarise_group(three), g6 = summarise_group(six);
  EXPECT_EQ(g3.seeds, 3);
  for (size_t k = 0; k < g3.nll.value.size(); ++k) {
    double m = 0;
    for (const auto& r : three) m += r.bucket_nll[k] / 3;
    EXPECT_NEAR(g3.nll.value[k].mean, m, 1e-12);
    EXPECT_LT(g3.nll.value[k].lo, m);
    EXPECT_GT(g3.nll.value[k].hi, m);
    EXPECT_EQ(g3.nll.value[k].n, 3);
    // More seeds: a smaller t quantile and a smaller standard error.
    EXPECT_LT(g6.nll.value[k].hi - g6.nll.value[k].lo, g3.nll.value[k].hi - g3.nll.value[k].lo);
  }
  EXPECT_NEAR(g3.bits_per_byte.mean * std::log(2.0), g3.nll.overall.mean, 1e-12);
  EXPECT_TRUE(g3.block_use_entropy.empty());
}

TEST(Comparison, OneSeedIsAGroupWithoutAnInterval) {
  const auto g = summarise_group({synthetic_run(8, 8, 1.0, 1, 2)});
  EXPECT_EQ(g.seeds, 1);
  EXPECT_FALSE(g.bits_per_byte.has_interval());
}

TEST(Comparison, PairedComparisonShowsAGainTheSpreadHides) {
  const auto base = synthetic_run(64, 16, 2.0, 7, 8, 0.02);
  const auto prot = synthetic_run(64, 16, 1.97, 7, 9, 0.02);
  const auto t = paired_comparison(prot, base);
  EXPECT_NEAR(t.overall.mean, -0.03, 0.01);
  EXPECT_TRUE(t.overall.excludes(0.0));
  for (const auto& i : t.value) EXPECT_LT(i.hi, 0.0);
  const auto rows = bucket_table_rows(t, 16);
  ASSERT_EQ(rows.size(), t.value.size() + 1);
  EXPECT_EQ(rows.back()[0], 1.0);
  EXPECT_EQ(rows.back()[1], 16.0);
  EXPECT_EQ(bucket_table_header().size(), rows.back().size());
  // Other sequences: refused.
  EXPECT_THROW(paired_comparison(prot, synthetic_run(64, 16, 2.0, 70, 8)), std::invalid_argument);
}

TEST(Comparison, GroupAgainstBaselineSeedBySeed) {
  std::vector<PerPositionResult> runs, base;
  for (uint32_t s = 1; s <= 4; ++s) {
    base.push_back(synthetic_run(16, 16, 2.0, 10 * s, 11 * s));
    runs.push_back(synthetic_run(16, 16, 1.9, 10 * s, 13 * s));
  }
  const auto t = paired_group_comparison(runs, base);
  EXPECT_EQ(t.overall.n, 4);
  EXPECT_NEAR(t.overall.mean, -0.1, 0.02);
  EXPECT_TRUE(t.overall.excludes(0.0));
  runs.pop_back();
  EXPECT_THROW(paired_group_comparison(runs, base), std::invalid_argument);
}

}  // namespace
