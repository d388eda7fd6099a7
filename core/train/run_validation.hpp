// The one check a run config passes on its way to training: its fields and bounds
// (config::validate), the size of the config.json it will write, its data (data::validate: the
// corpus's files, the tasks' prompts), and that every NIAH and token-needle evaluation length holds
// its prompt. The CLI (`proteus train`, `sweep`, --dry-run), the window's Start and problem line,
// and engine::start_training all call validate_run; train_new_run takes what it returns, so a
// config is validated once on one path. What only the corpus's bytes tell is checked as a run
// loads them, before its directory exists.
#pragma once
#include <vector>

#include "core/config/config.hpp"

namespace proteus::train {

// A run config that passed validate_run: only validate_run makes one, so holding one is the proof
// (train_new_run does not check it again).
class ValidRun {
 public:
  const config::RunConfig& config() const { return config_; }
  // Shares the CPU threads out between `parts` runs trained at once (the compare view): each gets
  // its part of the cores, at least one; fewer threads than checked keep the run valid.
  void share_threads(int parts, int cores);

 private:
  explicit ValidRun(config::RunConfig config) : config_(std::move(config)) {}
  friend ValidRun validate_run(const config::RunConfig& cfg);
// Each of an experiment's runs, in order: what `proteus train` / `sweep` and the window's Start
// train. Of two or more runs, an error also names its run: "data.text.path: ... (in run "x-E4")".
std::vector<ValidRun> validate_runs(const std::vector<config::RunConfig>& runs);
  config::RunConfig config_;
};

// Lives in train, the lowest room that links config, data (the corpus's files, prompt lengths) and
// runs (the limit within which every reader reads a run's config.json back); data cannot see runs.
// Throws InputError naming the field ("model.mixer.E: ...", "data.text.path: ...").
ValidRun validate_run(const config::RunConfig& cfg);
// Each of an experiment's runs, in order: what `proteus train` / `sweep` and the window's Start
// train. Of two or more runs, an error also names its run: "data.text.path: ... (in run "x-E4")".
std::vector<ValidRun> validate_runs(const std::vector<config::RunConfig>& runs);

}  // namespace proteus::train
