// The runs browser: the runs folder's run directories (and any opened by path), overlaid.
#include <imgui.h>
#include <imgui_stdlib.h>

#include "app/gui/view/lab_app.hpp"
#include "app/gui/view/widgets.hpp"

namespace proteus::gui {
namespace {

// The Slurm jobs of the runs folder (`proteus jobs` without squeue): each run's state and why.
void draw_jobs(const RunsBrowser& rb) {
  for (const auto& u : rb.unreadable()) ImGui::TextDisabled("%s", u.c_str());  // named, and the rest still shown
  if (rb.jobs().empty() || !ImGui::CollapsingHeader("Slurm jobs", ImGuiTreeNodeFlags_DefaultOpen)) return;
  for (const auto& j : rb.jobs()) {
    ImGui::PushID(j.path.c_str());
    ImGui::Text("job %s", j.name.c_str());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", j.path.c_str());
    if (!j.error.empty()) ImGui::TextDisabled("%s", j.error.c_str());
    if (!j.runs.empty() && ImGui::BeginTable("job", 3, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
      for (const char* h : {"run", "state", "why"}) ImGui::TableSetupColumn(h);
      ImGui::TableHeadersRow();
      for (const auto& r : j.runs) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(r.name.c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(r.state.c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(r.reason.c_str());
      }
      ImGui::EndTable();
    }
    ImGui::PopID();
  }
}

float button_width(const char* label) { return ImGui::CalcTextSize(label).x + 2 * ImGui::GetStyle().FramePadding.x; }

// The runs folder (Rescan) and a run opened by path. The fields take the row's width: a path is
// read whole where the panel allows.
void draw_folder_fields(LabApp& app) {
  auto& rb = app.runs.browser;
  auto& runs_dir = app.runs.panel.folder;
  auto& open_path = app.runs.panel.open_path;
  const float spacing = ImGui::GetStyle().ItemSpacing.x;
  ImGui::SetNextItemWidth(-(label_width("runs folder") + spacing + button_width("Rescan")));
  ImGui::InputText("runs folder", &runs_dir);
  ImGui::SameLine();
  if (ImGui::Button("Rescan")) {
    app.runs.dir = runs_dir;
    rb.rescan(app.runs.dir);
  }
  ImGui::SetNextItemWidth(-(spacing + button_width("Open run")));
  ImGui::InputTextWithHint("##open", "path/to/a/run", &open_path);
  ImGui::SameLine();
  if (ImGui::Button("Open run")) {
    try {
      rb.add(open_path);
      const auto err = rb.load();
      if (err.empty()) app.notify("opened " + open_path);
      else app.notify_error(err);
    } catch (const std::exception& e) {
      app.notify_error(e.what());
    }
  }
}

// A run's state, with resume (a stopped run) and explore (a trained one) beside it.
void draw_state_cell(LabApp& app, const RunEntry& e) {
  ImGui::TextUnformatted(e.state.c_str());
  if (e.resumable()) {
    ImGui::SameLine();
    ImGui::BeginDisabled(app.training.active());
    if (ImGui::SmallButton("resume")) {
      try {
        app.training.resume_run(e.path);
        app.show(Tab::training);
      } catch (const std::exception& ex) {
        app.notify_error(ex.what());
      }
    }
    ImGui::EndDisabled();
  }
  if (e.state == "finished" || e.state == "cancelled") {
    ImGui::SameLine();
    if (ImGui::SmallButton("explore")) app.open_explore(e.path);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("edit this model's schedule and watch its curves move");
  }
}

// The table of runs, a tick per run to overlay it; true when a tick changed.
bool draw_runs_table(LabApp& app) {
  bool selection_changed = false;
  if (!ImGui::BeginTable("runs", 5, ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingStretchProp,
                         ImVec2(0, ui_px(160))))
    return false;
  ImGui::TableSetupScrollFreeze(0, 1);
  // Fixed columns fit their header and cells (a run's name is read whole); the model summary
  // takes the rest, wrapped.
  ImGui::TableSetupColumn("overlay", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("run", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("state", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("step", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("model", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableHeadersRow();
  for (auto& e : app.runs.browser.entries()) {
    ImGui::PushID(e.path.c_str());
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    selection_changed |= ImGui::Checkbox("##sel", &e.selected);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(e.name.c_str());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", e.path.c_str());
    ImGui::TableNextColumn();
    draw_state_cell(app, e);
    ImGui::TableNextColumn();
    ImGui::Text("%lld", static_cast<long long>(e.step));
    ImGui::TableNextColumn();
    ImGui::TextWrapped("%s", e.summary.c_str());
    ImGui::PopID();
  }
  ImGui::EndTable();
  return selection_changed;
}

// Copies the ticked runs' folders, with their figures, to the export folder.
void draw_export_folders(LabApp& app) {
  const auto& rb = app.runs.browser;
  flow_same_line(button_width("Export run folders"));
  ImGui::BeginDisabled(rb.selected().empty());
  if (ImGui::Button("Export run folders")) {
    try {
      std::vector<std::string> unreadable;
      for (const auto& p : rb.selected()) export_run_folder(p, app.exports.dir, app.exports.settings, &unreadable);
      app.notify("copied " + std::to_string(rb.selected().size()) + " runs with their figures to " + app.exports.dir);
      for (const auto& u : unreadable) app.notify_error(u);
    } catch (const std::exception& ex) {
      app.notify_error(ex.what());
    }
  }
  ImGui::EndDisabled();
}

}  // namespace

void draw_runs_panel(LabApp& app) {
  auto& rb = app.runs.browser;
  draw_folder_fields(app);
  const bool selection_changed = draw_runs_table(app);
  if (rb.entries().empty()) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("No runs in %s yet: train one, or open a run folder by path.", app.runs.panel.folder.c_str());
    ImGui::PopTextWrapPos();
  }
  draw_jobs(rb);
  if (selection_changed) {
    const auto err = rb.load();
    if (!err.empty()) app.notify_error(err);
  }
  draw_export_controls(app, rb.figures(), "runs-export");
  draw_export_folders(app);
  ImGui::BeginChild("overlay", ImVec2(0, 0), false);
  draw_figure_grid(rb.figures(), 2, ui_px(300));
  ImGui::EndChild();
}

}  // namespace proteus::gui
