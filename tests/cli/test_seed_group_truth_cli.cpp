// Issue 34: a seed group is what is on disk. `proteus train --seeds`, `proteus groups` and the
// figures build it from every run of the group in the runs folder, count a seed once, leave out
// (naming the field) a run that differs in more than the seed, and drop runs that were deleted, so
// no summary or figure reports an n it does not have.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/run_command.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/tiny_experiment.hpp"

namespace {

namespace fs = std::filesystem;
using proteus::test_support::TempDir;

proteus::test_support::CommandResult proteus_in(const TempDir& tmp, const std::vector<std::string>& args) {
  return proteus::test_support::run_proteus_in(tmp.path().string(), args);
}

nlohmann::json group_json(const TempDir& tmp, const std::string& group) {
  return nlohmann::json::parse(TempDir::read(tmp / ("runs/groups/" + group + "/group.json")));
}

// The tiny experiment trained once (seeds 1, 2 of baseline and proteus) before each test.
class SeedGroupTruth : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(proteus_in(tmp, {"train", config}).status, 0); }
  TempDir tmp;
  const std::string config = proteus::test_support::write_tiny_experiment(tmp);
};

TEST_F(SeedGroupTruth, ALaterSeedJoinsTheSeedsAlreadyOnDisk) {
  const auto r = proteus_in(tmp, {"train", config, "--seeds", "3"});
  ASSERT_EQ(r.status, 0) << r.out;
  const auto g = group_json(tmp, "tiny-proteus");
  EXPECT_EQ(g.at("seeds"), nlohmann::json::array({1, 2, 3})) << g.dump();
  EXPECT_EQ(g.at("members"), nlohmann::json::array({"tiny-proteus-s1", "tiny-proteus-s2", "tiny-proteus-s3"}));
  EXPECT_EQ(g.at("per_position").at("all").at("n"), 3);
  EXPECT_EQ(g.at("paired_per_seed").size(), 3u) << "paired with the baseline's seeds 1-3 too";
  // One run named from inside the runs folder: its group is the same three seeds, written there.
  const auto inside = proteus::test_support::run_proteus_in((tmp / "runs").string(), {"groups", "tiny-proteus-s2"});
  ASSERT_EQ(inside.status, 0) << inside.out;
  EXPECT_EQ(group_json(tmp, "tiny-proteus").at("seeds"), nlohmann::json::array({1, 2, 3})) << inside.out;
  EXPECT_FALSE(fs::exists(tmp / "runs/runs")) << inside.out;
}

TEST_F(SeedGroupTruth, ASeedTrainedTwiceIsCountedOnceAndSaidSo) {
  const auto again = proteus_in(tmp, {"train", config});  // tiny-proteus-s1-2, -s2-2 beside the first
  ASSERT_EQ(again.status, 0) << again.out;
  ASSERT_TRUE(fs::exists(tmp / "runs/tiny-proteus-s1-2"));
  const auto r = proteus_in(tmp, {"groups", "runs"});
  ASSERT_EQ(r.status, 0) << r.out;
  const auto g = group_json(tmp, "tiny-proteus");
  EXPECT_EQ(g.at("seeds"), nlohmann::json::array({1, 2})) << g.dump();
  EXPECT_EQ(g.at("per_position").at("all").at("n"), 2) << "a seed trained twice is one seed";
  ASSERT_EQ(g.at("left_out").size(), 2u) << "the summary says what it left out: " << g.dump();
  EXPECT_NE(g.at("left_out")[0].get<std::string>().find("tiny-proteus-s1-2 left out: seed 1 is counted once"),
            std::string::npos);
  EXPECT_NE(r.out.find("run tiny-proteus-s1-2 left out: seed 1 is counted once (run tiny-proteus-s1 has it)"),
            std::string::npos)
      << r.out;
  // The figures count the same way: one entry of 2 seeds, not 4.
  const auto e = proteus_in(tmp, {"export", "runs/tiny-proteus-s1", "runs/tiny-proteus-s1-2", "runs/tiny-proteus-s2",
                                  "runs/tiny-proteus-s2-2", "--formats", "csv", "--out", "figs"});
  ASSERT_EQ(e.status, 0) << e.out;
  const auto csv = TempDir::read(tmp / "figs/per_position.csv");
  EXPECT_NE(csv.find("tiny-proteus (2 seeds)"), std::string::npos) << csv.substr(0, 400);
  EXPECT_EQ(csv.find("(4 seeds)"), std::string::npos);
}

TEST_F(SeedGroupTruth, ARunDifferingInMoreThanTheSeedIsLeftOutNamingTheField) {
  const auto r = proteus_in(tmp, {"train", config, "--variant", "proteus", "--seeds", "3", "--set", "model.mixer.E=4"});
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("seed group tiny-proteus: run tiny-proteus-s3 left out: it differs from the group in more "
                       "than the seed: model.mixer.E (4 here, 2 in the group)"),
            std::string::npos)
      << r.out;
  const auto g = group_json(tmp, "tiny-proteus");
  EXPECT_EQ(g.at("seeds"), nlohmann::json::array({1, 2})) << g.dump();
  const auto again = proteus_in(tmp, {"groups", "runs"});
  EXPECT_NE(again.out.find("model.mixer.E (4 here, 2 in the group)"), std::string::npos) << again.out;
  EXPECT_EQ(group_json(tmp, "tiny-proteus").at("per_position").at("all").at("n"), 2);
}

TEST_F(SeedGroupTruth, DeletedRunsLeaveTheGroupAndAGroupWithNoneLeftIsRemoved) {
  ASSERT_EQ(proteus_in(tmp, {"train", config, "--seeds", "3"}).status, 0);
  fs::remove_all(tmp / "runs/tiny-proteus-s3");
  auto r = proteus_in(tmp, {"groups", "runs"});
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(group_json(tmp, "tiny-proteus").at("members"), nlohmann::json::array({"tiny-proteus-s1", "tiny-proteus-s2"}));
  for (const char* run : {"runs/tiny-proteus-s1", "runs/tiny-proteus-s2"}) fs::remove_all(tmp / run);
  r = proteus_in(tmp, {"groups", "runs"});
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_FALSE(fs::exists(tmp / "runs/groups/tiny-proteus")) << "a summary naming only deleted runs was kept\n" << r.out;
  EXPECT_NE(r.out.find("seed group tiny-proteus: no evaluated run of it is left"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::exists(tmp / "runs/groups/tiny-baseline/group.json"));
}

// Issue 46: every grouped run of a folder deleted, no group leads to the summaries; `proteus groups
// RUNS_DIR` still removes them (none may name a deleted run) and says so.
TEST_F(SeedGroupTruth, AGroupWhoseRunsAreAllGoneIsRemovedEvenWithNoGroupLeft) {
  for (const char* run : {"tiny-baseline-s1", "tiny-baseline-s2", "tiny-proteus-s1", "tiny-proteus-s2"})
    fs::remove_all(tmp / (std::string("runs/") + run));
  ASSERT_TRUE(fs::exists(tmp / "runs/groups/tiny-proteus/group.json"));
  const auto r = proteus_in(tmp, {"groups", "runs"});
  ASSERT_EQ(r.status, 0) << r.out;
  for (const char* g : {"tiny-baseline", "tiny-proteus"}) {
    EXPECT_FALSE(fs::exists(tmp / (std::string("runs/groups/") + g))) << g << "\n" << r.out;
    EXPECT_NE(r.out.find(std::string("seed group ") + g + ": no evaluated run of it is left"), std::string::npos) << r.out;
  }
  EXPECT_NE(r.out.find("0 seed groups"), std::string::npos) << r.out;
}

}  // namespace
