#include "app/gui/view/save_controls.hpp"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <filesystem>

#include "app/gui/view/lab_app.hpp"

namespace proteus::gui {

namespace {

// Replacing a file this window did not write (a file of the user's from before) asks first.
bool asks_to_replace(const std::filesystem::path& target, const ControlsPanelState& state) {
  std::error_code ec;
  return std::filesystem::exists(target, ec) && target.string() != state.last_saved;
}

void save(LabApp& app, std::string& file, ControlsPanelState& state, const std::string& field) {
  const auto written = app.save_experiment(field);
  if (written.empty()) return;
  file = written.string();
  state.last_saved = file;
}

// Save as: the name typed (a relative one lands in the user's experiments folder), and where it goes.
void draw_save_as(LabApp& app, std::string& file, ControlsPanelState& state) {
  if (!ImGui::BeginPopup("save as")) return;
  ImGui::TextUnformatted("Save the experiment as");
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 32);
  if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
  ImGui::InputText("##save as", &state.save_as);
  const auto target = app.save_target(state.save_as);
  ImGui::TextDisabled("writes %s", target.string().c_str());
  const bool replaces = asks_to_replace(target, state);
  if (replaces) ImGui::TextUnformatted("That file exists: Replace writes over it.");
  if (ImGui::Button(replaces ? "Replace" : "Save")) {
    save(app, file, state, state.save_as);
    ImGui::CloseCurrentPopup();
  }
  ImGui::SameLine();
  if (ImGui::Button("Cancel")) ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
}

}  // namespace

void draw_save_buttons(LabApp& app, std::string& file, ControlsPanelState& state) {
  const auto target = app.save_target(file);
  if (ImGui::Button("Save")) {
    if (asks_to_replace(target, state)) ImGui::OpenPopup("overwrite?");
    else save(app, file, state, file);
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
  draw_save_as(app, file, state);
  if (ImGui::BeginPopup("overwrite?")) {
    ImGui::Text("%s exists. Replace it?", target.string().c_str());
    if (ImGui::Button("Replace")) {
      save(app, file, state, file);
      ImGui::CloseCurrentPopup();
    }
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) ImGui::CloseCurrentPopup();
    ImGui::EndPopup();
  }
}

}  // namespace proteus::gui
