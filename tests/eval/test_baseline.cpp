// The one pairing rule (core/eval/baseline.hpp): which fields a baseline may differ in, which E = 1
// run of several a gated run pairs with, and which group a gated seed group names; and the one
// seed-group summary (core/eval/seed_group_summary.hpp) every group row reads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/eval/baseline.hpp"
#include "core/eval/seed_group_summary.hpp"
#include "tests/support/seed_group_runs.hpp"

namespace {

using namespace proteus;
using test_support::seed_group_member;

// Runs as the rule sees them, named by their configs.
std::vector<eval::BaselineCandidate> candidates(const std::vector<config::RunConfig>& configs) {
  std::vector<eval::BaselineCandidate> out;
  for (const auto& c : configs) out.push_back({c.name, &c});
  return out;
}

TEST(BaselineRule, TheScheduleOwnsEAndItsScheduleNormalizeFormAndBlockAxisOnly) {
  for (const char* p : {"model.mixer.E", "model.mixer.N", "model.mixer.schedule", "model.mixer.schedule.type",
                        "model.mixer.schedule.unlock", "model.mixer.normalize", "model.mixer.form", "model.mixer.block_axis"})
    EXPECT_TRUE(eval::schedule_owned_field(p)) << p;
  for (const char* p : {"model.mixer.rule", "model.mixer.heads", "model.mixer.d_head", "model.mixer.output_gate",
                        "model.mixer.type", "model.d_model", "data.seq_len", "seed", "model.param_schedule.E"})
    EXPECT_FALSE(eval::schedule_owned_field(p)) << p;
}

TEST(BaselineRule, TheKeyIgnoresTheRunsIdentityAndTheSchedulesFieldsOnly) {
  const auto gated = seed_group_member("g", 16, 1);
  auto base = seed_group_member("b", 1, 7);  // another name, group and seed
  base.model.mixer.normalize = memory::KeyNormalize::mask_then_normalize;
  base.model.mixer.block_axis = memory::BlockAxis::value_rows;
  base.model.mixer.form = memory::RuleForm::recurrent;
  base.model.mixer.N = 32;
  base.threads = 3;
  EXPECT_EQ(eval::baseline_pairing_key(gated), eval::baseline_pairing_key(base));
  base.model.mixer.heads = 4;
  EXPECT_NE(eval::baseline_pairing_key(gated), eval::baseline_pairing_key(base)) << "another model";
}

TEST(BaselineRule, AGatedRunPairsWithAnE1RunOfItsSeedAndConfig) {
  const auto gated = seed_group_member("x-proteus", 16, 2);
  auto other_seed = seed_group_member("x-baseline", 1, 1);
  auto other_model = seed_group_member("x-baseline", 1, 2);
  other_model.model.d_model = 32;
  auto gated_too = seed_group_member("x-proteus-e4", 4, 2);  // E > 1: never a baseline
  auto right = seed_group_member("x-baseline", 1, 2);
  right.name = "x-baseline-s2";
  const std::vector<config::RunConfig> runs = {other_seed, other_model, gated_too, right};
  EXPECT_EQ(eval::find_baseline({gated.name, &gated}, candidates(runs)), 3);
  EXPECT_EQ(eval::find_baseline({right.name, &right}, candidates(runs)), -1) << "an E = 1 run has no baseline";
  EXPECT_EQ(eval::find_baseline({"none", nullptr}, candidates(runs)), -1);
  auto attention = gated;
  attention.model.mixer.type = config::MixerType::attention;
  EXPECT_EQ(eval::find_baseline({attention.name, &attention}, candidates(runs)), -1) << "only a memory mixer is gated";
}

TEST(BaselineRule, OfSeveralTheSameExperimentsThenTheFirstNameWinsWhateverTheOrder) {
  const auto gated = seed_group_member("diag-normalize-proteus-e16", 16, 1);
  const auto shared = seed_group_member("regime-comba-baseline", 1, 1);
  const auto own = seed_group_member("diag-normalize-baseline", 1, 1);
  const auto first = seed_group_member("a-baseline", 1, 1);
  std::vector<config::RunConfig> runs = {first, shared, own};
  for (int turn = 0; turn < 3; ++turn) {
    const auto c = candidates(runs);
    const int found = eval::find_baseline({gated.name, &gated}, c);
    ASSERT_GE(found, 0);
    EXPECT_EQ(c[found].name, "diag-normalize-baseline-s1") << "the longest shared prefix, in any order";
    std::rotate(runs.begin(), runs.begin() + 1, runs.end());
  }
  // No prefix to tell them apart: the name that sorts first.
  const auto lone = seed_group_member("zeta-e16", 16, 1);
  const std::vector<config::RunConfig> two = {shared, first};
  const auto c = candidates(two);
  EXPECT_EQ(c[eval::find_baseline({lone.name, &lone}, c)].name, "a-baseline-s1");
}

TEST(BaselineRule, AGroupNamesTheGroupMostOfItsBaselinesBelongTo) {
  const std::vector<config::RunConfig> runs = {seed_group_member("a-baseline", 1, 1), seed_group_member("g-baseline", 1, 2),
                                               seed_group_member("g-baseline", 1, 3)};
  const eval::Baselines b(candidates(runs));
  EXPECT_EQ(b.baseline_group({0, 1, 2}, "g-e16"), "g-baseline");
  EXPECT_EQ(b.baseline_group({0, 1, -1}, "g-e16"), "g-baseline") << "a tie: the longer shared prefix";
  EXPECT_EQ(b.baseline_group({0, 1, -1}, "zeta"), "a-baseline") << "a tie without a prefix: the first name";
  EXPECT_EQ(b.baseline_group({-1, -1}, "g-e16"), "");
}

TEST(SeedGroupSummary, MeanEffectDetectableEffectAndSeedsBetter) {
  const double nan = std::nan("");
  const auto s = eval::summarise_seed_group({{1, 1.0, -0.1}, {2, 2.0, -0.3}, {3, 3.0, 0.1}, {4, nan, nan}});
  EXPECT_EQ(s.seeds, (std::vector<uint64_t>{1, 2, 3, 4}));
  EXPECT_EQ(s.mean.n, 3) << "a member without a value is not counted";
  EXPECT_DOUBLE_EQ(s.mean.mean, 2.0);
  const auto t = eval::t_interval({1.0, 2.0, 3.0});
  EXPECT_DOUBLE_EQ(s.mean.lo, t.lo);
  EXPECT_DOUBLE_EQ(s.mean.hi, t.hi);
  EXPECT_EQ(s.effect.n, 3);
  EXPECT_NEAR(s.effect.mean, -0.1, 1e-15);
  EXPECT_DOUBLE_EQ(s.detectable_effect, eval::detectable_effect({-0.1, -0.3, 0.1}));
  EXPECT_EQ(s.seeds_better, 2);
  // None paired, none valued: NaN with n = 0, no detectable effect.
  const auto none = eval::summarise_seed_group({{1, nan, nan}});
  EXPECT_EQ(none.mean.n, 0);
  EXPECT_TRUE(std::isnan(none.mean.mean));
  EXPECT_EQ(none.effect.n, 0);
  EXPECT_TRUE(std::isnan(none.detectable_effect));
}

}  // namespace
