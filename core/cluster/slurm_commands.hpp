// Talking to Slurm through its commands (sbatch, squeue) found on PATH: submitting a job folder's
// array and its merge, and reading the queue's state of each array task. Nothing here links Slurm;
// a machine without it is told so by slurm_available().
#pragma once
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/cluster/job_folder.hpp"

namespace proteus::cluster {

struct ProgramOutput {
  int status = -1;  // the exit status; 127 when the program could not be started
  std::string out;
  std::string err;
};

// Runs argv[0] (searched on PATH) with these arguments and no shell; its output collected.
ProgramOutput run_program(const std::vector<std::string>& argv);

// The program's full path when it is on PATH and executable, else "".
std::string find_on_path(const std::string& program);

// True when sbatch is on PATH.
bool slurm_available();

// Submits array.sbatch, then merge.sbatch with --dependency=afterany:<array id>; records the
// submission (ids, or the refusal) in submissions.json and returns it. A refusal leaves
// `error` set (sbatch's own message); the array may then be queued without its merge.
Submission submit_job(const std::filesystem::path& job_dir);

// The job id in sbatch --parsable's output ("123" or "123;cluster"); "" when there is none.
std::string parse_job_id(const std::string& sbatch_output);

// An array task's state in the queue: "PENDING", "RUNNING", "COMPLETING", ... and Slurm's reason.
struct QueuedTask {
  std::string state;
  std::string reason;
};

// The array tasks of these jobs in the queue (squeue -r), by task index. A task of a later job id
// wins over an earlier one. `squeue_output` lines are squeue -o "%i|%F|%K|%T|%r": job id, array
// job id, task index, state, reason.
std::map<int, QueuedTask> parse_squeue(const std::string& squeue_output, const std::vector<std::string>& array_jobs);

// squeue for these array jobs; `available` false when squeue is not on PATH or fails.
struct QueueView {
  bool available = false;
  std::map<int, QueuedTask> tasks;                 // array tasks still in the queue, by index
  std::map<std::string, std::string> jobs;         // a listed job that is no array task (the merge) -> its state
};
QueueView query_queue(const std::vector<std::string>& job_ids, const std::vector<std::string>& array_jobs);

}  // namespace proteus::cluster
