// The Explore view's logic without a window: a finished run opened in a ScheduleExplorer
// (core/engine/schedule_explore.hpp), its schedule as an ExperimentEditor the controls change
// (E, N, type, p, custom unlock points: the same edits as the activation map), the edit sent as
// a config delta over the trained config (the newest wins), and the figures of the latest
// snapshot. refresh() takes the latest snapshot each frame and never waits on the worker.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "app/gui/state/experiment_editor.hpp"
#include "core/engine/job.hpp"
#include "core/engine/schedule_explore.hpp"
#include "core/figures/explore_figures.hpp"

namespace proteus::gui {

// What an edit asks for beyond the curves, named at the call: submit({.niah = true}).
struct ExploreAsk {
  bool niah = false;  // also the NIAH grid (slow)
};

class ExploreSession {
 public:
  // Opens a run (replacing any open one); "" or the reason it cannot (not a run, no checkpoint).
  std::string open(const std::string& run_dir);
  void close();
  bool is_open() const { return explorer_ != nullptr; }
  const std::string& run_dir() const { return run_dir_; }

  // The edited config: the controls change edit.config().model.mixer (through its edits); the rest is the run's.
  ExperimentEditor edit;
  // Evaluation settings shared by both curves: 0 = the run's own eval.per_position.
  int sequences = 0;
  int positions = 0;

  // The delta of `edit` (and the settings) over the trained config: only the fields that differ.
  engine::ConfigDelta delta() const;
  engine::ConfigDelta eval_settings() const;
  // "N = 1024, E = 8": the edited series' legend entry; "trained schedule" when nothing differs.
  std::string edit_label() const;
  // Sends the current edit (with NIAH when asked); "" or the refusal (naming the field).
  std::string submit(ExploreAsk ask = {});
  // An inference sweep over "N" or "E" (engine::horizon_sweep / blocks_sweep).
  std::string sweep(const std::string& axis);
  // Back to the trained schedule.
  void reset();

  // Takes the latest snapshot; true when it is new (figures rebuilt).
  bool refresh();
  std::shared_ptr<const engine::ExploreSnapshot> snapshot() const { return snapshot_; }
  // Is the newest request answered?
  bool settled() const;
  const std::vector<figures::NamedFigure>& figures() const { return figures_; }
  std::string status_line() const;

 private:
  engine::JobReaper reaper_;  // before explorer_: a closed explorer's worker is joined here, not in the frame
  std::unique_ptr<engine::ScheduleExplorer> explorer_;
  std::string run_dir_;
  config::RunConfig trained_;
  uint64_t requested_ = 0;
  std::shared_ptr<const engine::ExploreSnapshot> snapshot_;
  std::vector<figures::NamedFigure> figures_;
};

}  // namespace proteus::gui
