// The window without its drawing: every state group (lab_state.hpp) and the actions the panels,
// the keys and the scripted runs share (load, save, train, explore, export, the status line, the
// tab shown, the presentation view). Each action posts what happened to the status line and
// returns it (ActionResult), so a caller never reads the line back. LabApp (app/gui/view) is this
// drawn; the tests drive it headless.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "app/gui/state/action_result.hpp"
#include "app/gui/state/device_info.hpp"
#include "app/gui/state/figure_export.hpp"
#include "app/gui/state/lab_state.hpp"
#include "app/gui/state/status_line.hpp"
#include "app/gui/state/tabs.hpp"
#include "app/gui/state/teaching_playback.hpp"
#include "app/gui/state/training_session.hpp"

namespace proteus::gui {

class LabSession {
 public:
  // Opens the quickstart (or valid defaults) and starts scanning `runs_dir` on a worker.
  LabSession(std::filesystem::path source_root, std::filesystem::path runs_dir);

  // What the workers published since the last frame: training (a finished job rescans the runs
  // folder), the runs folder's scan, Explore, the export (its end is posted). Once a frame.
  void poll_workers();

  // A relative name is found as `proteus train` finds it (config::find_preset): here, then the
  // user's experiments folder, then the shipped presets. path: the file read.
  ActionResult load_experiment(const std::filesystem::path& file);
  // Where Save writes the file a path field names (config::save_path: the user's experiments folder
  // for a new name or a shipped preset, never /usr/share); the field itself when that cannot be said.
  std::filesystem::path save_target(const std::string& field) const;
  // Saving to `target` replaces a file this window did not write (one of the user's from before):
  // the Save buttons ask first.
  bool save_asks_first(const std::filesystem::path& target) const;
  // Writes the edited experiment to save_target(field), making the user's experiments folder on the
  // first save; the path field then names the file written (path), so Load reads it back.
  ActionResult save_experiment(const std::string& field);
  // The editor's runs (compare, sweep, variants or one run); refused while a job runs.
  ActionResult start_training();
  // Puts a finished run in Explore and shows its tab.
  ActionResult open_explore(const std::string& run_dir);
  // `figs` written to `dir` on a worker; refused when there is nothing to export or one is running.
  ActionResult start_export(const std::vector<figures::NamedFigure>& figs, const std::filesystem::path& dir);
  bool export_busy() const { return export_job_.valid() && export_job_.running(); }
  double export_fraction() const;  // of the running export's files
  void cancel_export();
  // How the last export ended (its files, or why it failed), once it has.
  const std::optional<ActionResult>& export_ended() const { return export_ended_; }

  void notify(const std::string& message);        // the status line and its log
  void notify_error(const std::string& message);  // the same, in red
  // The editor changed: revalidate and redraw the activation map.
  void editor_changed();
  // The editor's runs go to the window's runs folder, not the file's.
  void use_runs_dir();
  void show(Tab t) { requested_tab_ = t, current_tab_ = t; }
  Tab current_tab() const { return current_tab_; }

  // UI scale: the window rebuilds its fonts between frames when a scale is requested (main.cpp:
  // take_ui_scale_request, then apply_ui_scale and the new font texture).
  void request_ui_scale(float scale);  // clamped to the range; the status line says the new scale
  std::optional<float> take_ui_scale_request();
  float requested_ui_scale() const { return ui_scale_request_.value_or(display.ui_scale); }

  // The presentation view (F11): the tab shown when it was entered, full-window in large type.
  void toggle_presentation();
  // The figures the presentation view steps through: the current tab's (training, runs, explore,
  // the activation map); empty for the Teach tab, which is presented whole.
  const std::vector<figures::NamedFigure>& presentation_figures() const;

  std::filesystem::path source_root;
  EditorState editor;
  TrainingSession training;
  RunsState runs;
  ExploreState explore;
  TeachState teach;
  ExportState exports;
  DisplayState display;
  StatusLine status_line;
  DeviceInfo device;

 protected:
  std::optional<Tab> requested_tab_;  // selected by the tab bar from the next frame on
  Tab current_tab_ = Tab::activation;

 private:
  ActionResult report(ActionResult r);  // posts r's message (in red when it failed) and returns it
  ExportHandle export_job_;
  std::optional<ActionResult> export_ended_;
  std::vector<figures::NamedFigure> activation_figures_;  // the activation map, presented as a figure
  std::optional<float> ui_scale_request_;
};

}  // namespace proteus::gui
