#include "app/gui/view/save_controls.hpp"

#include <imgui.h>
#include <imgui_stdlib.h>

#include "app/gui/view/lab_app.hpp"

namespace proteus::gui {

namespace {

// Save as: the name typed (a relative one lands in the user's experiments folder), and where it goes.
void draw_save_as(LabApp& app, ControlsPanelState& state) {
  if (!ImGui::BeginPopup("save as")) return;
  ImGui::TextUnformatted("Save the experiment as");
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 32);
  if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
  ImGui::InputText("##save as", &state.save_as);
  const auto target = app.save_target(state.save_as);
  ImGui::TextDisabled("writes %s", target.string().c_str());
  const bool replaces = app.save_asks_first(target);
  if (replaces) ImGui::TextUnformatted("That file exists: Replace writes over it.");
  if (ImGui::Button(replaces ? "Replace" : "Save")) {
    app.save_experiment(state.save_as);
    ImGui::CloseCurrentPopup();
  }
  ImGui::SameLine();
  if (ImGui::Button("Cancel")) ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
}

}  // namespace

void draw_save_buttons(LabApp& app) {
  auto& state = app.editor.controls;
  const std::string& file = state.experiment_file;
  const auto target = app.save_target(file);
  if (ImGui::Button("Save")) {
    if (app.save_asks_first(target)) ImGui::OpenPopup("overwrite?");
    else app.save_experiment(file);
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Save to %s\nRight-click: Save as", target.string().c_str());
  bool open_save_as = false;
  if (ImGui::BeginPopupContextItem("save menu")) {
    if (ImGui::MenuItem("Save as...")) open_save_as = true;
    ImGui::EndPopup();
  }
  if (open_save_as) {  // opened here, not inside the menu, so that the two popups are siblings
    state.save_as = target.string();
    ImGui::OpenPopup("save as");
  }
  draw_save_as(app, state);
  if (ImGui::BeginPopup("overwrite?")) {
    ImGui::Text("%s exists. Replace it?", target.string().c_str());
    if (ImGui::Button("Replace")) {
      app.save_experiment(file);
      ImGui::CloseCurrentPopup();
    }
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) ImGui::CloseCurrentPopup();
    ImGui::EndPopup();
  }
}

}  // namespace proteus::gui
