// Each run of a job as queued, running, finished, failed or interrupted: told from its run folder
// (status.json and its lock), its task's record and lock in the job folder, and, where squeue
// answers, Slurm's own state of its array task. What `proteus jobs`, the merge summary, `proteus
// groups` and the window show.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/cluster/job_folder.hpp"
#include "core/cluster/slurm_commands.hpp"
#include "core/runs/run_dir.hpp"

namespace proteus::cluster {

// What a task wrote last (tasks/I/task.json): running while it works, then finished, failed,
// cancelled, skipped (already finished) or held (another writer had the run). The names are the
// file's; past read_task_record nothing compares them.
enum class TaskState { running, finished, failed, cancelled, skipped, held };
const char* task_state_name(TaskState s);
std::optional<TaskState> parse_task_state(const std::string& name);  // none: not one of the above

struct TaskRecord {
  TaskState state = TaskState::running;
  std::string message;
  std::string slurm_job;  // SLURM_JOB_ID of the task that wrote it
  std::string host;
  long pid = 0;           // the task's process, while it works
  std::string updated;
};

// The task's folder (tasks/I/): its record, and the directory its lock is taken on.
std::filesystem::path task_dir(const std::filesystem::path& job_dir, size_t index);
std::optional<TaskRecord> read_task_record(const std::filesystem::path& job_dir, size_t index);
void write_task_record(const std::filesystem::path& job_dir, size_t index, const TaskRecord& record);

// True when the run folder holds its evaluations: per_position.json, or any result when the
// config asks for no per-position evaluation.
bool run_evaluated(const config::RunConfig& cfg, const std::filesystem::path& run_dir);

// The facts one run's state is told from.
struct RunFacts {
  bool run_exists = false;       // its run folder has a config.json
  runs::ObservedState run_state = runs::ObservedState::failed;  // when run_exists
  std::string run_message;
  bool evaluated = false;        // its results are written
  bool task_active = false;      // a task holds the task's lock now
  std::optional<TaskRecord> task;
  bool submitted = false;        // the job was submitted at least once
  bool queue_known = false;      // squeue answered
  std::string queue_state;       // the array task in the queue ("PENDING", "RUNNING"); "" when not there
  std::string queue_reason;
};

// A run of a job as `proteus jobs`, the merge summary and the window show it.
enum class JobRunState { queued, running, finished, failed, interrupted };
const char* job_run_state_name(JobRunState s);
// Every state, in the order a job's counts are printed.
inline constexpr JobRunState kJobRunStates[] = {JobRunState::finished, JobRunState::running, JobRunState::queued,
                                                JobRunState::interrupted, JobRunState::failed};

struct RunJobState {
  JobRunState state = JobRunState::queued;
  std::string reason;  // why, in a few words (a failure's own message)
};

RunJobState classify(const RunFacts& facts);

struct RunJobView {
  size_t index = 0;
  std::string name;
  std::filesystem::path run_dir;
  JobRunState state = JobRunState::queued;
  std::string reason;
  std::string queue_state;  // Slurm's, when known
};

// The facts of run `index`, read from disk; the queue's part from `queue` (null: not asked).
RunFacts gather_facts(const JobRecord& job, size_t index, const QueueView* queue);

// Every run of the job, by task index.
std::vector<RunJobView> job_states(const JobRecord& job, const QueueView* queue);

// squeue for the job's submissions (every array and merge id it recorded).
QueueView query_job_queue(const JobRecord& job);

// "job NAME: run R (task I) failed: reason" for every failed run of every job under runs_dir
// (no squeue asked): what `proteus groups` adds to its report.
std::vector<std::string> failed_run_notes(const std::filesystem::path& runs_dir);

}  // namespace proteus::cluster
