// The window's whole state and its frame: the controls on the left, the views in tabs on the
// right (activation map, training, runs, teaching), a status line at the bottom; or, in the
// presentation view, one tab's figures or the Teach stream filling the window in large type; the
// help overlay over either. Each panel is its own file (draw_*_panel) and keeps what its widgets
// hold in the state group it draws (lab_state.hpp); the logic they call lives in app/gui/state and
// is tested headlessly.
#pragma once
#include <filesystem>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "app/gui/state/device_info.hpp"
#include "app/gui/state/figure_export.hpp"
#include "app/gui/state/tabs.hpp"
#include "app/gui/state/training_session.hpp"
#include "app/gui/view/lab_state.hpp"
#include "app/gui/view/plot_view.hpp"
#include "app/gui/view/shortcuts.hpp"

namespace proteus::gui {

class LabApp {
 public:
  LabApp(std::filesystem::path source_root, std::filesystem::path runs_dir);

  void frame();  // the UI of one frame, between ImGui::NewFrame and ImGui::Render

  // Actions the panels and the scripted runs share.
  // A relative name is found as `proteus train` finds it (config::find_preset): here, then the
  // user's experiments folder, then the shipped presets. Errors go to the status line.
  void load_experiment(const std::filesystem::path& file);
  // Where Save writes the file a path field names (config::save_path: the user's experiments folder
  // for a new name or a shipped preset, never /usr/share); the field itself when that cannot be said.
  std::filesystem::path save_target(const std::string& field) const;
  // Writes the edited experiment to save_target(field), making the user's experiments folder on the
  // first save; the path written, or empty (the error on the status line) when it could not.
  std::filesystem::path save_experiment(const std::string& field);
  bool start_training();                                     // false (and a message) when refused
  void start_export(const std::vector<figures::NamedFigure>& figs, const std::filesystem::path& dir);
  bool export_busy() const { return export_job_.valid() && export_job_.running(); }
  void notify(const std::string& message);        // the status line and its log
  void notify_error(const std::string& message);  // the same, in red
  // The editor changed: revalidate and redraw the activation map.
  void editor_changed();
  // The editor's runs go to the window's runs folder, not the file's.
  void use_runs_dir();
  void show(Tab t) { requested_tab_ = t, current_tab_ = t; }
  Tab current_tab() const { return current_tab_; }
  // Puts a finished run in Explore (errors go to the status line); false when it cannot.
  bool open_explore(const std::string& run_dir);

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

  // Teaching playback: buttons and keys both call these (each stops playback but the toggle).
  void teaching_toggle_play();
  void teaching_go_to(int t);

  // UI scale: the window rebuilds its fonts between frames when a scale is requested (main.cpp:
  // take_ui_scale_request, then apply_ui_scale and the new font texture).
  void request_ui_scale(float scale);  // clamped to the range; the status line says the new scale
  std::optional<float> take_ui_scale_request();

  // The presentation view (F11): the tab shown when it was entered, full-window in large type.
  void toggle_presentation();
  // The figures the presentation view steps through: the current tab's (training, runs, explore,
  // the activation map); empty for the Teach tab, which is presented whole.
  const std::vector<figures::NamedFigure>& presentation_figures() const;
  ShortcutContext shortcut_context() const { return {current_tab_ == Tab::teach, display.presenting}; }
  void perform(ShortcutAction action);

 private:
  void draw_status_bar();
  void draw_tabs();
  void draw_menu_bar();  // View: the UI scale, the presentation view, the shortcuts
  void advance_teaching_playback();
  ExportHandle export_job_;
  std::optional<Tab> requested_tab_;
  std::vector<figures::NamedFigure> activation_figures_;  // the activation map, presented as a figure
  Tab current_tab_ = Tab::activation;
  std::optional<float> ui_scale_request_;
};

// Panels (one file each; the controls' settings sections in controls_settings.cpp).
void draw_controls_panel(LabApp& app);
// The model, memory, data, training and device sections of the controls; true when one changed.
bool draw_run_settings(LabApp& app);
void draw_activation_panel(LabApp& app);
void draw_training_panel(LabApp& app);
void draw_runs_panel(LabApp& app);
void draw_teaching_panel(LabApp& app);
void draw_explore_panel(LabApp& app);
// The presentation view: the whole window (presentation_view.cpp).
void draw_presentation_view(LabApp& app);
// The Teach tab's parts the presentation view shares: the lesson's controls on one row
// (transport, E, N) and the stream itself (caption, blocks, both memories: teaching_lesson.cpp),
// at the UI's sizes in a window that scrolls, or fitted to the window (the presentation view).
void draw_teaching_lesson_row(LabApp& app);
enum class LessonFit { scroll, window };
void draw_teaching_lesson(LabApp& app, LessonFit fit);
// The shortcuts of where the window is, over everything, while app.display.help_open (help_overlay.cpp).
void draw_help_overlay(LabApp& app);
// Handles for a custom schedule's unlock points u_2..u_E on a strip under an activation map drawn
// at `map`; `dragging` is the panel's held handle. True when a point moved.
bool draw_unlock_strip(ExperimentEditor& editor, int& dragging, const DrawnFigure& map, float width);
// Figures in a grid of `columns` (one where two would squeeze the plots), each `height` pixels
// tall or taller where its plot area would be under the readable size.
void draw_figure_grid(const std::vector<figures::NamedFigure>& figs, int columns, float height);
// Export buttons for a set of figures: folder, formats, size; runs on a worker.
void draw_export_controls(LabApp& app, const std::vector<figures::NamedFigure>& figs, const char* id);

}  // namespace proteus::gui
