// A scripted session, for CI under Xvfb and for making the README's screenshots: load a preset,
// apply overrides, train, export the figures, present a view, save a screenshot (checked for cut
// text), write the frame times, quit.
// Each frame the script looks at the session (the window's state and actions, no drawing) and
// takes its next step; it never blocks the loop. An action's failure is what it returns.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "app/gui/state/lab_session.hpp"

namespace proteus::gui {

struct ScriptOptions {
  std::string preset;                 // experiment file to load first
  std::vector<std::string> sets;      // "path=value" overrides of the loaded config
  std::string save;                   // then save the experiment as the Save button does (LabSession::save_experiment)
  std::string tab;                    // activation | training | runs | explore | teach
  int teach_step = -1;                // teaching panel: go to this token
  bool overlay = false;               // runs browser: overlay every run in the runs folder
  std::string runs_filter;            // runs browser: the filter box's text
  std::string runs_sort;              // runs browser: sort column ("bpb", "model.mixer.E"; "bpb-": descending)
  bool runs_ungrouped = false;        // runs browser: no seed-group rows
  int frames = 0;                     // with quit: frames drawn once done, before quitting (frame times)
  bool train = false;                 // start training (the loaded mode: compare, sweep or one run)
  std::string explore;                // open this run in Explore ("trained": the run just trained)
  std::vector<std::string> explore_sets;  // schedule edits there: "model.mixer.N=1024" (x4: "model.mixer.N=x4")
  int explore_sequences = 0;          // Explore's evaluation: sequences x positions (0 = the run's)
  int explore_positions = 0;
  std::string explore_sweep;          // then an inference sweep over "N" or "E"
  std::string export_dir;             // export the training (or runs, or Explore) figures here once done
  std::string present;                // then the presentation view: "teach", or a figure of the tab ("per_position")
  bool help = false;                  // then the shortcuts overlay
  std::string screenshot;             // PNG of the window once everything above is done
  bool check_text = false;            // fail (exit 1) when the screenshot's frame has cut-off text
  bool check_content = false;         // ... or a cut or squeezed grid, plot or colour bar
  std::string frame_stats;            // JSON of frame times, written at exit
  bool quit = false;                  // exit when done
  double timeout_s = 0;               // give up (exit status 1) after this long; 0 = never
  bool any() const {
    return !preset.empty() || !sets.empty() || !save.empty() || train || overlay || !runs_filter.empty() || !runs_sort.empty() || runs_ungrouped || !explore.empty() || !export_dir.empty() ||
           !screenshot.empty() || !present.empty() || help || quit;
  }
};

class ScriptedRun {
 public:
  explicit ScriptedRun(ScriptOptions o) : o_(std::move(o)) {}
  // Called once per frame before the UI is built. Returns false when the app should exit now
  // (exit_code() says how).
  bool step(LabSession& session, double now_s);
  // After the frame is rendered: the screenshot path to capture now, or "".
  std::string screenshot_due() const { return phase_ == Phase::screenshot && settle_frames_ <= 0 ? o_.screenshot : ""; }
  void screenshot_taken(bool ok);
  // The screenshot's frame, checked when --check-text asked: cut text (each piece described, as
  // text_check.hpp's describe_cut_text says it) fails the run, after the screenshot is written so
  // that it shows what was cut.
  bool text_check_due() const { return o_.check_text && !screenshot_due().empty(); }
  void text_checked(const std::vector<std::string>& cut);
  // The same frame's grids, plots and colour bars, when --check-content asked (content_fit.hpp).
  bool content_check_due() const { return o_.check_content && !screenshot_due().empty(); }
  void content_checked(const std::vector<std::string>& problems);
  int exit_code() const { return exit_code_; }
  const std::string& failure() const { return failure_; }

 private:
  enum class Phase { start, training, explore_edit, explore_sweep, exporting, screenshot, done };
  // One step per phase; each returns what step() returns.
  bool begin(LabSession& session);           // the start options, then training, Explore or the export
  bool after_training(LabSession& session);  // once the job is done: the trained runs in the browser
  bool after_explore(LabSession& session);   // once Explore settled: its sweep, then the export
  bool after_export(LabSession& session);    // once the export is done: the presentation view, the help
  // Exports `figs` to --export's folder (nothing without one).
  void start_export(LabSession& session, const std::vector<figures::NamedFigure>& figs);
  bool start_explore(LabSession& session);  // false when it failed (fail() called)
  bool start_presentation(LabSession& session);  // false when it failed
  bool apply_start_options(LabSession& session);  // preset, overrides, tab, overlay; false when it failed
  void fail(const std::string& why, int code);
  ScriptOptions o_;
  Phase phase_ = Phase::start;
  int settle_frames_ = 3;  // frames drawn after the last change before the screenshot
  int done_frames_ = 0;    // frames drawn since the steps were done (--frames)
  std::optional<ActionResult> export_start_;  // what starting --export's export did, once tried
  std::string trained_run_;  // the last run the script trained
  int exit_code_ = 0;
  std::string failure_;
};

}  // namespace proteus::gui
