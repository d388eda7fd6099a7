// Explore: a finished run's schedule as live controls over its trained weights. Every edit is
// sent to the explorer's worker (the newest wins); the figures show the latest evaluated edit
// over the trained schedule's curve, with their ratio. NIAH and the inference sweeps on request.
// No math here: the edit is an ExperimentEditor, the work is core/engine/schedule_explore.
#include <imgui.h>

#include <algorithm>

#include "app/gui/view/lab_app.hpp"
#include "app/gui/view/schedule_controls.hpp"
#include "app/gui/view/widgets.hpp"

namespace proteus::gui {
namespace {

// The edited schedule's controls, and N as multiples of the training length; true when the edit changed.
bool draw_schedule_row(ExperimentEditor& ed) {
  bool changed = draw_schedule_controls(ed, ScheduleLayout::new_row);
  if (ed.config().model.mixer.N > 0) {
    const int L = ed.config().data.seq_len;
    for (const auto& [label, n] : {std::pair{"x0.5", std::max(1, L / 2)}, {"x1", L}, {"x2", 2 * L}, {"x4", 4 * L}}) {
      flow_same_line(ImGui::CalcTextSize(label).x + 2 * ImGui::GetStyle().FramePadding.x);
      if (ImGui::SmallButton(label)) ed.set_N(n), changed = true;
    }
  }
  return changed;
}

}  // namespace

void draw_explore_panel(LabApp& app) {
  auto& x = app.explore.session;
  if (!x.is_open()) {
    ImGui::TextWrapped("Explore puts a trained model's schedule under your hands: E, the horizon N, the schedule "
                       "and its unlock points become live controls over the trained weights, and the per-position "
                       "perplexity and block occupancy are evaluated again at every edit.");
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("Open a finished run with its \"explore\" button in the Runs tab (or Training, once it is done).");
    ImGui::PopTextWrapPos();
    return;
  }
  const auto s = x.snapshot();
  ImGui::Text("%s", s ? s->run_name.c_str() : x.run_dir().c_str());
  ImGui::SameLine();
  if (ImGui::SmallButton("close")) {
    x.close();
    return;
  }
  ImGui::SameLine();
  const std::string status = x.status_line();
  ImGui::PushTextWrapPos(0.0f);
  if (s && !s->error.empty()) ImGui::TextColored(kErrorColour, "%s", status.c_str());
  else ImGui::TextDisabled("%s", status.c_str());
  ImGui::PopTextWrapPos();

  bool changed = draw_schedule_row(x.edit);
  ImGui::SetNextItemWidth(ui_px(110));
  int seqs = x.sequences;
  bool settings = false;
  if (input_int("sequences (0 = run's)", seqs, 0, 4096, 8, 64)) x.sequences = seqs, settings = true;
  flow_same_line(ui_px(110) + label_width("positions (0 = run's)"));
  int pos = x.positions;
  ImGui::SetNextItemWidth(ui_px(110));
  if (input_int("positions (0 = run's)", pos, 0, 1 << 16, 128, 1024)) x.positions = pos, settings = true;
  const auto button_width = [](const char* label) { return ImGui::CalcTextSize(label).x + 2 * ImGui::GetStyle().FramePadding.x; };
  flow_same_line(button_width("Evaluate NIAH"));
  if (ImGui::Button("Evaluate NIAH")) {
    if (const auto err = x.submit({.niah = true}); !err.empty()) app.notify_error(err);
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("the NIAH grid of the run's eval section, for both schedules (slow)");
  flow_same_line(button_width("Sweep N"));
  if (ImGui::Button("Sweep N")) {
    if (const auto err = x.sweep("N"); !err.empty()) app.notify_error(err);
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("N in 0.5, 1, 2, 4 x the training length, one figure");
  flow_same_line(button_width("Sweep E"));
  if (ImGui::Button("Sweep E")) {
    if (const auto err = x.sweep("E"); !err.empty()) app.notify_error(err);
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("E in 1, 2, 4, 8, 16, 32, one figure");
  flow_same_line(button_width("Trained schedule"));
  if (ImGui::Button("Trained schedule")) x.reset();

  // The edited schedule's map with its unlock handles, before any evaluation: instant.
  try {
    const auto map_fig = x.edit.activation_figure();
    const float w = ImGui::GetContentRegionAvail().x;
    const DrawnFigure map = draw_figure("explore-map", map_fig, ImVec2(w, readable_figure_height(map_fig, w, ui_px(150))));
    if (x.edit.config().model.mixer.schedule.type == memory::ScheduleType::custom)
      changed |= draw_unlock_strip(x.edit, app.explore.panel.dragging_unlock, map, w);
  } catch (const std::exception& e) {
    ImGui::TextColored(kErrorColour, "%s", e.what());
  }
  if (changed || settings) {
    if (const auto err = x.submit(); !err.empty()) app.notify_error(err);
  }
  draw_export_controls(app, x.figures(), "explore-export");
  ImGui::BeginChild("explore-figures", ImVec2(0, 0), false);
  if (x.figures().empty()) ImGui::TextDisabled("evaluating the trained schedule...");
  draw_figure_grid(x.figures(), 2, ui_px(280));
  ImGui::EndChild();
}

}  // namespace proteus::gui
