#include "app/gui/view/lab_app.hpp"

#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "app/gui/state/ui_settings.hpp"
#include "app/gui/view/content_check.hpp"
#include "app/gui/view/widgets.hpp"
#include "core/common/data_root.hpp"
#include "core/config/preset_path.hpp"

namespace proteus::gui {

LabApp::LabApp(std::filesystem::path root, std::filesystem::path runs_dir) : source_root(std::move(root)) {
  runs.dir = std::move(runs_dir);
  editor.presets = find_presets(source_root / "experiments");
  // With no preset named, the window starts on the quickstart (or valid defaults), never on an error.
  if (const auto preset = editor.experiment.open_default(editor.presets)) {
    editor.preset_label = preset->label;
    notify("loaded " + preset->path.string());
  }
  device = probe_device();
  use_runs_dir();
  runs.panel.folder = runs.dir.string();
  teach.stepper.go_to(0);
  runs.browser.start_rescan(runs.dir);  // on a worker: a folder of a thousand runs never holds up the window
  editor_changed();
}

void StatusLine::post(const std::string& message, Notice kind) {
  const bool error = kind == Notice::error;
  text = message;
  is_error = error;
  log.push_back((error ? "error: " : "") + message);
  if (log.size() > 200) log.erase(log.begin());
}

void LabApp::use_runs_dir() {
  const std::string dir = runs.dir.string();
  editor.experiment.edit_config([&](config::RunConfig& c) {
    if (c.runs_dir == dir) return false;
    c.runs_dir = dir;
    return true;
  });
}

void LabApp::notify(const std::string& message) { status_line.post(message, Notice::info); }

void LabApp::notify_error(const std::string& message) { status_line.post(message, Notice::error); }

void LabApp::editor_changed() {
  editor.problem = editor.experiment.problem();
  try {
    editor.activation = editor.experiment.activation_figure();
    activation_figures_ = {{"activation_map", *editor.activation}};
    editor.state_opening = editor.experiment.state_opening_figure();
    if (editor.state_opening) activation_figures_.push_back({"state_opening", *editor.state_opening});
    editor.activation_error.clear();
  } catch (const std::exception& e) {
    editor.activation.reset();
    editor.state_opening.reset();
    activation_figures_.clear();
    editor.activation_error = e.what();
  }
}

void LabApp::load_experiment(const std::filesystem::path& file) {
  const auto found = config::find_preset(file, common::data_root(), config::user_experiments_dir());
  try {
    editor.experiment.load(found);
    use_runs_dir();
    editor_changed();
    editor.preset_label.clear();
    std::error_code ec;
    for (const auto& p : editor.presets)
      if (std::filesystem::equivalent(p.path, found, ec)) editor.preset_label = p.label;
    notify("loaded " + found.string());
    for (const auto& n : editor.experiment.notes) notify(n);
  } catch (const std::exception& e) {
    notify_error(e.what());
  }
}

std::filesystem::path LabApp::save_target(const std::string& field) const {
  try {
    return config::save_path(field, common::data_root(), common::runs_installed(), config::user_experiments_dir());
  } catch (const std::exception&) {
    return field;  // a shipped preset with no home folder: save_experiment says why it cannot
  }
}

std::filesystem::path LabApp::save_experiment(const std::string& field) {
  try {
    const auto user = config::user_experiments_dir();
    const auto target = config::save_path(field, common::data_root(), common::runs_installed(), user);
    const auto folder = target.parent_path();
    if (!user.empty() && !folder.empty() && folder.lexically_relative(user).native().rfind("..", 0) != 0)
      std::filesystem::create_directories(folder);  // the user's experiments folder, on the first save
    editor.experiment.save(target);
    notify("saved " + target.string() + " (runs with: proteus " + editor.experiment.cli_command() + " " +
           target.string() + ")");
    return target;
  } catch (const std::exception& e) {
    notify_error(std::string("cannot save: ") + e.what());
    return {};
  }
}

bool LabApp::start_training() {
  if (training.active()) {
    notify_error("a training job is running: stop it first");
    return false;
  }
  try {
    use_runs_dir();
    auto r = editor.experiment.valid_runs();
    // Side by side only for one pair: more runs at once would share the cores too thinly.
    const bool side_by_side = editor.experiment.mode() == RunMode::compare && editor.experiment.seeds() == 1;
    const size_t count = r.size();
    training.start(std::move(r), {.side_by_side = side_by_side});
    notify(side_by_side ? "training baseline and Proteus side by side"
                        : count > 1 ? "training " + std::to_string(count) + " runs one after another" : "training started");
    show(Tab::training);
    return true;
  } catch (const std::exception& e) {
    notify_error(e.what());
    return false;
  }
}

bool LabApp::open_explore(const std::string& run_dir) {
  const auto err = explore.session.open(run_dir);
  if (!err.empty()) {
    notify_error(err);
    return false;
  }
  notify("exploring " + run_dir + ": edit the schedule, the curves follow");
  show(Tab::explore);
  return true;
}

void LabApp::start_export(const std::vector<figures::NamedFigure>& figs, const std::filesystem::path& dir) {
  if (export_busy()) return;
  if (figs.empty()) {
    notify_error("nothing to export yet");
    return;
  }
  export_job_ = start_figure_export(figs, dir, exports.settings);
  notify("exporting " + std::to_string(figs.size()) + " figures to " + dir.string());
}

void LabApp::frame() {
  begin_content_frame(display.drawn_content);  // the content check reads what this frame draws, and only that
  if (training.refresh()) {
    const auto* s = training.snapshot();
    if (s && s->done) runs.browser.start_rescan(runs.dir);
  }
  runs.browser.poll();
  explore.session.refresh();
  if (export_job_.valid() && !export_job_.running() && export_job_.latest()) {
    const auto r = export_job_.latest();
    if (!r->error.empty()) notify_error("export failed: " + r->error);
    else notify("exported " + std::to_string(r->files.size()) + " files to " + exports.dir);
    export_job_ = ExportHandle();
  }
  for (const auto action : pressed_shortcuts(shortcut_context())) perform(action);
  advance_teaching_playback();

  if (display.presenting) {
    draw_presentation_view(*this);
  } else {
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(vp->WorkPos);
    ImGui::SetNextWindowSize(vp->WorkSize);
    ImGui::Begin("Proteus Lab", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                     ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_MenuBar);
    draw_menu_bar();
    const float status_h = ImGui::GetFrameHeightWithSpacing() + ui_px(4);
    const float left_w = std::min(ui_px(380), vp->WorkSize.x * 0.4f);  // at 2x on 1920 pixels: all of it
    ImGui::BeginChild("controls", ImVec2(left_w, -status_h), true);
    draw_controls_panel(*this);
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("views", ImVec2(0, -status_h), false);
    draw_tabs();
    ImGui::EndChild();
    draw_status_bar();
    ImGui::End();
  }
  if (display.help_open) draw_help_overlay(*this);
}

void LabApp::draw_menu_bar() {
  if (!ImGui::BeginMenuBar()) return;
  if (ImGui::BeginMenu("View")) {
    // Each item shows the key the shortcut table gives its action, and does what that key does.
    const auto item = [&](const char* label, ShortcutAction action, bool enabled = true) {
      if (ImGui::MenuItem(label, shortcut_keys(action), false, enabled)) perform(action);
    };
    char scale[48];
    std::snprintf(scale, sizeof scale, "UI scale: %g", double(display.ui_scale));
    ImGui::TextDisabled("%s", scale);
    item("Larger", ShortcutAction::scale_up, display.ui_scale < kMaxUiScale);
    item("Smaller", ShortcutAction::scale_down, display.ui_scale > kMinUiScale);
    item("The monitor's scale", ShortcutAction::scale_reset);
    ImGui::Separator();
    item("Presentation view", ShortcutAction::toggle_presentation);
    item("Keyboard shortcuts", ShortcutAction::toggle_help);
    ImGui::EndMenu();
  }
  ImGui::EndMenuBar();
}

void LabApp::draw_tabs() {
  if (!ImGui::BeginTabBar("tabs")) return;
  // Full titles when the bar holds them all, else the brief ones (ImGui would cut each to
  // "Activa..."); "###name" keeps a tab's identity whichever label it shows.
  const ImGuiStyle& st = ImGui::GetStyle();
  auto bar_width = [&](bool full) {
    float w = ImGui::CalcTextSize("?Present").x + 4 * st.FramePadding.x + 2 * st.ItemInnerSpacing.x;
    for (const auto& info : all_tabs())
      w += ImGui::CalcTextSize(full ? info.title : info.brief).x + 2 * st.FramePadding.x + st.ItemInnerSpacing.x;
    return w;
  };
  const bool full = bar_width(true) <= ImGui::GetContentRegionAvail().x;
  auto tab = [&](Tab t, void (*draw)(LabApp&)) {
    ImGuiTabItemFlags flags = 0;
    if (requested_tab_ && *requested_tab_ == t) flags |= ImGuiTabItemFlags_SetSelected;
    const auto& info = *std::find_if(all_tabs().begin(), all_tabs().end(), [&](const TabInfo& i) { return i.tab == t; });
    const std::string label = std::string(full ? info.title : info.brief) + "###" + info.name;
    if (ImGui::BeginTabItem(label.c_str(), nullptr, flags)) {
      // A requested tab is selected from the next frame on: until then it is the current one.
      if (!requested_tab_ || *requested_tab_ == t) current_tab_ = t;
      draw(*this);
      ImGui::EndTabItem();
    }
  };
  // In all_tabs()'s order (app/gui/state/tabs.cpp), each with its panel.
  tab(Tab::activation, draw_activation_panel);
  tab(Tab::training, draw_training_panel);
  tab(Tab::runs, draw_runs_panel);
  tab(Tab::explore, draw_explore_panel);
  tab(Tab::teach, draw_teaching_panel);
  requested_tab_.reset();
  if (ImGui::TabItemButton("?", ImGuiTabItemFlags_Trailing)) display.help_open = !display.help_open;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("keyboard shortcuts (F1)");
  if (ImGui::TabItemButton("Present", ImGuiTabItemFlags_Trailing)) toggle_presentation();
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("this tab full-window in large type, for a room (F11)");
  ImGui::EndTabBar();
}

void LabApp::teaching_toggle_play() {
  teach.playing = !teach.playing;
  if (teach.playing && teach.stepper.t() >= teach.stepper.T()) teach.stepper.go_to(0);
  teach.next_step_s = ImGui::GetTime() + 1.0 / teach.steps_per_s;
}

void LabApp::teaching_go_to(int t) {
  teach.playing = false;
  teach.stepper.go_to(t);
}

void LabApp::advance_teaching_playback() {
  if (!teach.playing || ImGui::GetTime() < teach.next_step_s) return;
  teach.stepper.step();
  teach.next_step_s = ImGui::GetTime() + 1.0 / teach.steps_per_s;
  if (teach.stepper.t() >= teach.stepper.T()) teach.playing = false;
}

void LabApp::request_ui_scale(float scale) {
  const float s = std::clamp(scale, kMinUiScale, kMaxUiScale);
  if (s == display.ui_scale && !ui_scale_request_) return;
  ui_scale_request_ = s;
  char buf[64];
  std::snprintf(buf, sizeof buf, "UI scale %g (Ctrl + / Ctrl - / Ctrl 0)", double(s));
  notify(buf);
}

std::optional<float> LabApp::take_ui_scale_request() {
  auto r = ui_scale_request_;
  ui_scale_request_.reset();
  return r;
}

void LabApp::toggle_presentation() {
  display.presenting = !display.presenting;
  if (!display.presenting) return;
  // Enter on the figure most lessons are about, when the tab has it.
  const auto& figs = presentation_figures();
  display.presented_figure = 0;
  for (size_t i = 0; i < figs.size(); ++i)
    if (figs[i].name == "per_position") display.presented_figure = static_cast<int>(i);
}

const std::vector<figures::NamedFigure>& LabApp::presentation_figures() const {
  static const std::vector<figures::NamedFigure> none;  // an immutable empty list, not UI state
  switch (current_tab_) {
    case Tab::training: return training.figures();
    case Tab::runs: return runs.browser.figures();
    case Tab::explore: return explore.session.figures();
    case Tab::activation: return activation_figures_;
    case Tab::teach: return none;
  }
  return none;
}

void LabApp::perform(ShortcutAction action) {
  using A = ShortcutAction;
  const int figure_count = static_cast<int>(presentation_figures().size());
  switch (action) {
    case A::toggle_help: display.help_open = !display.help_open; break;
    case A::close_overlay:
      if (display.help_open) display.help_open = false;
      else display.presenting = false;
      break;
    case A::toggle_presentation: toggle_presentation(); break;
    case A::scale_up: request_ui_scale(step_ui_scale(ui_scale_request_.value_or(display.ui_scale), +1)); break;
    case A::scale_down: request_ui_scale(step_ui_scale(ui_scale_request_.value_or(display.ui_scale), -1)); break;
    case A::scale_reset: request_ui_scale(display.default_ui_scale); break;
    case A::teach_play_pause: teaching_toggle_play(); break;
    case A::teach_step_forward: teaching_go_to(teach.stepper.t() + 1); break;
    case A::teach_step_back: teaching_go_to(teach.stepper.t() - 1); break;
    case A::teach_first: teaching_go_to(0); break;
    case A::teach_last: teaching_go_to(teach.stepper.T()); break;
    case A::figure_next:
      if (figure_count > 0) display.presented_figure = (display.presented_figure + 1) % figure_count;
      break;
    case A::figure_previous:
      if (figure_count > 0) display.presented_figure = (display.presented_figure + figure_count - 1) % figure_count;
      break;
  }
}

void LabApp::draw_status_bar() {
  ImGui::Separator();
  if (export_busy()) {
    const auto p = export_job_.progress();
    ImGui::ProgressBar(static_cast<float>(p.fraction), ImVec2(ui_px(160), 0), "exporting");
    ImGui::SameLine();
    if (ImGui::SmallButton("cancel export")) export_job_.cancel();
    ImGui::SameLine();
  }
  const auto& [status, status_is_error, log] = status_line;
  // One line: a message longer than the window ends in "..." (the whole one is in the tooltip's log).
  const std::string shown = text_fitting(status.empty() ? device.headline : status, ImGui::GetContentRegionAvail().x);
  if (status_is_error) ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.4f, 1.0f), "%s", shown.c_str());
  else ImGui::TextUnformatted(shown.c_str());
  if (ImGui::IsItemHovered() && !log.empty()) {
    ImGui::BeginTooltip();
    const size_t first = log.size() > 12 ? log.size() - 12 : 0;
    for (size_t i = first; i < log.size(); ++i) ImGui::TextUnformatted(log[i].c_str());
    ImGui::EndTooltip();
  }
}

}  // namespace proteus::gui
