// Figures laid out in a grid, and the export controls every figure view shares.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>

#include "app/gui/view/lab_app.hpp"
#include "app/gui/view/plot_view.hpp"

namespace proteus::gui {

void draw_figure_grid(const std::vector<figures::NamedFigure>& figs, int columns, float height) {
  if (figs.empty()) return;
  const float spacing = ImGui::GetStyle().ItemSpacing.x;
  const float w = (ImGui::GetContentRegionAvail().x - spacing * (columns - 1)) / columns;
  for (size_t i = 0; i < figs.size(); ++i) {
    if (i % columns) ImGui::SameLine();
    draw_figure(figs[i].name.c_str(), figs[i].figure, ImVec2(w, height));
  }
}

void draw_export_controls(LabApp& app, const std::vector<figures::NamedFigure>& figs, const char* id) {
  ImGui::PushID(id);
  ImGui::SetNextItemWidth(220);
  ImGui::InputText("##dir", &app.export_dir);
  ImGui::SameLine();
  ImGui::BeginDisabled(figs.empty() || app.export_busy());
  if (ImGui::Button("Export figures")) app.start_export(figs, app.export_dir);
  ImGui::EndDisabled();
  ImGui::SameLine();
  static bool png = true, svg = true, pdf = true, csv = true;
  ImGui::Checkbox("PNG", &png);
  ImGui::SameLine();
  ImGui::Checkbox("SVG", &svg);
  ImGui::SameLine();
  ImGui::Checkbox("PDF", &pdf);
  ImGui::SameLine();
  ImGui::Checkbox("CSV", &csv);
  ImGui::SameLine();
  int dpi = static_cast<int>(app.export_settings.dpi);
  ImGui::SetNextItemWidth(90);
  if (ImGui::InputInt("dpi", &dpi, 50, 100)) app.export_settings.dpi = std::clamp(dpi, 10, 2400);
  app.export_settings.formats.clear();
  if (png) app.export_settings.formats.push_back("png");
  if (svg) app.export_settings.formats.push_back("svg");
  if (pdf) app.export_settings.formats.push_back("pdf");
  if (csv) app.export_settings.formats.push_back("csv");
  ImGui::PopID();
}

}  // namespace proteus::gui
