// The left column: presets, the config file, the run mode, the run's settings
// (controls_settings.cpp) and Train. Any edit calls editor_changed(), so the activation map and
// the problem line follow at once.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cfloat>
#include <filesystem>

#include "app/gui/view/kept_grid_view.hpp"
#include "app/gui/view/lab_app.hpp"
#include "app/gui/view/save_controls.hpp"
#include "app/gui/view/sweep_controls.hpp"
#include "app/gui/view/widgets.hpp"

namespace proteus::gui {

namespace {

// The combo shows the preset the editor was loaded from, whichever way it was loaded.
void draw_preset_combo(LabApp& app) {
  const std::string current = app.editor.preset_label.empty() ? "(choose a preset)" : app.editor.preset_label;
  ImGui::SetNextItemWidth(-(ImGui::CalcTextSize("preset").x + ImGui::GetStyle().ItemSpacing.x));
  if (ImGui::BeginCombo("##preset", current.c_str())) {
    for (const auto& p : app.editor.presets)
      if (ImGui::Selectable(p.label.c_str(), p.label == current)) app.load_experiment(p.path);
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  ImGui::TextDisabled("preset");
}

}  // namespace

void draw_controls_panel(LabApp& app) {
  auto& ed = app.editor.experiment;
  bool changed = false;
  // Every field leaves room for the longest label beside it, whatever the column's width.
  ImGui::PushItemWidth(-label_width("text file or folder"));

  ImGui::TextUnformatted("Experiment");
  draw_preset_combo(app);
  auto& state = app.editor.controls;
  std::string& file = state.experiment_file;
  if (!ed.source.empty() && file == ControlsPanelState().experiment_file) file = ed.source;
  // Beside the buttons when the whole path fits there, else on a line of its own; a path too long
  // for either shows its end (path_field).
  const float buttons = ImGui::CalcTextSize("LoadSave").x + ImGui::GetStyle().FramePadding.x * 4 +
                        ImGui::GetStyle().ItemSpacing.x * 2;
  const bool beside = field_width_for(file, 0) + buttons <= ImGui::GetContentRegionAvail().x;
  ImGui::SetNextItemWidth(beside ? -buttons : -FLT_MIN);
  path_field("##file", file);
  if (beside) ImGui::SameLine();
  if (ImGui::Button("Load")) app.load_experiment(file);
  ImGui::SameLine();
  draw_save_buttons(app);

  int mode = static_cast<int>(ed.mode());
  const auto radio_width = [](const char* label) { return ImGui::GetFrameHeight() + label_width(label); };
  changed |= ImGui::RadioButton("one run", &mode, 0);
  flow_same_line(radio_width("compare with E = 1"));
  changed |= ImGui::RadioButton("compare with E = 1", &mode, 1);
  flow_same_line(radio_width("sweep"));
  changed |= ImGui::RadioButton("sweep", &mode, 2);
  if (!ed.kept_variants().empty()) {
    // Offered only with a file's own variants: there is nothing else for it to train.
    flow_same_line(radio_width("the file's variants"));
    changed |= ImGui::RadioButton("the file's variants", &mode, static_cast<int>(RunMode::variants));
  }
  if (mode != static_cast<int>(ed.mode())) ed.set_mode(static_cast<RunMode>(mode));
  if (ed.mode() == RunMode::sweep_e) changed |= draw_sweep_controls(app);
  changed |= draw_kept_grid(app);
  changed |= ed.edit_config([](config::RunConfig& c) {
    bool edited = ImGui::InputText("name", &c.name);
    int seed = static_cast<int>(c.seed);
    if (input_int("seed", seed, 0, 1 << 30)) c.seed = static_cast<uint64_t>(seed), edited = true;
    return edited;
  });
  int seeds = ed.seeds();
  if (input_int("seeds", seeds, 1, kMaxSeeds)) ed.set_seeds(seeds), changed = true;
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Train each run once per seed (seed, seed + 1, ...): the plots show each group's mean\n"
                      "with a 95%% interval over its seeds, and groups/ in the runs folder holds the numbers.");

  changed |= draw_run_settings(app);
  ImGui::PopItemWidth();
  if (changed) app.editor_changed();

  ImGui::Separator();
  if (!app.editor.problem.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, kErrorColour);
    ImGui::TextWrapped("%s", app.editor.problem.c_str());
    ImGui::PopStyleColor();
  }
  const bool can_start = app.editor.problem.empty() && !app.training.active();
  ImGui::BeginDisabled(!can_start);
  const char* label = ed.mode() == RunMode::compare   ? "Train baseline and Proteus"
                      : ed.mode() == RunMode::sweep_e  ? "Train the sweep"
                      : ed.mode() == RunMode::variants ? "Train the file's variants"
                                                     : "Train";
  if (ImGui::Button(label, ImVec2(-1, 0))) app.start_training();
  ImGui::EndDisabled();
}

}  // namespace proteus::gui
