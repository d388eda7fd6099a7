// What the job's scripts run: one array task (train and evaluate run I, or skip, resume or leave
// it, as its run folder says) and the merge after the array (seed-group summaries, figures and
// summary.json). Both run the engine's jobs synchronously; the caller watches them.
#pragma once
#include <filesystem>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "core/cluster/job_folder.hpp"
#include "core/cluster/job_state.hpp"
#include "core/engine/experiment_job.hpp"

namespace proteus::cluster {

enum class TaskAction {
  train,     // no run folder yet: a new run
  resume,    // stopped part-way with a checkpoint (killed, cancelled, a time limit, failed): continue it
  evaluate,  // trained, not evaluated
  restart,   // a run folder without a checkpoint (killed before its first): trained again from step 0
  skip,      // finished and evaluated
  leave,     // another writer holds the run
};

const char* action_name(TaskAction a);

struct TaskDecision {
  TaskAction action = TaskAction::train;
  std::string why;
};

// What task `index` does with its run, from the run folder. Throws InputError when the folder
// holds another run (another config) or is no run at all: it is never overwritten.
TaskDecision decide_task(const JobRecord& job, size_t index);

// Watches an engine job to its end and returns its last snapshot (the CLI's progress line).
using JobWatcher = std::function<std::shared_ptr<const engine::Snapshot>(engine::ExperimentHandle&)>;

struct TaskOutcome {
  TaskRecord record;  // what was written to tasks/I/task.json
  int exit_status = 0;  // 0 finished, skipped or left to another task; 1 failed; 130 cancelled
};

// Runs array task `index` of the job folder: takes the task's lock (a second task for the same run
// leaves it alone), decides, trains / resumes / evaluates through the engine, and writes its
// record. Lines saying what it does go to `log`. Throws InputError for an index out of range.
// The task index as given on the command line ($SLURM_ARRAY_TASK_ID): a whole number written in
// digits only. Throws InputError("--index", ...) for anything else, an empty one (the variable was
// not set: not an array task) above all: a missing index is never task 0.
int parse_task_index(const std::string& text);

TaskOutcome run_task(const std::filesystem::path& job_dir, int index, const JobWatcher& watch, std::ostream& log);

// Draws the figures of these finished runs into `out`; returns the files written. The caller's
// (the figures room needs cairo, which a headless node may lack).
using FigureWriter = std::function<std::vector<std::string>(const std::vector<std::string>& run_dirs,
                                                            const std::filesystem::path& out)>;

struct MergeResult {
  std::vector<RunJobView> runs;
  std::vector<std::filesystem::path> groups;   // the seed-group folders written
  std::vector<std::string> figures;            // files written under JOB_DIR/figures
  std::vector<std::string> notes;              // groups skipped, figures not drawn
  size_t finished = 0;
};

// The merge: every run's state (the tasks are over; squeue is not asked), the seed-group summaries
// of the finished runs (RUNS_DIR/groups/), their figures (JOB_DIR/figures/, when draw is given) and
// JOB_DIR/summary.json naming every run that did not finish, with its reason.
MergeResult merge_job(const std::filesystem::path& job_dir, const FigureWriter& draw);

}  // namespace proteus::cluster
