// Issue 34: which runs make one seed group (core/config/seed_group_members.hpp): one run per seed,
// of one experiment; what is left out is said with the run's name and the field it differs in.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/config/seed_group_members.hpp"

namespace {

using namespace proteus::config;

RunConfig member(uint64_t seed, const std::string& name) {
  RunConfig c;
  c.name = name;
  c.group = "g";
  c.seed = seed;
  c.model.d_model = 16;
  c.model.mixer.d_head = 4;
  c.model.mixer.E = 4;
  return c;
}

std::vector<SeedGroupCandidate> candidates(const std::vector<RunConfig>& configs) {
  std::vector<SeedGroupCandidate> out;
  for (const auto& c : configs) out.push_back({c.name, &c});
  return out;
}

TEST(SeedGroupMembers, EachSeedIsCountedOnceAndTheRestIsNamed) {
  const std::vector<RunConfig> runs = {member(2, "g-s2"), member(1, "g-s1"), member(1, "g-s1-2"), member(3, "g-s3")};
  const auto m = choose_seed_group_members("g", candidates(runs));
  EXPECT_EQ(m.kept, (std::vector<size_t>{1, 0, 3})) << "one run per seed, by seed";
  ASSERT_EQ(m.left_out.size(), 1u);
  EXPECT_EQ(m.left_out[0], "seed group g: run g-s1-2 left out: seed 1 is counted once (run g-s1 has it)");
}

TEST(SeedGroupMembers, ARunDifferingInMoreThanTheSeedIsLeftOutNamingTheField) {
  std::vector<RunConfig> runs = {member(1, "g-s1"), member(2, "g-s2"), member(3, "g-s3")};
  runs[2].model.mixer.E = 2;
  const auto m = choose_seed_group_members("g", candidates(runs));
  EXPECT_EQ(m.kept, (std::vector<size_t>{0, 1})) << "the experiment most runs share is the group";
  ASSERT_EQ(m.left_out.size(), 1u);
  EXPECT_EQ(m.left_out[0],
            "seed group g: run g-s3 left out: it differs from the group in more than the seed: model.mixer.E (2 here, 4 "
            "in the group)");
}

TEST(SeedGroupMembers, WhatSaysWhichRunItIsOrHowItRanDoesNotSplitAGroup) {
  std::vector<RunConfig> runs = {member(1, "g-s1"), member(2, "elsewhere")};
  runs[1].threads = 7;
  runs[1].device = "cuda";
  runs[1].runs_dir = "/shared/runs";
  runs[1].train.checkpoint_every = 3;
  const auto m = choose_seed_group_members("g", candidates(runs));
  EXPECT_EQ(m.kept.size(), 2u);
  EXPECT_TRUE(m.left_out.empty()) << m.left_out.front();
}

TEST(SeedGroupMembers, TheFieldNamedIsTheOneAUserSetsNotOneDerivedFromIt) {
  RunConfig a = member(1, "g-s1"), b = member(2, "g-s2");
  b.train.steps = a.train.steps * 2;  // the parameter schedule's horizon follows the steps
  b.model.param_schedule.N = 0;
  const std::vector<RunConfig> runs = {a, b};
  const auto m = choose_seed_group_members("g", candidates(runs));
  ASSERT_EQ(m.left_out.size(), 1u);
  const std::string said = "it differs from the group in more than the seed: ";
  const std::string& note = m.left_out[0];
  ASSERT_NE(note.find(said), std::string::npos) << note;
  EXPECT_EQ(note.substr(note.find(said) + said.size()).rfind("train.steps (", 0), 0u) << note;
  const std::vector<RunConfig> same = {a, member(2, "g-s2")};
  EXPECT_TRUE(choose_seed_group_members("g", candidates(same)).left_out.empty());
}

}  // namespace
