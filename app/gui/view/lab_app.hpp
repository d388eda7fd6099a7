// The window's whole state and its frame: the controls on the left, the views in tabs on the
// right (activation map, training, runs, teaching), a status line at the bottom. Each panel is its
// own file (draw_*_panel) and keeps what its widgets hold here (panel_state.hpp); the logic they
// call lives in app/gui/state and is tested headlessly.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "app/gui/state/device_info.hpp"
#include "app/gui/state/experiment_editor.hpp"
#include "app/gui/state/explore_session.hpp"
#include "app/gui/state/figure_export.hpp"
#include "app/gui/state/runs_browser.hpp"
#include "app/gui/state/teaching_stepper.hpp"
#include "app/gui/state/training_session.hpp"
#include "app/gui/view/panel_state.hpp"
#include "app/gui/view/plot_view.hpp"

namespace proteus::gui {

enum class Tab { activation, training, runs, explore, teach };

class LabApp {
 public:
  LabApp(std::filesystem::path source_root, std::filesystem::path runs_dir);

  void frame();  // the UI of one frame, between ImGui::NewFrame and ImGui::Render

  // Actions the panels and the scripted runs share.
  void load_experiment(const std::filesystem::path& file);  // errors go to the status line
  bool start_training();                                     // false (and a message) when refused
  void start_export(const std::vector<figures::NamedFigure>& figs, const std::filesystem::path& dir);
  bool export_busy() const { return export_job_.valid() && export_job_.running(); }
  void notify(const std::string& message, bool error = false);
  // The editor changed: revalidate and redraw the activation map.
  void editor_changed();
  void show(Tab t) { requested_tab_ = t; }
  // Puts a finished run in Explore (errors go to the status line); false when it cannot.
  bool open_explore(const std::string& run_dir);

  std::filesystem::path source_root, runs_dir;
  std::string export_dir = "exports";
  ExperimentEditor editor;
  TrainingSession training;
  RunsBrowser runs;
  TeachingStepper teaching;
  ExploreSession explore;
  DeviceInfo device;
  figures::ExportSettings export_settings;

  // Cached from the editor (rebuilt by editor_changed).
  std::string problem;
  std::optional<figures::Figure> activation;
  std::string activation_error;
  std::vector<PresetFile> presets;
  std::string preset_label;  // the preset the editor was loaded from, or ""

  // The panels' widgets between frames.
  ControlsPanelState controls_panel;
  RunsPanelState runs_panel;
  ActivationPanelState activation_panel;
  ExplorePanelState explore_panel;
  ExportChoice export_choice;

  // Teaching playback.
  bool teaching_playing = false;
  double teaching_next_step_s = 0;
  float teaching_steps_per_s = 2.0f;

  std::string status;         // the last notice
  bool status_is_error = false;
  std::vector<std::string> log;

 private:
  void draw_status_bar();
  ExportHandle export_job_;
  std::optional<Tab> requested_tab_;
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
// Handles for a custom schedule's unlock points u_2..u_E on a strip under an activation map drawn
// at `map`; `dragging` is the panel's held handle. True when a point moved.
bool draw_unlock_strip(ExperimentEditor& editor, int& dragging, const DrawnFigure& map, float width);
// Figures in a grid of `columns`, each `height` pixels tall.
void draw_figure_grid(const std::vector<figures::NamedFigure>& figs, int columns, float height);
// Export buttons for a set of figures: folder, formats, size; runs on a worker.
void draw_export_controls(LabApp& app, const std::vector<figures::NamedFigure>& figs, const char* id);

}  // namespace proteus::gui
