#include "app/gui/view/kept_grid_view.hpp"

#include <imgui.h>

#include "app/gui/view/lab_app.hpp"

namespace proteus::gui {

bool draw_kept_grid(LabApp& app) {
  auto& ed = app.editor.experiment;
  if (ed.kept_empty()) return false;
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
  ImGui::TextWrapped("From the file, trained as given (read-only):");  // wrapped: the column may be narrow
  ImGui::PopStyleColor();
  for (const auto& line : ed.kept_describe()) {
    ImGui::Bullet();
    ImGui::TextWrapped("%s", line.c_str());  // a variant's fields are a long line: wrapped, not cut
  }
  std::string fields;
  for (const auto& f : ed.kept_fields()) fields += (fields.empty() ? "" : ", ") + f;
  ImGui::TextWrapped("These set %s run by run, over the controls below.", fields.c_str());
  ImGui::Text("%zu runs (proteus %s)", ed.run_count(), ed.cli_command().c_str());
  if (const auto left = ed.kept_left_out(); !left.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.75f, 0.3f, 1.0f));
    ImGui::TextWrapped("%s", left.c_str());
    ImGui::PopStyleColor();
  }
  if (!ImGui::Button("Leave out (edit with the controls)")) return false;
  std::string what;
  for (const auto& line : ed.kept_describe()) what += (what.empty() ? "" : "; ") + line;
  ed.leave_out_kept();
  app.notify("left out of the runs: " + what);
  return true;
}

}  // namespace proteus::gui
