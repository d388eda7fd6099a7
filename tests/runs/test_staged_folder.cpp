// StagedFolder (issue 21): a folder appears whole or not at all. Contents go into a hidden, locked
// staging folder renamed into place at the end; one never committed is removed; the rename never
// replaces what is there; a partial left by a killed process is removed by the next maker.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/runs/run_dir.hpp"
#include "core/runs/run_lock.hpp"
#include "core/runs/staged_folder.hpp"
#include "tests/support/temp_dir.hpp"

namespace {

using namespace proteus::runs;
namespace fs = std::filesystem;

std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(StagedFolder, WhatIsNeverCommittedLeavesNothing) {
  proteus::test_support::TempDir tmp;
  try {
    StagedFolder staged(tmp.path(), "summary");
    EXPECT_TRUE(is_staging_name(staged.path().filename().string())) << staged.path();
    EXPECT_TRUE(RunLock::held(staged.path())) << "a staging folder is locked while it is made";
    std::ofstream(staged.path() / "half.csv") << "a,b\n";
    throw std::runtime_error("bad input found late");
  } catch (const std::runtime_error&) {
  }
  EXPECT_TRUE(names_in(tmp.path()).empty()) << "a failed maker left something behind";
}

TEST(StagedFolder, CommitAppearsWholeAndNeverReplaces) {
  proteus::test_support::TempDir tmp;
  fs::create_directories(tmp / "taken");
  std::ofstream(tmp / "taken" / "mine.txt") << "keep";
  StagedFolder staged(tmp.path(), "taken");
  std::ofstream(staged.path() / "a.txt") << "a";
  EXPECT_FALSE(staged.commit_as("taken")) << "an existing folder was replaced";
  EXPECT_EQ(names_in(tmp / "taken"), std::vector<std::string>{"mine.txt"});
  ASSERT_TRUE(staged.commit_as("free"));
  EXPECT_EQ(staged.path(), tmp / "free");
  EXPECT_EQ(names_in(tmp / "free"), std::vector<std::string>{"a.txt"});
  EXPECT_TRUE(RunLock::held(tmp / "free")) << "the lock goes with the folder";
  EXPECT_EQ(names_in(tmp.path()), (std::vector<std::string>{"free", "taken"})) << "no staging folder left";
}

TEST(StagedFolder, CommitReplacingSwapsTheWholeFolder) {
  proteus::test_support::TempDir tmp;
  fs::create_directories(tmp / "group");
  std::ofstream(tmp / "group" / "stale_seed_9.csv") << "old";
  {
    StagedFolder staged(tmp.path(), "group");
    std::ofstream(staged.path() / "group.json") << "{}";
    staged.commit_replacing("group");
  }
  EXPECT_EQ(names_in(tmp / "group"), std::vector<std::string>{"group.json"}) << "an old file survived the swap";
  EXPECT_EQ(names_in(tmp.path()), std::vector<std::string>{"group"});
}

TEST(StagedFolder, APartialLeftByAKillIsRemovedByTheNextMaker) {
  proteus::test_support::TempDir tmp;
  const fs::path stale = tmp / ".run.partial-999999-0";
  const fs::path live = tmp / ".run.partial-999999-1";
  fs::create_directories(stale);
  fs::create_directories(live);
  const auto old = fs::file_time_type::clock::now() - std::chrono::minutes(5);
  fs::last_write_time(stale, old);
  fs::last_write_time(live, old);
  RunLock held = RunLock::acquire(live);  // its maker is still at work
  { StagedFolder next(tmp.path(), "run"); }
  EXPECT_FALSE(fs::exists(stale)) << "an unlocked partial older than a minute is a kill's leftover";
  EXPECT_TRUE(fs::exists(live)) << "a partial whose maker holds its lock was removed";
}

TEST(StagedFolder, ANewRunAppearsWithItsConfigAndStatusAndRunsNeverListStaging) {
  proteus::test_support::TempDir tmp;
  fs::create_directories(tmp / "runs" / ".tiny.partial-1-0");
  std::ofstream(tmp / "runs" / ".tiny.partial-1-0" / kConfigFile) << "{}";
  {
    RunWriter w = RunWriter::create(tmp / "runs", "tiny", nlohmann::json::object());
    EXPECT_EQ(w.dir(), tmp / "runs" / "tiny");
    EXPECT_EQ(RunReader::open(w.dir()).status().state, RunState::running);
    EXPECT_TRUE(RunLock::held(w.dir()));
  }
  EXPECT_EQ(list_runs(tmp / "runs"), std::vector<std::string>{"tiny"});
  const auto made = RunWriter::create_exactly(tmp / "runs", "tiny", nlohmann::json::object(), "evaluating", 4);
  EXPECT_FALSE(made.has_value()) << "create_exactly took a name that exists";
  const auto eval = RunWriter::create_exactly(tmp / "runs", "eval", nlohmann::json::object(), "evaluating", 4,
                                              [](const fs::path& d) { std::ofstream(d / "delta.json") << "{}"; });
  ASSERT_TRUE(eval.has_value());
  EXPECT_TRUE(fs::exists(tmp / "runs" / "eval" / "delta.json"));
  EXPECT_EQ(RunReader::open(eval->dir()).status().step, 4);
  EXPECT_EQ(RunReader::open(eval->dir()).status().message, "evaluating");
}

}  // namespace
