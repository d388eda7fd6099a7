// The cluster room without Slurm: a job's plan and scripts, its folder (written whole, reused for the
// same runs, refused for others), submission through a stand-in sbatch, squeue's output, what a task
// decides from its run folder, how each run's state is told, and the merge's summary.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/cluster/job_folder.hpp"
#include "core/cluster/job_state.hpp"
#include "core/cluster/job_task.hpp"
#include "core/cluster/slurm_commands.hpp"
#include "core/common/json_read.hpp"
#include "core/config/config_json.hpp"
#include "core/config/experiment.hpp"
#include "core/runs/run_dir.hpp"
#include "core/train/checkpoint.hpp"
#include "tests/support/input_error_field.hpp"
#include "tests/support/temp_dir.hpp"

namespace {

namespace fs = std::filesystem;
using namespace proteus;
using proteus::test_support::field_of;
using proteus::test_support::TempDir;

// 2 variants x 2 seeds of a tiny model: tiny-baseline-s1, tiny-baseline-s2, tiny-proteus-s1, tiny-proteus-s2.
config::Experiment tiny_experiment(const std::string& runs_dir) {
  return config::Experiment::from_json(nlohmann::json::parse(R"({
    "name": "tiny", "runs_dir": ")" + runs_dir + R"(",
    "model": {"d_model": 16, "layers": 1, "mixer": {"heads": 1, "d_head": 4, "E": 2}},
    "data": {"seq_len": 16, "batch": 2},
    "train": {"steps": 4},
    "variants": [{"name": "baseline", "set": {"model.mixer.E": 1}}, {"name": "proteus"}],
    "seeds": [1, 2]
  })"));
}

cluster::SlurmOptions full_options() {
  cluster::SlurmOptions o;
  o.partition = "gpu";
  o.time = "1:00:00";
  o.account = "lab";
  o.cpus_per_task = 4;
  o.gpus_per_task = 1;
  o.max_running = 2;
  o.sbatch_args = {"--qos=short", "--mem=8G"};
  return o;
}

cluster::JobPlan tiny_plan(const TempDir& tmp, const cluster::SlurmOptions& o = {}, const std::string& name = "") {
  const auto experiment = tiny_experiment("runs");
  return cluster::plan_job(experiment.runs(), experiment, name, o, "/opt/proteus/bin/proteus",
                           tmp.path(), "proteus train tiny.json --slurm");
}

std::string read(const fs::path& p) { return TempDir::read(p); }

TEST(JobPlan, ExpandsTheRunsWithAbsolutePathsAndThreadsFromTheCpusPerTask) {
  TempDir tmp;
  const auto plan = tiny_plan(tmp, full_options());
  EXPECT_EQ(plan.name, "tiny");
  ASSERT_EQ(plan.runs.size(), 4u);
  EXPECT_EQ(plan.runs[0].name, "tiny-baseline-s1");
  EXPECT_EQ(plan.runs[3].name, "tiny-proteus-s2");
  EXPECT_EQ(plan.runs[3].group, "tiny-proteus");
  EXPECT_EQ(plan.runs_dir, tmp.path() / "runs");
  EXPECT_EQ(plan.job_dir(), tmp.path() / "runs" / "jobs" / "tiny");
  for (const auto& r : plan.runs) {
    EXPECT_EQ(r.runs_dir, (tmp.path() / "runs").string());
    EXPECT_EQ(r.threads, 4) << "a run with threads 0 uses the task's CPUs, not the node's";
  }
  EXPECT_EQ(tiny_plan(tmp).runs[0].threads, 0) << "without --cpus-per-task the config's threads stay";
  EXPECT_EQ(tiny_plan(tmp, {}, "other").name, "other");
}

TEST(JobPlan, ArrayScriptHasOneTaskPerRunAndEveryOption) {
  TempDir tmp;
  const auto plan = tiny_plan(tmp, full_options());
  const std::string s = cluster::array_script(plan);
  const std::string job = (tmp.path() / "runs/jobs/tiny").string();
  EXPECT_TRUE(s.starts_with("#!/bin/bash\n")) << s;
  for (const std::string& line : std::vector<std::string>{"#SBATCH --array=0-3%2\n", "#SBATCH --job-name=proteus-tiny\n", "#SBATCH --partition=gpu\n",
        "#SBATCH --time=1:00:00\n", "#SBATCH --account=lab\n", "#SBATCH --cpus-per-task=4\n",
        "#SBATCH --gpus-per-task=1\n", "#SBATCH --qos=short\n", "#SBATCH --mem=8G\n",
        "#SBATCH --chdir=" + tmp.path().string() + "\n", "#SBATCH --output=" + job + "/logs/task-%A_%a.out\n",
        "exec '/opt/proteus/bin/proteus' job-task '" + job + "' --index \"$SLURM_ARRAY_TASK_ID\"\n"})
    EXPECT_NE(s.find(line), std::string::npos) << "missing: " << line << "in:\n" << s;
  // Every #SBATCH line comes before the first command, or sbatch ignores it.
  EXPECT_LT(s.rfind("#SBATCH"), s.find("exec "));
  EXPECT_EQ(cluster::array_script(tiny_plan(tmp)).find("%2"), std::string::npos) << "no %N without --max-running";
  auto odd = plan;
  odd.command = "proteus train x.json --set 'data.text.path=a\nexec rm -rf /'";
  EXPECT_EQ(cluster::array_script(odd).find("\nexec rm"), std::string::npos) << "the command stays in its comment line";
}

TEST(JobPlan, MergeScriptRunsTheMergeWithoutTheArrayOrTheGpus) {
  TempDir tmp;
  const auto plan = tiny_plan(tmp, full_options());
  const std::string s = cluster::merge_script(plan);
  const std::string job = (tmp.path() / "runs/jobs/tiny").string();
  EXPECT_NE(s.find("exec '/opt/proteus/bin/proteus' job-merge '" + job + "'\n"), std::string::npos) << s;
  EXPECT_NE(s.find("#SBATCH --output=" + job + "/logs/merge-%j.out\n"), std::string::npos) << s;
  EXPECT_NE(s.find("#SBATCH --partition=gpu\n"), std::string::npos) << s;
  EXPECT_EQ(s.find("--array"), std::string::npos) << s;
  EXPECT_EQ(s.find("--gpus-per-task"), std::string::npos) << s;
  EXPECT_EQ(s.find("job-task"), std::string::npos) << s;
}

// The binary is named only on the scripts' exec lines, quoted there, never on an #SBATCH line: it
// may be anywhere (a checkout in "~/mes projets/proteus lab"), while a runs folder with a space,
// which the #SBATCH --output line would split, is refused.
TEST(JobPlan, TheBinaryMayBeInAnyFolder) {
  TempDir tmp;
  const auto e = tiny_experiment("runs");
  const auto plan = cluster::plan_job(e.runs(), e, "", {}, "/home/me/mes projets/é/l'atelier/proteus", tmp.path(), "");
  const std::string job = (tmp.path() / "runs/jobs/tiny").string();
  const std::string quoted = "exec '/home/me/mes projets/é/l'\\''atelier/proteus' ";
  EXPECT_NE(cluster::array_script(plan).find(quoted + "job-task '" + job + "'"), std::string::npos)
      << cluster::array_script(plan);
  EXPECT_NE(cluster::merge_script(plan).find(quoted + "job-merge '" + job + "'"), std::string::npos)
      << cluster::merge_script(plan);
}

TEST(JobPlan, BadInputNamesTheOption) {
  TempDir tmp;
  const auto with = [&](auto edit) {
    auto o = full_options();
    edit(o);
    return field_of([&] { tiny_plan(tmp, o); });
  };
  EXPECT_EQ(with([](auto&) {}), "(no error)");
  EXPECT_EQ(with([](auto& o) { o.time = "forever"; }), "--time");
  EXPECT_EQ(with([](auto& o) { o.time = "2-12:00:00"; }), "(no error)");
  EXPECT_EQ(with([](auto& o) { o.partition = "a b"; }), "--partition");
  EXPECT_EQ(with([](auto& o) { o.account = "lab\n#SBATCH --x"; }), "--account");
  EXPECT_EQ(with([](auto& o) { o.cpus_per_task = -1; }), "--cpus-per-task");
  EXPECT_EQ(with([](auto& o) { o.gpus_per_task = 65; }), "--gpus-per-task");
  EXPECT_EQ(with([](auto& o) { o.max_running = -3; }), "--max-running");
  EXPECT_EQ(with([](auto& o) { o.sbatch_args = {"--qos=short", "qos=short"}; }), "--sbatch-arg[1]");
  EXPECT_EQ(with([](auto& o) { o.sbatch_args = {"--array=0-9"}; }), "--sbatch-arg[0]");
  EXPECT_EQ(with([](auto& o) { o.sbatch_args = {"--mem=1G\nrm -rf /"}; }), "--sbatch-arg[0]");
  EXPECT_EQ(field_of([&] { tiny_plan(tmp, {}, "../up"); }), "--job-name");
  EXPECT_EQ(field_of([&] {
              const auto e = tiny_experiment("my runs");
              cluster::plan_job(e.runs(), e, "", {}, "/bin/proteus", tmp.path(), "");
            }),
            "runs_dir");
  EXPECT_EQ(field_of([&] {
              auto runs = tiny_experiment("runs").runs();
              runs[1].runs_dir = "elsewhere";
              cluster::plan_job(runs, tiny_experiment("runs"), "", {}, "/bin/proteus", tmp.path(), "");
            }),
            "runs_dir");
}

TEST(JobFolder, IsWrittenWholeAndReadsBack) {
  TempDir tmp;
  const auto plan = tiny_plan(tmp, full_options());
  cluster::write_job_folder(plan);
  const fs::path dir = plan.job_dir();
  for (const char* f : {"job.json", "runs.json", "experiment.json", "submissions.json", "array.sbatch", "merge.sbatch"})
    EXPECT_TRUE(fs::is_regular_file(dir / f)) << f;
  EXPECT_TRUE(fs::is_directory(dir / "logs"));
  EXPECT_EQ(read(dir / "array.sbatch"), cluster::array_script(plan));
  const auto job = cluster::read_job(dir);
  EXPECT_EQ(job.name, "tiny");
  ASSERT_EQ(job.runs.size(), 4u);
  EXPECT_EQ(config::to_json(job.runs[2]), config::to_json(plan.runs[2]));
  EXPECT_EQ(job.run_dir(2), tmp.path() / "runs" / "tiny-proteus-s1");
  EXPECT_TRUE(job.submissions.empty());
  EXPECT_EQ(cluster::list_jobs(tmp.path() / "runs"), std::vector<fs::path>{dir});
  // No temporary folder is left beside it.
  size_t entries = 0;
  for (const auto& e : fs::directory_iterator(dir.parent_path())) entries += e.path().filename() != "tiny";
  EXPECT_EQ(entries, 0u);
}

TEST(JobFolder, TheSameRunsReuseItAndOtherRunsAreRefused) {
  TempDir tmp;
  const auto plan = tiny_plan(tmp);
  cluster::write_job_folder(plan);
  cluster::record_submission(plan.job_dir(), {"11", "12", "2026-01-01T00:00:00Z", ""});
  EXPECT_NO_THROW(cluster::write_job_folder(plan));
  EXPECT_EQ(cluster::read_job(plan.job_dir()).submissions.size(), 1u) << "a resubmission keeps the job's history";

  auto more_cores = tiny_plan(tmp);
  more_cores.runs[0].threads = 8;
  EXPECT_NO_THROW(cluster::write_job_folder(more_cores)) << "the same runs on more cores";
  EXPECT_EQ(cluster::read_job(plan.job_dir()).runs[0].threads, 8);

  auto other = tiny_plan(tmp);
  other.runs[0].train.steps = 99;
  const std::string before = read(plan.job_dir() / "runs.json");
  EXPECT_EQ(field_of([&] { cluster::write_job_folder(other); }), "--job-name");
  EXPECT_EQ(read(plan.job_dir() / "runs.json"), before) << "a refused job leaves the folder as it was";
}

// A stand-in sbatch on PATH: logs its arguments, prints ids 101, 102, ... (or fails when told).
class FakeSbatch {
 public:
  explicit FakeSbatch(const TempDir& tmp, bool refuse_dependency = false) : bin_(tmp / "bin") {
    fs::create_directories(bin_);
    log_ = tmp / "sbatch.log";
    const std::string script =
        "#!/bin/sh\necho \"$@\" >> '" + log_.string() + "'\n" +
        (refuse_dependency ? "case \"$*\" in *dependency*) echo 'sbatch: error: Batch job submission failed: "
                             "Invalid dependency' >&2; exit 1;; esac\n"
                           : "") +
        "n=$(wc -l < '" + log_.string() + "')\necho $((100 + n))\n";
    std::ofstream(bin_ / "sbatch") << script;
    fs::permissions(bin_ / "sbatch", fs::perms::owner_all);
    old_path_ = std::getenv("PATH") ? std::getenv("PATH") : "";
    ::setenv("PATH", (bin_.string() + ":" + old_path_).c_str(), 1);
  }
  ~FakeSbatch() { ::setenv("PATH", old_path_.c_str(), 1); }
  std::string log() const { return TempDir::read(log_); }

 private:
  fs::path bin_, log_;
  std::string old_path_;
};

TEST(JobSubmission, SubmitsTheArrayThenTheMergeAfterIt) {
  TempDir tmp;
  const auto plan = tiny_plan(tmp);
  cluster::write_job_folder(plan);
  FakeSbatch sbatch(tmp);
  EXPECT_TRUE(cluster::slurm_available());
  const auto s = cluster::submit_job(plan.job_dir());
  EXPECT_EQ(s.array_job, "101");
  EXPECT_EQ(s.merge_job, "102");
  EXPECT_TRUE(s.error.empty()) << s.error;
  const std::string log = sbatch.log();
  EXPECT_NE(log.find("--parsable " + (plan.job_dir() / "array.sbatch").string() + "\n"), std::string::npos) << log;
  EXPECT_NE(log.find("--parsable --dependency=afterany:101 " + (plan.job_dir() / "merge.sbatch").string()),
            std::string::npos)
      << log;
  const auto job = cluster::read_job(plan.job_dir());
  ASSERT_EQ(job.submissions.size(), 1u);
  EXPECT_EQ(job.submissions[0].array_job, "101");
  EXPECT_EQ(job.submissions[0].merge_job, "102");
}

TEST(JobSubmission, ARefusalIsRecordedWithSbatchsReason) {
  TempDir tmp;
  const auto plan = tiny_plan(tmp);
  cluster::write_job_folder(plan);
  FakeSbatch sbatch(tmp, /*refuse_dependency=*/true);
  const auto s = cluster::submit_job(plan.job_dir());
  EXPECT_EQ(s.array_job, "101");
  EXPECT_TRUE(s.merge_job.empty());
  EXPECT_NE(s.error.find("merge job"), std::string::npos) << s.error;
  EXPECT_NE(s.error.find("Invalid dependency"), std::string::npos) << s.error;
  EXPECT_NE(read(plan.job_dir() / "submissions.json").find("Invalid dependency"), std::string::npos);
}

TEST(SlurmOutput, JobIdsAndQueueLines) {
  EXPECT_EQ(cluster::parse_job_id("4242\n"), "4242");
  EXPECT_EQ(cluster::parse_job_id("4242;cluster-a\n"), "4242");
  EXPECT_EQ(cluster::parse_job_id("sbatch: error: invalid partition\n"), "");
  const std::string squeue = "7_0|7|0|RUNNING|None\n7_1|7|1|PENDING|JobArrayTaskLimit\n8|8|N/A|PENDING|Dependency\n"
                             "9_1|9|1|RUNNING|None\n3_2|3|2|PENDING|Priority\n";
  const auto tasks = cluster::parse_squeue(squeue, {"7", "9"});
  ASSERT_EQ(tasks.size(), 2u) << "the merge (8) and other jobs (3) are no array tasks of ours";
  EXPECT_EQ(tasks.at(0).state, "RUNNING");
  EXPECT_EQ(tasks.at(1).state, "RUNNING") << "the later submission's task wins";
  EXPECT_EQ(cluster::parse_squeue("7_1|7|1|PENDING|JobArrayTaskLimit\n", {"7"}).at(1).reason, "JobArrayTaskLimit");
}

using runs::ObservedState;
using cluster::JobRunState;
using cluster::TaskState;

cluster::RunFacts facts(bool exists, ObservedState run_state, bool evaluated = false) {
  cluster::RunFacts f;
  f.run_exists = exists;
  f.run_state = run_state;
  f.run_message = exists && run_state == ObservedState::failed ? "non-finite loss at step 3" : "";
  f.evaluated = evaluated;
  f.submitted = true;
  return f;
}

TEST(JobRunStates, AreToldFromTheRunFolderTheTaskAndTheQueue) {
  using cluster::classify;
  EXPECT_EQ(classify(facts(true, ObservedState::finished, true)).state, JobRunState::finished);
  const auto failed = classify(facts(true, ObservedState::failed));
  EXPECT_EQ(failed.state, JobRunState::failed);
  EXPECT_EQ(failed.reason, "non-finite loss at step 3");
  EXPECT_EQ(classify(facts(true, ObservedState::running)).state, JobRunState::running);
  EXPECT_EQ(classify(facts(true, ObservedState::interrupted)).state, JobRunState::interrupted);
  EXPECT_EQ(classify(facts(true, ObservedState::cancelled)).state, JobRunState::interrupted);
  EXPECT_EQ(classify(facts(true, ObservedState::finished, false)).state, JobRunState::interrupted) << "trained, not evaluated";

  auto evaluating = facts(true, ObservedState::finished, false);
  evaluating.task_active = true;
  EXPECT_EQ(classify(evaluating).state, JobRunState::running);

  auto requeued = facts(true, ObservedState::interrupted);
  requeued.queue_known = true;
  requeued.queue_state = "PENDING";
  EXPECT_EQ(classify(requeued).state, JobRunState::queued);

  auto eval_failed = facts(true, ObservedState::finished, false);
  eval_failed.task = cluster::TaskRecord{TaskState::failed, "evaluation failed: out of memory", "", "", 0, ""};
  EXPECT_EQ(classify(eval_failed).state, JobRunState::failed);
  EXPECT_EQ(classify(eval_failed).reason, "evaluation failed: out of memory");

  // No run folder yet.
  auto pending = facts(false, ObservedState::failed);
  EXPECT_EQ(classify(pending).state, JobRunState::queued) << "squeue unknown: submitted and waiting";
  pending.queue_known = true;
  pending.queue_state = "PENDING";
  pending.queue_reason = "Resources";
  EXPECT_EQ(classify(pending).state, JobRunState::queued);
  EXPECT_EQ(classify(pending).reason, "Resources");
  auto gone = facts(false, ObservedState::failed);
  gone.queue_known = true;
  EXPECT_EQ(classify(gone).state, JobRunState::failed) << "left the queue without making its run";
  auto never = facts(false, ObservedState::failed);
  never.submitted = false;
  EXPECT_EQ(classify(never).state, JobRunState::queued);
  EXPECT_EQ(classify(never).reason, "not submitted");
  auto corpus_gone = facts(false, ObservedState::failed);
  corpus_gone.task = cluster::TaskRecord{TaskState::failed, "data.text.path: no such file", "", "", 0, ""};
  EXPECT_EQ(classify(corpus_gone).state, JobRunState::failed);
  EXPECT_EQ(classify(corpus_gone).reason, "data.text.path: no such file");
}

TEST(TaskRecord, ReadsBackItsStateAndNamesOneItDoesNotKnow) {
  TempDir tmp;
  const fs::path job = tmp / "job";
  for (TaskState s : {TaskState::running, TaskState::finished, TaskState::failed, TaskState::cancelled,
                      TaskState::skipped, TaskState::held}) {
    EXPECT_EQ(cluster::parse_task_state(cluster::task_state_name(s)), s);
    cluster::write_task_record(job, 0, {s, "why", "12", "node1", 7, ""});
    const auto back = cluster::read_task_record(job, 0);
    ASSERT_TRUE(back);
    EXPECT_EQ(back->state, s) << cluster::task_state_name(s);
    EXPECT_EQ(back->message, "why");
  }
  // A record another version (or a hand) wrote: failed, naming the state it has.
  fs::create_directories(cluster::task_dir(job, 1));
  std::ofstream(cluster::task_dir(job, 1) / "task.json") << R"({"state": "paused", "message": "x"})";
  const auto odd = cluster::read_task_record(job, 1);
  ASSERT_TRUE(odd);
  EXPECT_EQ(odd->state, TaskState::failed);
  EXPECT_NE(odd->message.find("\"paused\""), std::string::npos) << odd->message;
  auto f = facts(false, ObservedState::failed);
  f.task = odd;
  EXPECT_EQ(cluster::classify(f).state, JobRunState::failed) << "its run shows why";
}

// Run folder `index` of the job as a writer left it: status, and optionally a checkpoint and results.
void make_run(const cluster::JobRecord& job, size_t index, runs::RunState state, bool checkpoint, bool evaluated) {
  auto w = runs::RunWriter::create(job.runs[index].runs_dir, job.runs[index].name, config::to_json(job.runs[index]));
  w.set_status(state, state == runs::RunState::failed ? "non-finite loss at step 2" : "", 2);
  if (checkpoint) std::ofstream(w.path(train::kCheckpointFile)) << "weights";
  if (evaluated) w.write_json("per_position.json", {{"seq_len", 16}});
}

TEST(TaskDecision, FollowsTheRunFolder) {
  TempDir tmp;
  const auto plan = tiny_plan(tmp);
  cluster::write_job_folder(plan);
  const auto job = cluster::read_job(plan.job_dir());
  using cluster::TaskAction;
  EXPECT_EQ(cluster::decide_task(job, 0).action, TaskAction::train);
  make_run(job, 0, runs::RunState::finished, true, true);
  EXPECT_EQ(cluster::decide_task(job, 0).action, TaskAction::skip);
  make_run(job, 1, runs::RunState::finished, true, false);
  EXPECT_EQ(cluster::decide_task(job, 1).action, TaskAction::evaluate);
  make_run(job, 2, runs::RunState::running, true, false);  // its writer is gone: interrupted
  EXPECT_EQ(cluster::decide_task(job, 2).action, TaskAction::resume);
  make_run(job, 3, runs::RunState::running, false, false);
  EXPECT_EQ(cluster::decide_task(job, 3).action, TaskAction::restart) << "nothing to resume from";
  {
    auto held = runs::RunWriter::reopen(job.run_dir(3));
    EXPECT_EQ(cluster::decide_task(job, 3).action, TaskAction::leave);
  }
  // The same run on more cores is still this task's run; another config is never taken over.
  auto more_cores = job;
  more_cores.runs[0].threads = 8;
  EXPECT_EQ(cluster::decide_task(more_cores, 0).action, TaskAction::skip);
  auto other = job;
  other.runs[3].train.steps = 77;
  EXPECT_EQ(field_of([&] { cluster::decide_task(other, 3); }), job.run_dir(3).string());
}

TEST(JobTask, IsLeftAloneWhenAnotherTaskHoldsItAndRefusesABadIndex) {
  TempDir tmp;
  const auto plan = tiny_plan(tmp);
  cluster::write_job_folder(plan);
  std::ostringstream log;
  const auto no_watch = [](engine::ExperimentHandle&) { return std::shared_ptr<const engine::Snapshot>(); };
  EXPECT_EQ(field_of([&] { cluster::run_task(plan.job_dir(), 4, no_watch, log); }), "--index");
  EXPECT_EQ(field_of([&] { cluster::run_task(plan.job_dir(), -1, no_watch, log); }), "--index");
  fs::create_directories(cluster::task_dir(plan.job_dir(), 1));
  auto other_task = runs::RunLock::acquire(cluster::task_dir(plan.job_dir(), 1));
  const auto out = cluster::run_task(plan.job_dir(), 1, no_watch, log);
  EXPECT_EQ(out.record.state, cluster::TaskState::held);
  EXPECT_EQ(out.exit_status, 0);
  EXPECT_FALSE(cluster::read_task_record(plan.job_dir(), 1)) << "the holder's record is its own";
  EXPECT_FALSE(fs::exists(plan.runs_dir / plan.runs[1].name)) << "nothing was trained";
}

TEST(JobTask, SkipsAFinishedRunAndSaysSo) {
  TempDir tmp;
  const auto plan = tiny_plan(tmp);
  cluster::write_job_folder(plan);
  make_run(cluster::read_job(plan.job_dir()), 2, runs::RunState::finished, true, true);
  std::ostringstream log;
  bool watched = false;
  const auto out = cluster::run_task(plan.job_dir(), 2, [&](engine::ExperimentHandle&) {
    watched = true;
    return std::shared_ptr<const engine::Snapshot>();
  }, log);
  EXPECT_FALSE(watched) << "no engine job for a finished run";
  EXPECT_EQ(out.exit_status, 0);
  const auto record = cluster::read_task_record(plan.job_dir(), 2);
  ASSERT_TRUE(record);
  EXPECT_EQ(record->state, cluster::TaskState::skipped);
  EXPECT_GT(record->pid, 0);
  EXPECT_NE(log.str().find("task 2 (tiny-proteus-s1): skip: finished and evaluated"), std::string::npos) << log.str();
}

TEST(JobMerge, NamesEveryRunThatDidNotFinishWithItsReason) {
  TempDir tmp;
  const auto plan = tiny_plan(tmp);
  cluster::write_job_folder(plan);
  cluster::record_submission(plan.job_dir(), {"11", "12", "2026-01-01T00:00:00Z", ""});
  const auto job = cluster::read_job(plan.job_dir());
  make_run(job, 0, runs::RunState::finished, true, true);
  make_run(job, 1, runs::RunState::failed, true, false);
  cluster::write_task_record(plan.job_dir(), 2, {cluster::TaskState::failed, "data.text.path: no such file", "13", "node1", 0, ""});
  // Task 3 never ran: no folder, no record, and the array is over.
  std::vector<std::string> drawn;
  const auto m = cluster::merge_job(plan.job_dir(), [&](const std::vector<std::string>& dirs, const fs::path& out) {
    drawn = dirs;
    EXPECT_EQ(out, plan.job_dir() / "figures");
    return std::vector<std::string>{"per_position.png"};
  });
  EXPECT_EQ(m.finished, 1u);
  EXPECT_EQ(drawn, std::vector<std::string>{job.run_dir(0).string()}) << "only finished runs are drawn";
  ASSERT_EQ(m.runs.size(), 4u);
  EXPECT_EQ(m.runs[1].state, cluster::JobRunState::failed);
  EXPECT_EQ(m.runs[1].reason, "non-finite loss at step 2");
  EXPECT_EQ(m.runs[2].reason, "data.text.path: no such file");
  EXPECT_EQ(m.runs[3].state, cluster::JobRunState::failed);
  const auto summary = common::read_json_file(plan.job_dir() / "summary.json", {});
  EXPECT_EQ(summary["counts"]["finished"], 1);
  EXPECT_EQ(summary["counts"]["failed"], 3);
  EXPECT_EQ(summary["runs"][2]["reason"], "data.text.path: no such file");
  EXPECT_EQ(summary["figures"][0], "per_position.png");

  // `proteus groups` asks no squeue: the task that never ran may still be queued as far as it knows.
  const auto notes = cluster::failed_run_notes(plan.runs_dir);
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[1], "job tiny: run tiny-proteus-s1 (task 2) failed: data.text.path: no such file");

  const auto without_figures = cluster::merge_job(plan.job_dir(), {});
  EXPECT_NE(without_figures.notes.back().find("figures not drawn"), std::string::npos);
}

}  // namespace
