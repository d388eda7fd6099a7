#include "app/gui/view/lab_app.hpp"

#include <imgui.h>

#include <algorithm>

namespace proteus::gui {

LabApp::LabApp(std::filesystem::path root, std::filesystem::path runs)
    : source_root(std::move(root)), runs_dir(std::move(runs)) {
  presets = find_presets(source_root / "experiments");
  device = probe_device();
  editor.config.runs_dir = runs_dir.string();
  runs_panel.folder = runs_dir.string();
  teaching.go_to(0);
  this->runs.rescan(runs_dir);
  editor_changed();
}

void LabApp::notify(const std::string& message, bool error) {
  status = message;
  status_is_error = error;
  log.push_back((error ? "error: " : "") + message);
  if (log.size() > 200) log.erase(log.begin());
}

void LabApp::editor_changed() {
  problem = editor.problem();
  try {
    activation = editor.activation_figure();
    activation_error.clear();
  } catch (const std::exception& e) {
    activation.reset();
    activation_error = e.what();
  }
}

void LabApp::load_experiment(const std::filesystem::path& file) {
  try {
    editor.load(file);
    editor.config.runs_dir = runs_dir.string();  // the window's runs folder, not the file's
    editor_changed();
    preset_label.clear();
    std::error_code ec;
    for (const auto& p : presets)
      if (std::filesystem::equivalent(p.path, file, ec)) preset_label = p.label;
    notify("loaded " + file.string());
    for (const auto& n : editor.notes) notify(n);
  } catch (const std::exception& e) {
    notify(e.what(), true);
  }
}

bool LabApp::start_training() {
  if (training.active()) {
    notify("a training job is running: stop it first", true);
    return false;
  }
  try {
    auto r = editor.runs();
    for (auto& c : r) c.runs_dir = runs_dir.string();
    // Side by side only for one pair: more runs at once would share the cores too thinly.
    const bool side_by_side = editor.mode == RunMode::compare && editor.seeds == 1;
    const size_t count = r.size();
    training.start(std::move(r), side_by_side);
    notify(side_by_side ? "training baseline and Proteus side by side"
                        : count > 1 ? "training " + std::to_string(count) + " runs one after another" : "training started");
    show(Tab::training);
    return true;
  } catch (const std::exception& e) {
    notify(e.what(), true);
    return false;
  }
}

bool LabApp::open_explore(const std::string& run_dir) {
  const auto err = explore.open(run_dir);
  if (!err.empty()) {
    notify(err, true);
    return false;
  }
  notify("exploring " + run_dir + ": edit the schedule, the curves follow");
  show(Tab::explore);
  return true;
}

void LabApp::start_export(const std::vector<figures::NamedFigure>& figs, const std::filesystem::path& dir) {
  if (export_busy()) return;
  if (figs.empty()) {
    notify("nothing to export yet", true);
    return;
  }
  export_job_ = start_figure_export(figs, dir, export_settings);
  notify("exporting " + std::to_string(figs.size()) + " figures to " + dir.string());
}

void LabApp::frame() {
  if (training.refresh()) {
    const auto* s = training.snapshot();
    if (s && s->done) runs.rescan(runs_dir);
  }
  explore.refresh();
  if (export_job_.valid() && !export_job_.running() && export_job_.latest()) {
    const auto r = export_job_.latest();
    if (!r->error.empty()) notify("export failed: " + r->error, true);
    else notify("exported " + std::to_string(r->files.size()) + " files to " + export_dir);
    export_job_ = ExportHandle();
  }

  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->WorkPos);
  ImGui::SetNextWindowSize(vp->WorkSize);
  ImGui::Begin("Proteus Lab", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                   ImGuiWindowFlags_NoBringToFrontOnFocus);
  const float status_h = ImGui::GetFrameHeightWithSpacing() + 4;
  const float left_w = std::min(380.0f, vp->WorkSize.x * 0.32f);
  ImGui::BeginChild("controls", ImVec2(left_w, -status_h), true);
  draw_controls_panel(*this);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("views", ImVec2(0, -status_h), false);
  if (ImGui::BeginTabBar("tabs")) {
    auto tab = [&](const char* name, Tab t, void (*draw)(LabApp&)) {
      ImGuiTabItemFlags flags = 0;
      if (requested_tab_ && *requested_tab_ == t) flags |= ImGuiTabItemFlags_SetSelected;
      if (ImGui::BeginTabItem(name, nullptr, flags)) {
        draw(*this);
        ImGui::EndTabItem();
      }
    };
    tab("Activation map", Tab::activation, draw_activation_panel);
    tab("Training", Tab::training, draw_training_panel);
    tab("Runs", Tab::runs, draw_runs_panel);
    tab("Explore", Tab::explore, draw_explore_panel);
    tab("Teach: the gated rule", Tab::teach, draw_teaching_panel);
    requested_tab_.reset();
    ImGui::EndTabBar();
  }
  ImGui::EndChild();
  draw_status_bar();
  ImGui::End();
}

void LabApp::draw_status_bar() {
  ImGui::Separator();
  if (export_busy()) {
    const auto p = export_job_.progress();
    ImGui::ProgressBar(static_cast<float>(p.fraction), ImVec2(160, 0), "exporting");
    ImGui::SameLine();
    if (ImGui::SmallButton("cancel export")) export_job_.cancel();
    ImGui::SameLine();
  }
  if (status_is_error) ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.4f, 1.0f), "%s", status.c_str());
  else ImGui::TextUnformatted(status.empty() ? device.summary.c_str() : status.c_str());
  if (ImGui::IsItemHovered() && !log.empty()) {
    ImGui::BeginTooltip();
    const size_t first = log.size() > 12 ? log.size() - 12 : 0;
    for (size_t i = first; i < log.size(); ++i) ImGui::TextUnformatted(log[i].c_str());
    ImGui::EndTooltip();
  }
}

}  // namespace proteus::gui
