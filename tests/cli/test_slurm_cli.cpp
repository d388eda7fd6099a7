// `--slurm`, `proteus jobs`, `job-task` and `job-merge` as a user meets them on a machine without
// Slurm: the one-line refusal that writes nothing, --print, submission through a stand-in sbatch,
// and a task that fails before its run exists, named with its reason by `jobs`, the merge and
// `groups`. (tests/cluster/slurm_real.sh runs the same against a real Slurm.) Each test works in a
// folder under /tmp (TempDir::plain), whatever $TMPDIR is: --slurm refuses a runs folder whose path
// an #SBATCH line cannot hold.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/run_command.hpp"  // CommandResult
#include "tests/support/temp_dir.hpp"
#include "tests/support/tiny_experiment.hpp"

namespace {

namespace fs = std::filesystem;
using proteus::test_support::TempDir;

// Runs the command in tmp with only `path` on PATH (a stand-in sbatch, or nothing): the machine's
// own Slurm, if it has one, is never reached.
proteus::test_support::CommandResult run_in(const TempDir& tmp, const std::string& path,
                                            const std::vector<std::string>& args) {
  return proteus::test_support::run_proteus(args, {.dir = tmp.path().string(), .env = {{"PATH", path}}});
}

// 2 variants x 2 seeds of a tiny model over a text file of the test's own.
std::string write_config(const TempDir& tmp) { return proteus::test_support::write_tiny_experiment(tmp); }

// The tiny model's sweep over E in 1, 2, times seeds 1, 2.
std::string write_sweep(const TempDir& tmp) {
  write_config(tmp);
  return tmp.write("sweep.json", R"({"parent": "tiny.json", "name": "grid", "variants": null,
    "sweep": {"model.mixer.E": [1, 2]}})");
}

// A stand-in sbatch in tmp/bin (shell built-ins only): logs its arguments to tmp/sbatch.log, prints
// ids 101, 102, ...
std::string fake_sbatch_path(const TempDir& tmp) {
  const fs::path bin = tmp / "bin";
  fs::create_directories(bin);
  std::ofstream(bin / "sbatch") << "#!/bin/sh\nlog=\"${0%/bin/sbatch}/sbatch.log\"\necho \"$@\" >> \"$log\"\n"
                                   "n=0\nwhile read -r _; do n=$((n + 1)); done < \"$log\"\necho $((100 + n))\n";
  fs::permissions(bin / "sbatch", fs::perms::owner_all);
  return bin.string();
}

// A PATH without sbatch.
std::string no_slurm_path(const TempDir& tmp) {
  fs::create_directories(tmp / "empty");
  return (tmp / "empty").string();
}

TEST(SlurmCommand, WithoutSlurmSaysSoInOneLineAndWritesNothing) {
  TempDir tmp = TempDir::plain();
  const auto config = write_config(tmp);
  const auto r = run_in(tmp, no_slurm_path(tmp), {"train", config, "--slurm"});
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("--slurm: no Slurm on this machine"), std::string::npos) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  EXPECT_FALSE(fs::exists(tmp / "runs")) << "nothing is written";
  const auto s = run_in(tmp, no_slurm_path(tmp), {"sweep", write_sweep(tmp), "--slurm"});
  EXPECT_EQ(s.status, 2) << s.out;
  EXPECT_NE(s.out.find("--slurm: no Slurm on this machine"), std::string::npos) << s.out;
  EXPECT_FALSE(fs::exists(tmp / "runs"));
}

TEST(SlurmCommand, OptionsNeedSlurmAndBadOnesNameTheOption) {
  TempDir tmp = TempDir::plain();
  const auto config = write_config(tmp);
  const auto path = fake_sbatch_path(tmp);
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--partition", "gpu"}, "--partition: needs --slurm"},
      {{"--slurm", "--time", "forever"}, "--time:"},
      {{"--slurm", "--sbatch-arg=qos"}, "--sbatch-arg[0]:"},
      {{"--slurm", "--side-by-side"}, "--side-by-side: cannot be combined with --slurm"},
      {{"--slurm", "--no-eval"}, "--no-eval: cannot be combined with --slurm"},
      {{"--slurm", "--set", "model.mixer.E=0"}, "model.mixer.E"},
  };
  for (const auto& [options, message] : cases) {
    std::vector<std::string> args = {"train", config};
    args.insert(args.end(), options.begin(), options.end());
    const auto r = run_in(tmp, path, args);
    const std::string shown = proteus::test_support::joined(options);
    EXPECT_EQ(r.status, 2) << shown << "\n" << r.out;
    EXPECT_NE(r.out.find(message), std::string::npos) << shown << "\n" << r.out;
    EXPECT_FALSE(fs::exists(tmp / "runs")) << shown;
  }
  EXPECT_FALSE(fs::exists(tmp / "sbatch.log")) << "nothing was submitted";
}

TEST(SlurmCommand, PrintWritesTheJobWithoutSubmitting) {
  TempDir tmp = TempDir::plain();
  const auto config = write_config(tmp);
  const auto r = run_in(tmp, no_slurm_path(tmp), {"train", config, "--slurm", "--print", "--max-running", "2"});
  EXPECT_EQ(r.status, 0) << r.out;
  const fs::path job = tmp / "runs/jobs/tiny";
  EXPECT_NE(r.out.find("sbatch --dependency=afterany:\"$array\" '" + (job / "merge.sbatch").string() + "'"),
            std::string::npos)
      << r.out;
  const auto script = TempDir::read(job / "array.sbatch");
  EXPECT_NE(script.find("#SBATCH --array=0-3%2\n"), std::string::npos) << script;
  EXPECT_NE(script.find("job-task '" + job.string() + "'"), std::string::npos) << script;
  EXPECT_NE(script.find(std::string("exec '") + fs::canonical(PROTEUS_BIN).string() + "'"), std::string::npos)
      << "the tasks run this very binary\n" << script;
  EXPECT_EQ(TempDir::read(job / "submissions.json"), "[]\n");
  const auto jobs = run_in(tmp, no_slurm_path(tmp), {"jobs", "runs"});
  EXPECT_EQ(jobs.status, 0) << jobs.out;
  EXPECT_NE(jobs.out.find("not submitted"), std::string::npos) << jobs.out;
  EXPECT_EQ(std::count(jobs.out.begin(), jobs.out.end(), '\n'), 6) << "a header, a submission line, 4 runs\n" << jobs.out;
}

TEST(SlurmCommand, ASweepIsOneTaskPerGridPointAndSeed) {
  TempDir tmp = TempDir::plain();
  const auto r = run_in(tmp, no_slurm_path(tmp), {"sweep", write_sweep(tmp), "--slurm", "--print"});
  EXPECT_EQ(r.status, 0) << r.out;
  const auto runs = TempDir::read(tmp / "runs/jobs/grid/runs.json");
  for (const char* name : {"grid-E1-s1", "grid-E1-s2", "grid-E2-s1", "grid-E2-s2"})
    EXPECT_NE(runs.find(std::string("\"name\": \"") + name + "\""), std::string::npos) << name << "\n" << r.out;
  EXPECT_NE(TempDir::read(tmp / "runs/jobs/grid/array.sbatch").find("#SBATCH --array=0-3\n"), std::string::npos);
}

TEST(SlurmCommand, SubmitsTheArrayAndItsMergeAndResubmitsSafely) {
  TempDir tmp = TempDir::plain();
  const auto config = write_config(tmp);
  const auto path = fake_sbatch_path(tmp);
  const auto r = run_in(tmp, path, {"train", config, "--slurm", "--partition", "short", "--cpus-per-task", "2"});
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("array job 101 (4 tasks)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("merge job 102"), std::string::npos) << r.out;
  const auto log = TempDir::read(tmp / "sbatch.log");
  EXPECT_NE(log.find("--dependency=afterany:101"), std::string::npos) << log;
  // The same command again reuses the folder; another config under the same name is refused.
  const auto again = run_in(tmp, path, {"train", config, "--slurm", "--partition", "short", "--cpus-per-task", "2"});
  EXPECT_EQ(again.status, 0) << again.out;
  EXPECT_NE(again.out.find("array job 103"), std::string::npos) << again.out;
  const auto other = run_in(tmp, path, {"train", config, "--slurm", "--steps", "9"});
  EXPECT_EQ(other.status, 2) << other.out;
  EXPECT_NE(other.out.find("--job-name:"), std::string::npos) << other.out;
  EXPECT_EQ(run_in(tmp, path, {"train", config, "--slurm", "--steps", "9", "--job-name", "tiny-9"}).status, 0);
  EXPECT_TRUE(fs::exists(tmp / "runs/jobs/tiny-9/runs.json"));
}

TEST(SlurmCommand, AFailedTaskIsNamedWithItsReasonByJobsMergeAndGroups) {
  TempDir tmp = TempDir::plain();
  const auto config = write_config(tmp);
  const auto path = fake_sbatch_path(tmp);
  ASSERT_EQ(run_in(tmp, path, {"train", config, "--slurm"}).status, 0);
  // The text vanishes before the tasks run (a scratch folder cleaned, a node without the mount).
  fs::remove(tmp / "text.txt");
  const std::string job = (tmp / "runs/jobs/tiny").string();
  const auto task = run_in(tmp, path, {"job-task", job, "--index", "0"});
  EXPECT_EQ(task.status, 1) << task.out;
  EXPECT_NE(task.out.find("data.text.path"), std::string::npos) << task.out;
  EXPECT_FALSE(fs::exists(tmp / "runs/tiny-baseline-s1")) << "refused before the run existed";

  const auto jobs = run_in(tmp, path, {"jobs", "runs"});
  EXPECT_EQ(jobs.status, 0) << jobs.out;
  EXPECT_NE(jobs.out.find("tiny-baseline-s1  failed      data.text.path"), std::string::npos) << jobs.out;
  const auto groups = run_in(tmp, path, {"groups", "runs"});
  EXPECT_NE(groups.out.find("job tiny: run tiny-baseline-s1 (task 0) failed: data.text.path"), std::string::npos)
      << groups.out;
  const auto merge = run_in(tmp, path, {"job-merge", job});
  EXPECT_EQ(merge.status, 1) << "not every run finished\n" << merge.out;
  EXPECT_NE(merge.out.find("run tiny-baseline-s1 (task 0) failed: data.text.path"), std::string::npos) << merge.out;
  EXPECT_NE(TempDir::read(fs::path(job) / "summary.json").find("\"failed\": 4"), std::string::npos)
      << "the other tasks never ran and the array is over";
  EXPECT_EQ(run_in(tmp, path, {"job-task", job, "--index", "9"}).status, 2);
}

// Issue 34: the commands --print shows a user to paste are quoted for the shell. A runs folder whose
// name holds ';' and '>' (allowed in an #SBATCH path) runs nothing when pasted: sbatch gets the
// whole path as one argument, and no file is made by a redirection smuggled in the name.
TEST(SlurmCommand, PrintedCommandsRunNothingButSbatchWhenPasted) {
  TempDir tmp = TempDir::plain();
  const auto config = write_config(tmp);
  const auto r = run_in(tmp, no_slurm_path(tmp), {"train", config, "--slurm", "--print", "--runs-dir", "r;>pwned;x"});
  ASSERT_EQ(r.status, 0) << r.out;
  const size_t at = r.out.find("submit with:\n");
  ASSERT_NE(at, std::string::npos) << r.out;
  tmp.write("paste.sh", r.out.substr(at + 13));
  const auto pasted = proteus::test_support::run_program(
      {"sh", "paste.sh"}, {.dir = tmp.path().string(), .env = {{"PATH", fake_sbatch_path(tmp) + ":/usr/bin:/bin"}}});
  EXPECT_FALSE(fs::exists(tmp / "pwned")) << "a redirection in the folder's name ran\n" << r.out;
  const auto log = TempDir::read(tmp / "sbatch.log");
  const std::string job = (tmp / "r;>pwned;x/jobs/tiny").string();
  EXPECT_NE(log.find("--parsable " + job + "/array.sbatch\n"), std::string::npos) << log;
  EXPECT_NE(log.find("--dependency=afterany:101 " + job + "/merge.sbatch\n"), std::string::npos) << log;
}

// Issue 34: the options the job sets itself are refused in every spelling sbatch reads: short,
// attached, bundled behind a flag, abbreviated, with '=' or a space, or second on one line.
TEST(SlurmCommand, TheJobsOwnOptionsAreRefusedInEverySpelling) {
  TempDir tmp = TempDir::plain();
  const auto config = write_config(tmp);
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"-o /tmp/x", "--output"},        {"-o/tmp/x", "--output"},          {"--out=/tmp/x", "--output"},
      {"--output /tmp/x", "--output"},  {"-vo /tmp/x", "--output"},        {"--qos=short --output=/x", "--output"},
      {"-e/tmp/e", "--error"},          {"-J evil", "--job-name"},         {"--job=evil", "--job-name"},
      {"-D/", "--chdir"},               {"--chd=/", "--chdir"},            {"--workdir=/", "--workdir"},
      {"--dep=afterok:1", "--dependency"}, {"-d afterok:1", "--dependency"}, {"-a0-3", "--array"},
      {"--arr 0-3", "--array"},         {"-HJx", "--job-name"}};
  for (const auto& [arg, owned] : refused) {
    const auto r = run_in(tmp, no_slurm_path(tmp), {"train", config, "--slurm", "--print", "--sbatch-arg=" + arg});
    EXPECT_EQ(r.status, 2) << arg << "\n" << r.out;
    EXPECT_NE(r.out.find("--sbatch-arg[0]: "), std::string::npos) << arg << "\n" << r.out;
    EXPECT_NE(r.out.find(" is " + owned + ", which the job sets itself"), std::string::npos) << arg << "\n" << r.out;
    EXPECT_FALSE(fs::exists(tmp / "runs")) << arg;
  }
  for (const std::string arg : {"--qos=short", "-p debug", "-pdebug", "--mem 8G", "--exclusive", "-p -o"}) {
    const auto r = run_in(tmp, no_slurm_path(tmp), {"train", config, "--slurm", "--print", "--sbatch-arg=" + arg});
    EXPECT_EQ(r.status, 0) << arg << " is not the job's own\n" << r.out;
    EXPECT_NE(TempDir::read(tmp / "runs/jobs/tiny/array.sbatch").find("#SBATCH " + arg + "\n"), std::string::npos) << arg;
    fs::remove_all(tmp / "runs");
  }
}

// Issue 34: a task started without its index (SLURM_ARRAY_TASK_ID unset, so array.sbatch passes
// "") is refused naming --index, never taken as task 0: no run is trained.
TEST(SlurmCommand, AMissingTaskIndexIsAnErrorNotTaskZero) {
  TempDir tmp = TempDir::plain();
  const auto config = write_config(tmp);
  ASSERT_EQ(run_in(tmp, no_slurm_path(tmp), {"train", config, "--slurm", "--print"}).status, 0);
  const std::string job = (tmp / "runs/jobs/tiny").string();
  for (const std::string index : {"", " 0", "0x1", "-1", "1e0", "+0"}) {
    const auto r = run_in(tmp, no_slurm_path(tmp), {"job-task", job, "--index", index});
    EXPECT_EQ(r.status, 2) << index << "\n" << r.out;
    EXPECT_NE(r.out.find("--index"), std::string::npos) << index << "\n" << r.out;
    EXPECT_FALSE(fs::exists(tmp / "runs/tiny-baseline-s1")) << index << " trained task 0";
  }
  // array.sbatch itself, run outside an array: the same refusal.
  const auto script = proteus::test_support::run_program(
      {"/bin/bash", job + "/array.sbatch"}, {.dir = tmp.path().string(), .unset = {"SLURM_ARRAY_TASK_ID"}});
  EXPECT_EQ(script.status, 2) << script.out;
  EXPECT_NE(script.out.find("SLURM_ARRAY_TASK_ID is not set"), std::string::npos) << script.out;
  EXPECT_FALSE(fs::exists(tmp / "runs/tiny-baseline-s1"));
}

}  // namespace
