// One writer per run directory (issue 10, class 4): a writer holds the run's lock from create,
// resume or reopen to its end; a second is refused and touches nothing; a reader tells a live run
// from one whose writer died. Plus the run files' bounded reads and the typed metrics record.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "core/common/input_error.hpp"
#include "core/runs/metrics_record.hpp"
#include "core/runs/run_dir.hpp"
#include "core/runs/run_lock.hpp"
#include "tests/support/temp_dir.hpp"

namespace {

using nlohmann::json;
using proteus::InputError;
using namespace proteus::runs;
namespace fs = std::filesystem;

class RunLockTest : public ::testing::Test {
 protected:
  static std::string read(const fs::path& file) { return proteus::test_support::TempDir::read(file); }

  proteus::test_support::TempDir tmp_;
  const fs::path dir_ = tmp_ / "runs";  // made by the first RunWriter::create
};

TEST_F(RunLockTest, AWriterHoldsItsRunAndASecondIsRefused) {
  fs::path run;
  {
    RunWriter w = RunWriter::create(dir_, "held", json::object());
    run = w.dir();
    EXPECT_TRUE(RunLock::held(run));
    EXPECT_TRUE(RunReader::open(run).writer_active());
    w.set_status(RunState::cancelled, "stopped", 3);
    const std::string status_before = read(run / kStatusFile);
    // Two resumes of one run both succeeded and interleaved their steps: now the second is refused.
    try {
      RunWriter::resume(run);
      FAIL() << "a second writer was let in";
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), run.generic_string());
      EXPECT_NE(e.reason().find("another writer holds this run"), std::string::npos) << e.what();
    }
    EXPECT_THROW(RunWriter::reopen(run), InputError);
    EXPECT_THROW(RunLock::check_free(run), InputError);
    EXPECT_EQ(read(run / kStatusFile), status_before) << "a refused writer touched the run";
  }
  EXPECT_FALSE(RunLock::held(run));
  EXPECT_NO_THROW(RunLock::check_free(run));
  RunWriter again = RunWriter::resume(run);
  EXPECT_EQ(RunReader::open(run).status().state, RunState::running);
}

// The bug this names: a moved-from writer whose destructor still closed the lock (or the metrics
// file) would release the run under its new owner. So the checks come after the moved-from one dies.
TEST_F(RunLockTest, AMovedWriterKeepsTheLock) {
  std::optional<RunWriter> constructed_from(RunWriter::create(dir_, "moved", json::object()));
  RunWriter b = std::move(*constructed_from);
  constructed_from.reset();
  EXPECT_TRUE(RunLock::held(b.dir())) << "destroying the moved-from writer released the lock";
  EXPECT_THROW(RunWriter::resume(b.dir()), InputError) << "a second writer was let in";
  EXPECT_NO_THROW(b.append_metrics(MetricsRecord{}));

  std::optional<RunWriter> assigned_from(RunWriter::create(dir_, "assigned", json::object()));
  b = std::move(*assigned_from);  // move assignment: b gives up "moved" and takes "assigned"
  assigned_from.reset();
  EXPECT_TRUE(RunLock::held(b.dir())) << "destroying the moved-from writer released the lock";
  EXPECT_FALSE(RunLock::held(dir_ / "moved")) << "the writer it replaced still holds its run";
  EXPECT_NO_THROW(b.append_metrics(MetricsRecord{}));
  b.set_status(RunState::finished, "", 1);
  EXPECT_EQ(RunReader::open(b.dir()).status().state, RunState::finished);
  EXPECT_EQ(RunReader::open(b.dir()).metrics().size(), 1u);
}

TEST_F(RunLockTest, AKilledWriterReleasesTheLockAndItsRunReadsAsInterrupted) {
  fs::create_directories(dir_);
  const fs::path run = dir_ / "killed";
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The writer's process, which dies without a word while its run says "running".
    RunWriter w = RunWriter::create(dir_, "killed", json::object());
    w.set_status(RunState::running, "training", 7);
    std::ofstream(dir_ / "ready") << "1";
    ::pause();
    ::_exit(0);
  }
  while (!fs::exists(dir_ / "ready")) ::usleep(1000);
  const RunReader reader = RunReader::open(run);
  EXPECT_TRUE(reader.writer_active());
  EXPECT_EQ(reader.observed_state(), ObservedState::running);
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_EQ(reader.status().state, RunState::running) << "the status file still says so";
  EXPECT_FALSE(reader.writer_active());
  EXPECT_EQ(reader.observed_state(), ObservedState::interrupted);
  EXPECT_NO_THROW(RunWriter::resume(run));  // nothing stale to clean up
}

TEST_F(RunLockTest, ObservedStateIsTheStatusUnlessItsWriterIsGone) {
  RunStatus s;
  s.state = RunState::running;
  EXPECT_EQ(observed_state(s, true), ObservedState::running);
  EXPECT_EQ(observed_state(s, false), ObservedState::interrupted);
  for (RunState st : {RunState::finished, RunState::cancelled, RunState::failed}) {
    s.state = st;
    EXPECT_STREQ(observed_state_name(observed_state(s, false)), state_name(st));
    EXPECT_STREQ(observed_state_name(observed_state(s, true)), state_name(st));
  }
  // Stopped one way or another, not finished: what a resume continues.
  EXPECT_TRUE(resumable_state(ObservedState::interrupted));
  EXPECT_TRUE(resumable_state(ObservedState::cancelled));
  EXPECT_TRUE(resumable_state(ObservedState::failed));
  EXPECT_FALSE(resumable_state(ObservedState::running));
  EXPECT_FALSE(resumable_state(ObservedState::finished));
}

TEST_F(RunLockTest, ResumeDropsTheStepsAfterTheCheckpoint) {
  fs::path run;
  {
    RunWriter w = RunWriter::create(dir_, "trim", json::object());
    run = w.dir();
    for (int step = 1; step <= 5; ++step) {
      MetricsRecord r;
      r.step = step;
      r.loss = 6.0 - step;
      w.append_metrics(r);
    }
  }
  std::ofstream(run / kMetricsFile, std::ios::app) << "{\"step\": 6, \"lo";  // torn by a crash
  RunWriter w = RunWriter::resume(run, 3);
  EXPECT_EQ(w.last_step(), 3);
  EXPECT_EQ(RunReader::open(run).status().step, 3);
  MetricsRecord r;
  r.step = 4;
  r.loss = 0.5;
  w.append_metrics(r);
  std::vector<int64_t> steps;
  for (const auto& m : RunReader::open(run).metric_records()) steps.push_back(m.step);
  EXPECT_EQ(steps, (std::vector<int64_t>{1, 2, 3, 4}));
}

TEST_F(RunLockTest, AStatusFileThatNeverEndsIsRefused) {
  RunWriter w = RunWriter::create(dir_, "zero", json::object());
  fs::remove(w.dir() / kStatusFile);
  fs::create_symlink("/dev/zero", w.dir() / kStatusFile);
  try {
    RunReader::open(w.dir()).status();
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(e.reason().find("larger than the limit"), std::string::npos) << e.what();
  }
  // And the writer refuses to replace the link with a status of its own.
  EXPECT_THROW(w.set_status(RunState::failed, "x", 0), std::runtime_error);
  EXPECT_TRUE(fs::is_symlink(w.dir() / kStatusFile));
}

TEST_F(RunLockTest, StatusMessagesAreCut) {
  RunWriter w = RunWriter::create(dir_, "long", json::object());
  w.set_status(RunState::failed, std::string(1 << 20, 'm'), 1);
  const RunStatus s = RunReader::open(w.dir()).status();
  EXPECT_LE(s.message.size(), kStatusMessageLimit + 3);
  EXPECT_LT(fs::file_size(w.dir() / kStatusFile), 4096u) << "must fit one block, for the full-disk fallback";
}

TEST(MetricsRecord, RoundTripsAndReadsWhatItCan) {
  MetricsRecord r;
  r.step = 12;
  r.loss = 3.5;
  r.lr = 0.001;
  r.grad_norm = 0.25;
  r.tokens_per_s = 1000;
  r.elapsed_s = 2.5;
  const json j = to_json(r);
  EXPECT_FALSE(j.contains("val_bpb")) << "absent fields are left out";
  const auto back = metrics_record_from_json(j);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->step, 12);
  EXPECT_EQ(back->loss, 3.5);
  EXPECT_EQ(back->elapsed_s, 2.5);
  EXPECT_TRUE(std::isnan(back->val_bpb));

  EXPECT_FALSE(metrics_record_from_json(json{{"loss", 1.0}})) << "no step";
  EXPECT_FALSE(metrics_record_from_json(json{{"step", 1.5}}));
  EXPECT_FALSE(metrics_record_from_json(json::array({1})));
  const auto partial = metrics_record_from_json(json{{"step", 3}, {"loss", "bad"}, {"val_bpb", 2.0}});
  ASSERT_TRUE(partial);
  EXPECT_TRUE(std::isnan(partial->loss)) << "one bad value hides only itself";
  EXPECT_EQ(partial->val_bpb, 2.0);
}

}  // namespace
