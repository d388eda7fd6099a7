// Issue 34: every walk of a runs or jobs folder (`proteus jobs`, `groups`, `export --evals`,
// `eval`, `train --resume`) survives a symlink loop or a path it cannot read: it names the path
// and goes on with the rest, and never aborts on an uncaught filesystem_error.
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <string>
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

// An abort (ended by any signal) or an uncaught exception's text.
void expect_no_crash(const proteus::test_support::CommandResult& r, const std::string& what) {
  EXPECT_EQ(r.signal, 0) << what << ": ended by signal " << r.signal << "\n" << r.out;
  EXPECT_EQ(r.out.find("terminate called"), std::string::npos) << what << "\n" << r.out;
}

// A trained runs folder with a job beside it, then a symlink loop (a link to itself) in each folder
// a command walks: runs/, runs/jobs/, a run's evals/.
class FolderWalks : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto config = proteus::test_support::write_tiny_experiment(tmp_);
    ASSERT_EQ(proteus_in(tmp_, {"train", config}).status, 0);
    ASSERT_EQ(proteus_in(tmp_, {"train", config, "--slurm", "--print"}).status, 0);
    ASSERT_EQ(proteus_in(tmp_, {"eval", "runs/tiny-proteus-s1", "--set", "model.mixer.E=1", "--as", "e1"}).status, 0);
    for (const char* loop : {"runs/loop", "runs/jobs/loop", "runs/tiny-proteus-s1/evals/loop"})
      fs::create_symlink(fs::path(loop).filename(), tmp_ / loop);
  }
  TempDir tmp_ = TempDir::plain();  // --slurm refuses a runs folder with a space
};

// The crash check itself: an abort is seen whether the shell execs the command (bash, dash) or
// reports its signal as 128 + 6, and a clean exit is not taken for one.
TEST(CrashCheck, SeesAnAbortHoweverTheShellPassesItOn) {
  using proteus::test_support::run_shell;
  EXPECT_EQ(run_shell("kill -ABRT $$").signal, SIGABRT);
  EXPECT_EQ(run_shell("sh -c 'kill -ABRT $$'; exit $?").signal, SIGABRT);
  EXPECT_EQ(run_shell("cd / && sh -c 'kill -ABRT $$'").signal, SIGABRT);
  const auto clean = run_shell("exit 2");
  EXPECT_EQ(clean.signal, 0);
  EXPECT_EQ(clean.status, 2);
}

TEST_F(FolderWalks, JobsNamesTheLoopAndShowsTheJob) {
  const auto r = proteus_in(tmp_, {"jobs", "runs"});
  expect_no_crash(r, "jobs");
  EXPECT_EQ(r.status, 1) << "jobs exits 1 when a path could not be read, after showing the rest\n" << r.out;
  EXPECT_NE(r.out.find("runs/jobs/loop: cannot read it (Too many levels of symbolic links); skipped"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("job tiny ("), std::string::npos) << "the readable job is still shown\n" << r.out;
}

TEST_F(FolderWalks, GroupsNamesTheLoopAndWritesTheGroups) {
  const auto r = proteus_in(tmp_, {"groups", "runs"});
  expect_no_crash(r, "groups");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("runs/loop: cannot read it"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("runs/jobs/loop: cannot read it"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2 seed groups"), std::string::npos) << r.out;
}

TEST_F(FolderWalks, ExportWithEvalsNamesTheLoopAndDraws) {
  const auto r = proteus_in(tmp_, {"export", "runs/tiny-proteus-s1", "--evals", "--formats", "csv", "--out", "figs"});
  expect_no_crash(r, "export --evals");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("evals/loop: cannot read it"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::exists(tmp_ / "figs/per_position.csv")) << r.out;
}

TEST_F(FolderWalks, ALoopOrAnOverlongPathGivenAsARunIsBadInput) {
  const std::string long_path = "runs/" + std::string(5000, 'x');
  for (const std::string& path : {std::string("runs/loop"), long_path}) {
    for (const std::vector<std::string>& command : std::vector<std::vector<std::string>>{
             {"eval", path}, {"export", path}, {"train", "--resume", path}, {"groups", path}, {"jobs", path}}) {
      const auto r = proteus_in(tmp_, command);
      const std::string shown = proteus::test_support::joined(command).substr(0, 60);
      expect_no_crash(r, shown);
      EXPECT_EQ(r.status, 2) << shown << "\n" << r.out.substr(0, 300);
      EXPECT_LT(r.out.size(), 400u) << "the path is cut, not echoed whole\n" << r.out.substr(0, 300);
    }
  }
}

}  // namespace
