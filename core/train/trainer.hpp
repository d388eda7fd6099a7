// One training run, start to finish: builds the backend, model, optimiser and data from a
// RunConfig, trains with warm-up + cosine AdamW and gradient clipping, evaluates held-out bits
// per byte as it goes, and keeps the run directory current as it streams (config.json,
// metrics.jsonl, status.json, checkpoint.safetensors). Seeded and deterministic on the CPU.
// It stops cleanly on cancel (checkpoint + status "cancelled", resumable) and on a non-finite
// loss or gradient (status "failed", the last good checkpoint kept untouched). Whatever else ends
// a run once its directory exists (a full disk, std::bad_alloc, a corrupt checkpoint on resume)
// is written to status.json as "failed" with the reason before it is rethrown: no run that ended
// says "running". The run directory is locked while the trainer writes it.
// The final evaluations (per-position loss, NIAH, MQAR, occupancy) are eval/'s, run by the
// engine after training.
#pragma once
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "core/config/config.hpp"
#include "core/data/batch_source.hpp"
#include "core/model/model.hpp"
#include "core/runs/run_dir.hpp"
#include "core/train/run_validation.hpp"

namespace proteus::train {

struct StepMetrics {
  int step = 0;
  int total_steps = 0;
  double loss = 0;        // mean next-token NLL of the step's batch, nats
  double lr = 0;
  double grad_norm = 0;   // before clipping
  double tokens_per_s = 0;
  double elapsed_s = 0;
  double val_bpb = std::numeric_limits<double>::quiet_NaN();  // set at evaluation steps
  // At evaluation steps: each validation row's held-out NLL (nats) at positions 1..seq_len
  // (val_rows, seq_len), NaN where the row's weight is 0 (it does not count toward val_bpb), so the
  // window can redraw per-position perplexity with its bootstrap band over rows as it trains.
  std::vector<double> val_row_nll;
  int val_rows = 0;
  uint64_t val_fingerprint = 0;  // of the rows' tokens: two runs share rows only when it is equal
};

// The trainer's window to whoever runs it (the engine, a test). All optional.
struct TrainHooks {
  std::function<void(const StepMetrics&)> on_step;  // every log step and every eval step
  std::function<bool()> should_stop;                // polled every step: true = cancel
  std::function<void()> wait_if_paused;             // may block between steps
  std::function<void(const std::string&)> on_message;  // notices (device fallback, resume)
  std::function<void(const std::string&)> on_run_dir;  // the run directory, once it exists
  std::function<void(const std::string&)> on_device;   // what it runs on, once the backend is made
  // At every evaluation step, after the validation rows were scored and before on_step: the model
  // and those rows, for live measurements (the engine's block use). May run forwards on the model.
  std::function<void(model::Model<float>&, const std::vector<data::Batch>&)> on_validation;
};

struct TrainResult {
  std::string run_dir;
  runs::RunState state = runs::RunState::running;  // finished, cancelled or failed once train returns
  std::string message;
  std::string device;      // what it ran on
  int steps_done = 0;
  double final_loss = std::numeric_limits<double>::quiet_NaN();
  double final_val_bpb = std::numeric_limits<double>::quiet_NaN();
  double wall_s = 0;
  double tokens_per_s = 0;  // mean over the training steps of this session
};

// Trains a new run under cfg.runs_dir (a fresh directory named after cfg.name), from a config
// validate_run passed (checked once, by whoever made the ValidRun): a refused one leaves no
// directory behind.
TrainResult train_new_run(const ValidRun& run, const TrainHooks& hooks = {});
// validate_run(cfg), then the above: for a caller holding a config not yet checked (a test, a
// Slurm task).
TrainResult train_new_run(const config::RunConfig& cfg, const TrainHooks& hooks = {});
// Continues the run in run_dir from its checkpoint, with the config it was started with. Throws
// InputError, touching nothing, when another writer holds the run.
TrainResult resume_run(const std::string& run_dir, const TrainHooks& hooks = {});

}  // namespace proteus::train
