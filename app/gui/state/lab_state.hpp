// The window's state, grouped by what it belongs to: the experiment being edited, the runs
// browser, Explore, the Teach stream, export, the display (scale, presentation view, help) and
// the status line. LabApp owns one of each; a panel reads and writes the group it draws.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "app/gui/state/content_fit.hpp"
#include "app/gui/state/experiment_editor.hpp"
#include "app/gui/state/explore_session.hpp"
#include "app/gui/state/lesson_layout.hpp"
#include "app/gui/state/runs_browser.hpp"
#include "app/gui/state/runs_table.hpp"
#include "app/gui/state/teaching_stepper.hpp"
#include "app/gui/view/panel_state.hpp"
#include "app/gui/view/ui_scale.hpp"
#include "core/figures/figure_export.hpp"

namespace proteus::gui {

// The experiment in the controls, and what the window derives from it (LabApp::editor_changed).
struct EditorState {
  ExperimentEditor experiment;
  std::string problem;                        // the config's first problem, "" when it is valid
  std::optional<figures::Figure> activation;  // the schedule's activation map, when it can be drawn
  std::string activation_error;               // why it cannot
  std::optional<figures::Figure> state_opening;  // which elements those blocks are (E > 1)
  std::vector<PresetFile> presets;
  std::string preset_label;  // the preset the editor was loaded from, or ""
  ControlsPanelState controls;
  ActivationPanelState activation_panel;
};

// The runs folder and the runs opened from it.
struct RunsState {
  std::filesystem::path dir;
  RunsBrowser browser;
  RunsPanelState panel;
  SortSpec sort;  // the table's sort (its header's sort specs, or --runs-sort)
  RunsView view;  // the table's lines, recomputed when the scan, filter, sort or open groups change
};

// A trained run under an edited schedule.
struct ExploreState {
  ExploreSession session;
  ExplorePanelState panel;
};

// The Teach stream and its playback: buttons and keys both drive it (LabApp::teaching_*).
struct TeachState {
  TeachingStepper stepper;
  bool playing = false;
  double next_step_s = 0;  // ImGui time of the next step while playing
  float steps_per_s = 2.0f;
};

// Where and how figures are exported.
struct ExportState {
  std::string dir = "exports";
  figures::ExportSettings settings;
  ExportChoice choice;
};

// How the window is shown: the UI scale (main.cpp rebuilds the fonts between frames when a scale
// is requested), the presentation view (F11) and the shortcuts overlay (F1).
struct DisplayState {
  float ui_scale = 1.0f;          // the scale the fonts were built at
  float default_ui_scale = 1.0f;  // the monitor's (Ctrl 0)
  UiFonts fonts;                  // the atlas's fonts at ui_scale (the presentation view's large type)
  bool presenting = false;
  int presented_figure = 0;  // which of LabApp::presentation_figures() (arrows step)
  float presented_text_step = 1.0f;  // the presented figure's text, of the presentation font (last frame)
  LessonTextScale lesson_text;  // the presented Teach lesson's text, fitted to the window
  std::vector<DrawnContent> drawn_content;  // this frame's grids, plots and colour bars (content_check.hpp)
  bool help_open = false;
};

enum class Notice { info, error };

// The last notice at the bottom of the window, and the recent ones (its tooltip).
struct StatusLine {
  std::string text;
  bool is_error = false;
  std::vector<std::string> log;
  void post(const std::string& message, Notice kind);
};

}  // namespace proteus::gui
