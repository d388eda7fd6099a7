// The window's side of a training job (ARCHITECTURE seam 3): starts the engine's job, forwards
// pause / resume / stop, and turns the latest published snapshot into the live figures. The render
// loop calls refresh() every frame: it takes the latest snapshot (a pointer copy under the job's
// lock, never a wait) and rebuilds figures only when a new one has arrived.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/config/config.hpp"
#include "core/engine/experiment_job.hpp"
#include "core/figures/figure_set.hpp"

namespace proteus::gui {

// The figure set (core/figures/figure_set.hpp) of one snapshot: `configs` are the snapshot's
// runs' configs in order. The loss axes are there from the start; per-position perplexity is the
// live validation curve until the final evaluation lands.
std::vector<figures::NamedFigure> snapshot_figures(const engine::Snapshot& snapshot,
                                                   const std::vector<config::RunConfig>& configs);

// "12.3k tok/s", "2 min 05 s", ... for the status line.
std::string format_rate(double tokens_per_s);
std::string format_duration(double seconds);

class TrainingSession {
 public:
  // Starts training `runs` (validated once, by the editor's valid_runs()); options.side_by_side
  // trains them at once (compare). A job still running is cancelled first, and stops
  // (checkpoints) on the reaper's thread: this returns without waiting for it.
  void start(std::vector<train::ValidRun> runs, engine::TrainingOptions options = {});
  // train::validate_runs(runs) (throws its InputError, the running job left alone), then the above.
  void start(const std::vector<config::RunConfig>& runs, engine::TrainingOptions options = {});
  // Continues a cancelled or crashed run from its checkpoint (then evaluates it).
  void resume_run(const std::string& run_dir);
  void pause() { handle_.pause(); }
  void resume() { handle_.resume(); }
  void stop() { handle_.cancel(); }  // the engine checkpoints: the run stays resumable
  bool active() const { return handle_.valid() && handle_.running(); }
  bool paused() const { return handle_.paused(); }
  bool started() const { return handle_.valid(); }
  // Cancelled jobs still stopping (checkpointing) off the render thread.
  size_t jobs_stopping() const { return reaper_.pending(); }

  // Takes the latest snapshot; true when it is new (figures rebuilt). Never blocks on the worker.
  bool refresh();
  const engine::Snapshot* snapshot() const { return snapshot_.get(); }
  const std::vector<figures::NamedFigure>& figures() const { return figures_; }
  const std::vector<config::RunConfig>& configs() const { return configs_; }
  engine::Progress progress() const { return handle_.progress(); }
  // One line: phase, step, tokens/s, time left; or the job's error once it has stopped.
  std::string status_line() const;
  // The run directories the job has made so far.
  std::vector<std::string> run_dirs() const;

 private:
  engine::JobReaper reaper_;  // before handle_: destroyed after it, waiting for the jobs given up
  engine::ExperimentHandle handle_;
  std::vector<config::RunConfig> configs_;
  std::shared_ptr<const engine::Snapshot> snapshot_;
  std::vector<figures::NamedFigure> figures_;
};

}  // namespace proteus::gui
