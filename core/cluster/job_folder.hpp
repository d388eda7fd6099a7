// A sweep or seed group as a Slurm job: its folder RUNS_DIR/jobs/NAME/, planned and written here
// without any Slurm, so every script can be checked on a machine that has none.
//   job.json          the job's name, the proteus binary and working folder the tasks use, the
//                     command the user ran, the Slurm options, and the run names by task index
//   experiment.json   the resolved experiment (parents merged, --set and --seeds applied)
//   runs.json         every run's full config, by task index: what task I trains
//   array.sbatch      the job array: task I runs `proteus job-task JOB_DIR --index I`
//   merge.sbatch      after the array (afterany): `proteus job-merge JOB_DIR`
//   submissions.json  each submission's array and merge job ids (or why sbatch refused)
//   logs/             Slurm's output, task-<array id>_<index>.out and merge-<id>.out
//   tasks/            what each task did last (I.json) and its lock (I.lock)
// The scripts name absolute paths only (binary, job folder, runs folder), so a task runs the same
// binary and config from any node that sees the shared runs folder.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config/config.hpp"
#include "core/config/experiment.hpp"
#include "core/runs/run_dir.hpp"

namespace proteus::cluster {

// What `--slurm` passes through to sbatch; empty or 0 leaves Slurm's default.
struct SlurmOptions {
  std::string partition;
  std::string time;      // Slurm's forms: MINUTES, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS
  std::string account;
  int cpus_per_task = 0;
  int gpus_per_task = 0;
  int max_running = 0;   // the array's "%N": at most N tasks at once
  std::vector<std::string> sbatch_args;  // free "#SBATCH" lines: "--qos=short", "--mem=8G"
};

// Throws InputError naming the option ("--time: ...", "--sbatch-arg[1]: ...") for a value sbatch
// would refuse or that would break a script line.
void check_slurm_options(const SlurmOptions& o);

struct JobPlan {
  std::string name;                     // the folder's name under RUNS_DIR/jobs/
  std::filesystem::path runs_dir;       // absolute: every run of the job goes here
  std::filesystem::path proteus;        // absolute path of the binary the tasks run
  std::filesystem::path workdir;        // absolute: the tasks' working folder (relative data paths)
  std::string command;                  // what the user ran, for the record
  config::Experiment experiment;        // the resolved experiment
  std::vector<config::RunConfig> runs;  // by task index; runs_dir absolute, threads from --cpus-per-task
  SlurmOptions slurm;

  std::filesystem::path job_dir() const { return runs_dir / "jobs" / name; }
};

// The plan for these runs (the experiment's, or some of them: `--variant`). `name` empty takes
// the experiment's "name", else the first run's. Every run must share one
// runs_dir (made absolute against workdir); with --cpus-per-task and "threads": 0 a run uses that
// many threads, not every core of the node. Throws InputError naming the field or option.
JobPlan plan_job(std::vector<config::RunConfig> runs, config::Experiment experiment, const std::string& name,
                 const SlurmOptions& slurm, const std::filesystem::path& proteus, const std::filesystem::path& workdir,
                 const std::string& command);

// The scripts' text (what write_job_folder writes).
std::string array_script(const JobPlan& plan);
std::string merge_script(const JobPlan& plan);

// Writes the job folder. An existing folder of the same name is reused (scripts and runs.json
// rewritten) when it holds the same runs, so resubmitting a command is safe; one holding other runs
// is refused (InputError("--job-name", ...)) and left untouched.
void write_job_folder(const JobPlan& plan);

// Two run configs are the same run when they differ at most in "threads" (how many cores it used,
// which a resubmission with another --cpus-per-task changes, not what it computes).
bool same_run(const nlohmann::json& a, const nlohmann::json& b);

// A job folder as the tasks, the merge and `proteus jobs` read it.
struct Submission {
  std::string array_job;   // Slurm job ids; empty when not submitted
  std::string merge_job;
  std::string submitted;   // UTC, ISO 8601
  std::string error;       // why the submission stopped, if it did
};

struct JobRecord {
  std::string name;
  std::filesystem::path dir;
  std::vector<config::RunConfig> runs;  // by task index
  std::vector<Submission> submissions;  // oldest first
  // The run directory of task `index`: RUNS_DIR/<run name>.
  std::filesystem::path run_dir(size_t index) const;
};

// Throws InputError(job_dir, ...) for a folder that is not a job or whose files do not parse.
JobRecord read_job(const std::filesystem::path& job_dir);

// The job folders under RUNS_DIR/jobs/ (those holding runs.json), sorted by name. A path it
// cannot read (a symlink loop, no permission) is named in `unreadable` when given, and skipped.
std::vector<std::filesystem::path> list_jobs(const std::filesystem::path& runs_dir,
                                             std::vector<std::string>* unreadable = nullptr);

// Appends one submission to submissions.json (rewritten atomically).
void record_submission(const std::filesystem::path& job_dir, const Submission& s);

// The fixed names inside a job folder.
inline constexpr const char* kJobFile = "job.json";
inline constexpr const char* kRunsFile = "runs.json";
inline constexpr const char* kSubmissionsFile = "submissions.json";
inline constexpr const char* kArrayScript = "array.sbatch";
inline constexpr const char* kMergeScript = "merge.sbatch";

using runs::utc_now;  // the runs room's time stamp, for the job's files too

}  // namespace proteus::cluster
