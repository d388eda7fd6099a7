// Training and evaluating runs on a worker thread, watched through immutable snapshots: the
// CLI prints them as a progress line, the window draws them. A job is a list of runs (one, the
// baseline and Proteus variants of a preset, or a sweep's grid), trained one after another,
// each evaluated after training when asked.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/config/config.hpp"
#include "core/engine/job.hpp"
#include "core/engine/run_phase.hpp"
#include "core/eval/evaluate.hpp"
#include "core/train/run_validation.hpp"
#include "core/train/trainer.hpp"

namespace proteus::engine {

struct RunView {
  std::string name;
  std::string run_dir;   // empty until the run directory exists
  std::string device;
  RunPhase state = RunPhase::queued;
  std::string message;
  int step = 0;
  int total_steps = 0;
  double tokens_per_s = 0;
  double elapsed_s = 0;
  double val_bpb = -1;   // latest held-out bits per byte; -1 before the first evaluation
  std::vector<train::StepMetrics> history;  // every logged step (val_row_nll left empty)
  // Per-position loss on the validation rows at the latest evaluation step, in log buckets with
  // their bootstrap intervals over the rows: the live curve (and band) the window redraws while
  // training; null before the first evaluation.
  std::shared_ptr<const eval::PerPositionResult> live_per_position;
  int live_per_position_step = 0;
  // Block use on the validation rows at the latest evaluation step (memory models with E > 1, at
  // the default positions within the row length); null before it or when not applicable.
  std::shared_ptr<const eval::BlockUseResult> live_block_use;
  std::shared_ptr<const eval::EvalReport> report;  // after the evaluations
};

struct Snapshot {
  std::vector<RunView> runs;
  int current = -1;  // index of the run being worked on
  std::vector<std::string> messages;  // notices: device fallback, resume, failures
  bool done = false;
};

using ExperimentHandle = Handle<Snapshot>;

// How a training job runs, named where it is started: start_training(runs, {.evaluate = false}).
struct TrainingOptions {
  bool evaluate = true;  // evaluate each run once it has trained
  // Train every run at once (the compare view: baseline and Proteus fill in together; the CPU
  // threads are shared out between them), not one after another.
  bool side_by_side = false;
};
struct ResumeOptions {
  bool evaluate = true;  // evaluate the run once it has trained
};

// Trains each run in turn, or all at once (options.side_by_side), as train::validate_run passed
// them: the CLI and the window validate once (train/run_validation.hpp) and start these.
ExperimentHandle start_training(std::vector<train::ValidRun> runs, TrainingOptions options = {});
// Validates each config in the caller's thread (train::validate_run: an InputError naming the
// field reaches the caller directly), then starts the above.
ExperimentHandle start_training(const std::vector<config::RunConfig>& runs, TrainingOptions options = {});
// Continues a cancelled or crashed run from its checkpoint, then evaluates it. Throws InputError
// at once when another writer holds the run (run_lock.hpp).
ExperimentHandle start_resume(std::string run_dir, ResumeOptions options = {});
// Evaluates saved runs again (their config's eval section, possibly edited in config.json).
// Throws InputError at once when another writer holds one of them.
ExperimentHandle start_evaluation(std::vector<std::string> run_dirs);

// The evaluations of one saved run, synchronously: takes the run's lock, loads its config and
// checkpoint, evaluates, writes the result files into the run directory. progress may cancel.
eval::EvalReport evaluate_saved_run(const std::string& run_dir, const eval::EvalProgress& progress = {});

}  // namespace proteus::engine
