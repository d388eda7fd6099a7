// The window: the session's state and actions (app/gui/state/lab_session.hpp) drawn as a frame:
// the controls on the left, the views in tabs on the right (activation map, training, runs,
// teaching), a status line at the bottom; or, in the presentation view, one tab's figures or the
// Teach stream filling the window in large type; the help overlay over either. Each panel is its
// own file (draw_*_panel), keeps what its widgets hold in the state group it draws, and calls the
// session's actions; their logic is tested headlessly.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "app/gui/state/lab_session.hpp"
#include "app/gui/view/plot_view.hpp"
#include "app/gui/view/shortcuts.hpp"
#include "app/gui/view/ui_scale.hpp"

namespace proteus::gui {

class LabApp : public LabSession {
 public:
  using LabSession::LabSession;

  void frame();  // the UI of one frame, between ImGui::NewFrame and ImGui::Render

  ShortcutContext shortcut_context() const { return {current_tab() == Tab::teach, display.presenting}; }
  void perform(ShortcutAction action);

  UiFonts fonts;  // the atlas's fonts at display.ui_scale (the presentation view's large type)

 private:
  void draw_status_bar();
  void draw_tabs();
  void draw_menu_bar();  // View: the UI scale, the presentation view, the shortcuts
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
