// The runs browser lists the Slurm jobs of its runs folder (issue 26): each job's runs with the
// states `proteus jobs` tells from the run folders and the tasks' records.
#include <gtest/gtest.h>

#include "app/gui/state/runs_browser.hpp"
#include "core/cluster/job_folder.hpp"
#include "core/cluster/job_state.hpp"
#include "core/config/config_json.hpp"
#include "core/config/experiment.hpp"
#include "core/runs/run_dir.hpp"
#include "tests/support/temp_dir.hpp"

namespace {

using namespace proteus;

// A job of 2 seeds of a tiny model written under tmp/runs (nothing trained).
cluster::JobPlan write_tiny_job(const test_support::TempDir& tmp) {
  const auto experiment = config::Experiment::from_json(nlohmann::json::parse(R"({
    "name": "tiny", "runs_dir": "runs",
    "model": {"d_model": 16, "layers": 1, "mixer": {"heads": 1, "d_head": 4, "E": 2}},
    "data": {"seq_len": 16, "batch": 2}, "train": {"steps": 4}, "seeds": [1, 2]
  })"));
  auto plan = cluster::plan_job(experiment.runs(), experiment, "", {}, "/bin/proteus", tmp.path(),
                                "proteus train tiny.json --slurm");
  cluster::write_job_folder(plan);
  return plan;
}

TEST(RunsBrowserJobs, ShowsEachJobsRunsWithTheirStates) {
  test_support::TempDir tmp;
  const auto plan = write_tiny_job(tmp);
  {
    auto w = runs::RunWriter::create(plan.runs_dir, plan.runs[0].name, config::to_json(plan.runs[0]));
    w.set_status(runs::RunState::failed, "non-finite loss at step 3", 3);
  }
  gui::RunsBrowser browser;
  browser.rescan(plan.runs_dir);
  ASSERT_EQ(browser.jobs().size(), 1u);
  const auto& job = browser.jobs().front();
  EXPECT_EQ(job.name, "tiny");
  EXPECT_TRUE(job.error.empty()) << job.error;
  ASSERT_EQ(job.runs.size(), 2u);
  EXPECT_EQ(job.runs[0].name, "tiny-s1");
  EXPECT_EQ(job.runs[0].state, cluster::JobRunState::failed);
  EXPECT_EQ(job.runs[0].reason, "non-finite loss at step 3");
  EXPECT_EQ(job.runs[1].state, cluster::JobRunState::queued);
  EXPECT_EQ(browser.entries().size(), 1u) << "the job folder is not a run";

  browser.rescan(tmp / "elsewhere");
  EXPECT_TRUE(browser.jobs().empty());
}

// Issue 34: a symlink loop in the runs folder, in jobs/ and in a job's task folder is named by the
// browser (unreadable()) and the rest is still listed; nothing throws.
TEST(RunsBrowserJobs, ALoopAnywhereItWalksIsNamedAndTheRestListed) {
  test_support::TempDir tmp;
  const auto plan = write_tiny_job(tmp);
  { runs::RunWriter::create(plan.runs_dir, plan.runs[0].name, config::to_json(plan.runs[0])); }
  std::filesystem::create_symlink("loop", plan.runs_dir / "loop");
  std::filesystem::create_symlink("loop", plan.runs_dir / "jobs/loop");
  std::filesystem::create_symlink("1", plan.job_dir() / "tasks/1");  // task 1's folder loops
  gui::RunsBrowser browser;
  ASSERT_NO_THROW(browser.rescan(plan.runs_dir));
  ASSERT_EQ(browser.unreadable().size(), 2u);
  EXPECT_NE(browser.unreadable()[0].find("runs/loop: cannot read it"), std::string::npos) << browser.unreadable()[0];
  EXPECT_NE(browser.unreadable()[1].find("jobs/loop: cannot read it"), std::string::npos) << browser.unreadable()[1];
  ASSERT_EQ(browser.entries().size(), 1u);
  EXPECT_EQ(browser.entries()[0].name, "tiny-s1");
  ASSERT_EQ(browser.jobs().size(), 1u);
  ASSERT_EQ(browser.jobs()[0].runs.size(), 2u);
  EXPECT_EQ(browser.jobs()[0].runs[1].state, cluster::JobRunState::failed);
  EXPECT_NE(browser.jobs()[0].runs[1].reason.find("cannot read it"), std::string::npos) << browser.jobs()[0].runs[1].reason;
}

}  // namespace
