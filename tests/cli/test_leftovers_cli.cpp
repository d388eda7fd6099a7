// Issue 34, what is left over or written unreadable: a checkpoint temporary from a killed write is
// cleaned when the run is next opened; a config too large for the run's readers is refused before
// anything runs (one limit for writing and reading); `eval --as ''` is a bad name, never "no
// --as"; a refusal names the field the user got wrong and cuts a long value.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/run_command.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/tiny_experiment.hpp"

namespace {

namespace fs = std::filesystem;
using proteus::test_support::TempDir;

proteus::test_support::CommandResult proteus_in(const TempDir& tmp, const std::vector<std::string>& args) {
  return proteus::test_support::run_proteus_in(tmp.path().string(), args);
}

class Leftovers : public ::testing::Test {
 protected:
  void SetUp() override {
    config_ = proteus::test_support::write_tiny_experiment(tmp_);
    ASSERT_EQ(proteus_in(tmp_, {"train", config_, "--variant", "proteus", "--seeds", "1"}).status, 0);
  }
  TempDir tmp_ = TempDir::plain();  // some cases use --slurm, which refuses a runs folder with a space
  std::string config_;
  const fs::path run_ = tmp_ / "runs/tiny-proteus-s1";
};

TEST_F(Leftovers, AKilledWritesTemporariesAreCleanedWhenTheRunIsNextOpened) {
  const auto checkpoint = TempDir::read(run_ / "checkpoint.safetensors");
  tmp_.write("runs/tiny-proteus-s1/.checkpoint.safetensors.tmp-999999-0", "half a checkpoint");
  tmp_.write("runs/tiny-proteus-s1/.status.json.tmp-999999-1", "{");
  const auto r = proteus_in(tmp_, {"eval", "runs/tiny-proteus-s1"});
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_FALSE(fs::exists(run_ / ".checkpoint.safetensors.tmp-999999-0")) << "left in the run folder for good";
  EXPECT_FALSE(fs::exists(run_ / ".status.json.tmp-999999-1"));
  EXPECT_EQ(TempDir::read(run_ / "checkpoint.safetensors"), checkpoint) << "the checkpoint itself is kept";
}

TEST_F(Leftovers, AConfigTooLargeForTheRunsReadersIsRefusedBeforeAnythingRuns) {
  // About 3 MiB as given (under a config file's 4 MiB), about 7 MiB as the run would write it.
  std::string mix;
  for (int i = 0; i < 120000; ++i) mix += std::string(i ? "," : "") + R"({"task":"text","weight":1})";
  const auto big = tmp_.write("big.json", R"({"name": "big", "threads": 1,
    "model": {"d_model": 16, "layers": 1, "mixer": {"heads": 1, "d_head": 4, "E": 2}},
    "data": {"seq_len": 16, "batch": 2, "text": {"path": "text.txt"}, "mix": [)" + mix + R"(]},
    "train": {"steps": 4, "warmup": 1, "eval_every": 2, "log_every": 1, "val_batches": 1}})");
  const auto r = proteus_in(tmp_, {"train", big});
  EXPECT_EQ(r.status, 2) << r.out.substr(0, 400);
  EXPECT_EQ(r.out.rfind("proteus train: error: data.mix: makes the run's config.json", 0), 0u) << r.out.substr(0, 400);
  EXPECT_FALSE(fs::exists(tmp_ / "runs/big")) << "a run was made that no reader can open";
  EXPECT_FALSE(fs::exists(tmp_ / "runs/big-2"));
}

TEST_F(Leftovers, AnEmptyAsIsABadNameAndTheRunsOwnResultsAreUntouched) {
  const auto before = TempDir::read(run_ / "per_position.json");
  const auto stamp = fs::last_write_time(run_ / "per_position.json");
  const auto r = proteus_in(tmp_, {"eval", "runs/tiny-proteus-s1", "--as", ""});
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("--as: "), std::string::npos) << r.out;
  EXPECT_EQ(fs::last_write_time(run_ / "per_position.json"), stamp) << "the run's own results were rewritten";
  EXPECT_EQ(TempDir::read(run_ / "per_position.json"), before);
  EXPECT_FALSE(fs::exists(run_ / "evals"));
}

TEST_F(Leftovers, RefusalsNameTheRealFieldAndCutLongValues) {
  // --as was right; the --set of a field the weights fix is what is refused.
  const auto named = proteus_in(tmp_, {"eval", "runs/tiny-proteus-s1", "--set", "name=other", "--as", "fine"});
  EXPECT_EQ(named.status, 2) << named.out;
  EXPECT_EQ(named.out.rfind("proteus eval: error: name: ", 0), 0u) << named.out;
  const std::string long_value(5000, 'x');
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"export", "runs/tiny-proteus-s1", "--formats", long_value}, "--formats: "},
      {{"eval", "runs/tiny-proteus-s1", "--set", long_value + "=1", "--as", "e"}, "xxxx"},
      {{"eval", "runs/" + long_value}, "runs/xxxx"},
      {{"train", config_, "--slurm", "--print", "--sbatch-arg=--output=" + long_value}, "--sbatch-arg[0]: "},
  };
  for (const auto& [args, field] : cases) {
    const auto r = proteus_in(tmp_, args);
    const std::string shown = proteus::test_support::joined(args).substr(0, 60);
    EXPECT_EQ(r.status, 2) << shown << "\n" << r.out.substr(0, 300);
    EXPECT_NE(r.out.find(field), std::string::npos) << shown << "\n" << r.out.substr(0, 300);
    EXPECT_LT(r.out.size(), 400u) << "a 5000-character value echoed whole\n" << r.out.substr(0, 300);
  }
}

// Issue 34: an option given an empty value (or a count given 0) is a bad value naming the option,
// never taken as the option left out; a duplicate in --seeds is blamed on --seeds.
TEST_F(Leftovers, AnEmptyValueIsABadValueNeverALeftOutOption) {
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"train", config_, "--runs-dir", ""}, "--runs-dir: "},
      {{"train", config_, "--seeds", ""}, "--seeds: "},
      {{"train", config_, "--seeds", "1,1"}, "--seeds: seed 1 is given twice"},
      {{"train", config_, "--device", ""}, "--device: "},
      {{"train", config_, "--slurm", "--print", "--partition", ""}, "--partition: is empty"},
      {{"train", config_, "--slurm", "--print", "--job-name", ""}, "--job-name: is empty"},
      {{"train", config_, "--slurm", "--print", "--cpus-per-task", "0"}, "--cpus-per-task: must be at least 1"},
      {{"train", config_, "--slurm", "--print", "--max-running", "0"}, "--max-running: must be at least 1"},
      {{"train", config_, "--partition", ""}, "--partition: needs --slurm"},
      {{"export", "runs/tiny-proteus-s1", "--out", ""}, "--out: "},
  };
  for (const auto& [args, message] : cases) {
    const auto r = proteus_in(tmp_, args);
    EXPECT_EQ(r.status, 2) << proteus::test_support::joined(args) << "\n" << r.out;
    EXPECT_NE(r.out.find("error: " + message), std::string::npos) << proteus::test_support::joined(args) << "\n"
                                                                  << r.out;
  }
  EXPECT_FALSE(fs::exists(tmp_ / "runs/tiny-baseline-s1")) << "a run was trained";
  EXPECT_FALSE(fs::exists(tmp_ / "runs/jobs")) << "a job folder was written";
  EXPECT_FALSE(fs::exists(run_ / "figures")) << "figures were drawn into the run's folder";
}

}  // namespace
