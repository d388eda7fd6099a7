#include "app/gui/view/lab_app.hpp"

#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "app/gui/state/ui_settings.hpp"
#include "app/gui/view/content_check.hpp"
#include "app/gui/view/widgets.hpp"

namespace proteus::gui {

void LabApp::frame() {
  begin_content_frame(display.drawn_content);  // the content check reads what this frame draws, and only that
  poll_workers();
  for (const auto action : pressed_shortcuts(shortcut_context())) perform(action);
  teach.advance(ImGui::GetTime());

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
    case A::scale_up: request_ui_scale(step_ui_scale(requested_ui_scale(), +1)); break;
    case A::scale_down: request_ui_scale(step_ui_scale(requested_ui_scale(), -1)); break;
    case A::scale_reset: request_ui_scale(display.default_ui_scale); break;
    case A::teach_play_pause: teach.toggle_play(ImGui::GetTime()); break;
    case A::teach_step_forward: teach.go_to(teach.stepper.t() + 1); break;
    case A::teach_step_back: teach.go_to(teach.stepper.t() - 1); break;
    case A::teach_first: teach.go_to(0); break;
    case A::teach_last: teach.go_to(teach.stepper.T()); break;
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
    ImGui::ProgressBar(static_cast<float>(export_fraction()), ImVec2(ui_px(160), 0), "exporting");
    ImGui::SameLine();
    if (ImGui::SmallButton("cancel export")) cancel_export();
    ImGui::SameLine();
  }
  const auto& [status, status_is_error, log] = status_line;
  // One line: a message longer than the window ends in "..." (the whole one is in the tooltip's log).
  const std::string shown = text_fitting(status.empty() ? device.headline : status, ImGui::GetContentRegionAvail().x);
  if (status_is_error) ImGui::TextColored(kErrorColour, "%s", shown.c_str());
  else ImGui::TextUnformatted(shown.c_str());
  if (ImGui::IsItemHovered() && !log.empty()) {
    ImGui::BeginTooltip();
    const size_t first = log.size() > 12 ? log.size() - 12 : 0;
    for (size_t i = first; i < log.size(); ++i) ImGui::TextUnformatted(log[i].c_str());
    ImGui::EndTooltip();
  }
}

}  // namespace proteus::gui
