// The help overlay (F1 or ?): the keyboard shortcuts that act where the window is, read from the
// same table the key handling reads (shortcuts.cpp), in a window over everything.
#include <imgui.h>

#include <string>

#include "app/gui/view/lab_app.hpp"

namespace proteus::gui {

void draw_help_overlay(LabApp& app) {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + vp->WorkSize.x / 2, vp->WorkPos.y + vp->WorkSize.y / 2), ImGuiCond_Always,
                          ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowFocus();
  ImGui::SetNextWindowBgAlpha(0.97f);
  if (app.display.presenting && app.fonts.presentation) ImGui::PushFont(app.fonts.presentation);
  const std::string where = std::string(app.display.presenting ? "presentation view, " : "") + tab_name(app.current_tab()) + " tab";
  const std::string title = "Keyboard shortcuts: " + where + "###help";
  ImGui::Begin(title.c_str(), &app.display.help_open,
               ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings |
                   ImGuiWindowFlags_NoMove);
  if (ImGui::BeginTable("shortcuts", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH)) {
    ImGui::TableSetupColumn("keys");
    ImGui::TableSetupColumn("what they do");
    ImGui::TableHeadersRow();
    for (const Shortcut* s : shortcuts_for(app.shortcut_context())) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(s->keys);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(s->what);
    }
    ImGui::EndTable();
  }
  ImGui::TextDisabled("Keys other than Ctrl and F-keys wait while a text field has the keyboard.");
  if (ImGui::Button("Close (Esc)")) app.display.help_open = false;
  ImGui::End();
  if (app.display.presenting && app.fonts.presentation) ImGui::PopFont();
}

}  // namespace proteus::gui
