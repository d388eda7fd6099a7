// Training: start / pause / resume / stop, progress and speed, the runs' table, and the live
// figures rebuilt from each new snapshot (the render loop never waits on the worker).
#include <imgui.h>

#include <cmath>

#include "app/gui/view/lab_app.hpp"

namespace proteus::gui {

void draw_training_panel(LabApp& app) {
  auto& tr = app.training;
  const bool active = tr.active();
  ImGui::BeginDisabled(active || !app.editor.problem.empty());
  if (ImGui::Button("Start")) app.start_training();
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::BeginDisabled(!active);
  if (tr.paused()) {
    if (ImGui::Button("Resume")) tr.resume();
  } else if (ImGui::Button("Pause")) {
    tr.pause();
  }
  ImGui::SameLine();
  if (ImGui::Button("Stop")) {
    tr.resume();  // a paused worker must wake to see the cancel
    tr.stop();
    app.notify("stopping: the run is checkpointed and can be resumed from the Runs tab");
  }
  ImGui::EndDisabled();
  ImGui::SameLine();
  const auto p = tr.progress();
  ImGui::ProgressBar(static_cast<float>(p.fraction), ImVec2(-1, 0));
  ImGui::TextWrapped("%s", tr.status_line().c_str());

  const auto* s = tr.snapshot();
  if (!s) {
    if (!tr.started()) ImGui::TextDisabled("Set up the experiment on the left, then Start.");
    return;
  }
  if (ImGui::BeginTable("runs", 7, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingStretchProp)) {
    // The run's name and its state (with the explore button) are read whole; the numbers share the rest.
    ImGui::TableSetupColumn("run", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableSetupColumn("state", ImGuiTableColumnFlags_WidthFixed);
    for (const char* h : {"step", "tokens/s", "val bpb", "elapsed", "device"}) ImGui::TableSetupColumn(h);
    ImGui::TableHeadersRow();
    for (size_t i = 0; i < s->runs.size(); ++i) {
      const auto& r = s->runs[i];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      const auto c = figures::palette(static_cast<int>(i));
      ImGui::TextColored(ImVec4(c[0], c[1], c[2], 1), "%s", r.name.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(engine::run_phase_name(r.state));
      if (!r.message.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", r.message.c_str());
      if (r.state == engine::RunPhase::finished && !r.run_dir.empty()) {
        ImGui::SameLine();
        ImGui::PushID(static_cast<int>(i));
        if (ImGui::SmallButton("explore")) app.open_explore(r.run_dir);
        ImGui::PopID();
      }
      ImGui::TableNextColumn();
      ImGui::Text("%d / %d", r.step, r.total_steps);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.tokens_per_s > 0 ? format_rate(r.tokens_per_s).c_str() : "");
      ImGui::TableNextColumn();
      if (r.val_bpb >= 0) ImGui::Text("%.3f", r.val_bpb);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(format_duration(r.elapsed_s).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.device.c_str());
    }
    ImGui::EndTable();
  }
  ImGui::PushTextWrapPos(0.0f);
  for (const auto& m : s->messages) ImGui::TextDisabled("%s", m.c_str());
  ImGui::PopTextWrapPos();
  draw_export_controls(app, tr.figures(), "train-export");
  ImGui::BeginChild("live", ImVec2(0, 0), false);
  draw_figure_grid(tr.figures(), 2, ui_px(300));
  ImGui::EndChild();
}

}  // namespace proteus::gui
