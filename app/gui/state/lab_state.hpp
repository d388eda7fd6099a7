// The window's state, grouped by what it belongs to: the experiment being edited, the runs
// browser, Explore, export and the display (scale, presentation view, help); the Teach stream and
// the status line have files of their own. LabSession owns one of each; a panel reads and writes
// the group it draws. No ImGui: the fonts are the view's (LabApp::fonts).
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "app/gui/state/content_fit.hpp"
#include "app/gui/state/experiment_editor.hpp"
#include "app/gui/state/explore_session.hpp"
#include "app/gui/state/lesson_layout.hpp"
#include "app/gui/state/panel_state.hpp"
#include "app/gui/state/runs_browser.hpp"
#include "app/gui/state/runs_table.hpp"
#include "core/figures/figure_export.hpp"

namespace proteus::gui {

// The experiment in the controls, and what the window derives from it (LabSession::editor_changed).
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
  bool presenting = false;
  int presented_figure = 0;  // which of LabSession::presentation_figures() (arrows step)
  float presented_text_step = 1.0f;  // the presented figure's text, of the presentation font (last frame)
  LessonTextScale lesson_text;  // the presented Teach lesson's text, fitted to the window
  std::vector<DrawnContent> drawn_content;  // this frame's grids, plots and colour bars (content_check.hpp)
  bool help_open = false;
};

}  // namespace proteus::gui
