// The runs browser tells the truth (issue 10, classes 3 and 4): a run whose status says running
// while its writer is gone is shown "interrupted" and can be resumed; a run a writer holds (another
// process, or this window's own job) is not offered for resuming, and resuming it is refused.
#include <gtest/gtest.h>

#include <filesystem>

#include "app/gui/state/runs_browser.hpp"
#include "app/gui/state/training_session.hpp"
#include "core/common/input_error.hpp"
#include "core/config/config_json.hpp"
#include "core/runs/run_dir.hpp"
#include "tests/train/tiny_run.hpp"

namespace {

using namespace proteus;
namespace fs = std::filesystem;

nlohmann::json config(const fs::path& dir) { return config::to_json(test_support::tiny_run(dir)); }

const gui::RunEntry& entry(const gui::RunsBrowser& b, const std::string& name) {
  for (const auto& e : b.entries())
    if (e.name == name) return e;
  throw std::runtime_error("no entry " + name);
}

TEST(RunsBrowserTruth, RunningWithoutAWriterIsInterruptedAndResumable) {
  const auto dir = test_support::fresh_dir("browser-truth");
  {
    // A writer that died: its status still says running (the lock went with it).
    auto w = runs::RunWriter::create(dir, "died", config(dir));
    w.set_status(runs::RunState::running, "training", 4);
  }
  auto live = runs::RunWriter::create(dir, "live", config(dir));
  live.set_status(runs::RunState::running, "training", 2);
  {
    auto w = runs::RunWriter::create(dir, "stopped", config(dir));
    w.set_status(runs::RunState::cancelled, "cancelled at step 3", 3);
  }
  auto busy = runs::RunWriter::create(dir, "busy", config(dir));
  busy.set_status(runs::RunState::cancelled, "cancelled, now being evaluated", 3);

  gui::RunsBrowser b;
  b.rescan(dir);
  ASSERT_EQ(b.entries().size(), 4u);
  EXPECT_EQ(entry(b, "died").state, "interrupted");
  EXPECT_FALSE(entry(b, "died").writer_active);
  EXPECT_TRUE(entry(b, "died").resumable());
  EXPECT_EQ(entry(b, "live").state, "running");
  EXPECT_TRUE(entry(b, "live").writer_active);
  EXPECT_FALSE(entry(b, "live").resumable());
  EXPECT_EQ(entry(b, "stopped").state, "cancelled");
  EXPECT_TRUE(entry(b, "stopped").resumable());
  EXPECT_EQ(entry(b, "busy").state, "cancelled");
  EXPECT_FALSE(entry(b, "busy").resumable()) << "another writer holds it";
}

TEST(RunsBrowserTruth, TheWindowRefusesToResumeARunAnotherWriterHolds) {
  const auto dir = test_support::fresh_dir("browser-held");
  auto held = runs::RunWriter::create(dir, "held", config(dir));
  held.set_status(runs::RunState::cancelled, "stopped", 1);
  gui::TrainingSession s;
  EXPECT_THROW(s.resume_run(held.dir().string()), InputError);
  EXPECT_EQ(runs::RunReader::open(held.dir()).status().state, runs::RunState::cancelled);
}

}  // namespace
