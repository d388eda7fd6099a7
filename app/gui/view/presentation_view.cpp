// The presentation view (F11 or the Present button): for a room, the tab that was shown fills the
// window in the presentation font (1.6 x the UI's). The Teach tab shows its stream with the
// lesson's controls on one row (transport, E, N); another tab shows one of its figures at a time,
// the arrow keys (or the buttons) stepping through them. No controls column, no status line, no
// scrollbar: what it shows is fitted to the window (smaller text where the window is small for
// the UI scale), and the content check (--check-content) fails what the window's edge cuts.
#include <imgui.h>

#include <algorithm>
#include <iterator>
#include <string>

#include "app/gui/state/content_fit.hpp"
#include "app/gui/view/lab_app.hpp"
#include "app/gui/view/plot_view.hpp"
#include "app/gui/view/ui_scale.hpp"
#include "app/gui/view/widgets.hpp"

namespace proteus::gui {
namespace {

// The row every presentation starts with: leave, help; the lesson's controls follow it.
void draw_presentation_row_start(LabApp& app) {
  if (ImGui::Button("Leave (F11)")) app.toggle_presentation();
  ImGui::SameLine();
  if (ImGui::Button("?")) app.display.help_open = !app.display.help_open;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("keyboard shortcuts (F1)");
}

// The figure's labels smaller until its plot area takes most of the view (at least readable):
// the figure fills the view, and the plot, not its labels, fills the figure.
// Text is not shrunk below kPresentationReadableStep while the plot is readable there. Returns the step.
float fit_figure_text(const figures::Figure& f, ImVec2 avail) {
  const float readable = ReadableSizes{}.plot_px;
  const float wanted_h = std::max(readable, 0.45f * avail.y);
  const int n = static_cast<int>(std::size(kPresentationTextSteps));
  for (int i = 0; i < n; ++i) {
    const float k = kPresentationTextSteps[i];
    ImGui::SetWindowFontScale(k);
    const ImVec2 plot = plot_area_size(f, avail);
    if (plot.y >= wanted_h && plot.x >= readable) return k;
    const bool last_readable_step = k >= kPresentationReadableStep && (i + 1 == n || kPresentationTextSteps[i + 1] < kPresentationReadableStep);
    if (last_readable_step && plot.y >= readable && plot.x >= readable) return k;
  }
  return kPresentationTextSteps[n - 1];
}

void draw_presented_figures(LabApp& app) {
  const auto& figs = app.presentation_figures();
  draw_presentation_row_start(app);
  if (figs.empty()) {
    ImGui::TextWrapped("No figures in the %s tab yet: train a run, or tick runs in the Runs tab, then present again.",
                       tab_name(app.current_tab()));
    return;
  }
  app.display.presented_figure = std::clamp(app.display.presented_figure, 0, static_cast<int>(figs.size()) - 1);
  const int n = static_cast<int>(figs.size());
  flow_same_line(ImGui::CalcTextSize("< previous").x + ImGui::GetStyle().FramePadding.x * 2);
  if (ImGui::Button("< previous")) app.perform(ShortcutAction::figure_previous);
  flow_same_line(ImGui::CalcTextSize("next >").x + ImGui::GetStyle().FramePadding.x * 2);
  if (ImGui::Button("next >")) app.perform(ShortcutAction::figure_next);
  const auto& shown = figs[size_t(app.display.presented_figure)];
  const std::string where = "figure " + std::to_string(app.display.presented_figure + 1) + " of " + std::to_string(n) + ": " +
                            shown.name + "   (left/right arrows)";
  flow_same_line(ImGui::CalcTextSize(where.c_str()).x);
  ImGui::TextDisabled("%s", where.c_str());
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  app.display.presented_text_step = fit_figure_text(shown.figure, avail);
  draw_figure(shown.name.c_str(), shown.figure, avail);
  ImGui::SetWindowFontScale(1.0f);
}

// The lesson fitted to the window: its row at the text scale the lesson was fitted at last frame
// (a window small for the UI scale shrinks both), the lesson under it fitted to what is left.
void draw_presented_teaching(LabApp& app) {
  const ImVec2 size = ImGui::GetMainViewport()->WorkSize;
  const auto& e = app.teach.stepper.example();
  ImGui::SetWindowFontScale(app.display.lesson_text.for_room(
      {size.x, size.y, app.display.ui_scale, float(e.d_k), float(e.d_v), float(e.T), float(e.E)}));
  draw_presentation_row_start(app);
  flow_same_line(ui_px(300));
  draw_teaching_lesson_row(app);
  ImGui::Separator();
  draw_teaching_lesson(app, LessonFit::window);
  ImGui::SetWindowFontScale(1.0f);
}

}  // namespace

void draw_presentation_view(LabApp& app) {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->WorkPos);
  ImGui::SetNextWindowSize(vp->WorkSize);
  if (app.fonts.presentation) ImGui::PushFont(app.fonts.presentation);
  ImGui::Begin("Proteus Lab: presentation", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                   ImGuiWindowFlags_NoBringToFrontOnFocus);
  if (app.current_tab() == Tab::teach) draw_presented_teaching(app);
  else draw_presented_figures(app);
  ImGui::End();
  if (app.fonts.presentation) ImGui::PopFont();
}

}  // namespace proteus::gui
