// Figures laid out in a grid, and the export controls every figure view shares.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cctype>


#include "app/gui/state/content_fit.hpp"
#include "app/gui/view/lab_app.hpp"
#include "app/gui/view/plot_view.hpp"
#include "app/gui/view/widgets.hpp"

namespace proteus::gui {

void draw_figure_grid(const std::vector<figures::NamedFigure>& figs, int columns, float height) {
  if (figs.empty()) return;
  const float spacing = ImGui::GetStyle().ItemSpacing.x, avail = ImGui::GetContentRegionAvail().x;
  // One column where side by side the plots would be narrower than readable.
  const float side_w = (avail - spacing * (columns - 1)) / columns;
  for (const auto& f : figs)
    if (columns > 1 && plot_area_size(f.figure, ImVec2(side_w, height)).x < ReadableSizes{}.plot_px) columns = 1;
  const float w = (avail - spacing * (columns - 1)) / columns;
  for (size_t row = 0; row < figs.size(); row += size_t(columns)) {
    const size_t end = std::min(figs.size(), row + size_t(columns));
    float h = height;  // a row as tall as its tallest figure needs
    for (size_t i = row; i < end; ++i) h = std::max(h, readable_figure_height(figs[i].figure, w, height));
    for (size_t i = row; i < end; ++i) {
      if (i > row) ImGui::SameLine();
      draw_figure(figs[i].name.c_str(), figs[i].figure, ImVec2(w, h));
    }
  }
}

void draw_export_controls(LabApp& app, const std::vector<figures::NamedFigure>& figs, const char* id) {
  ImGui::PushID(id);
  ImGui::SetNextItemWidth(field_width_for(app.exports.dir, ui_px(220)));
  ImGui::InputText("##dir", &app.exports.dir);
  flow_same_line(ImGui::CalcTextSize("Export figures").x + 2 * ImGui::GetStyle().FramePadding.x);
  ImGui::BeginDisabled(figs.empty() || app.export_busy());
  if (ImGui::Button("Export figures")) app.start_export(figs, app.exports.dir);
  ImGui::EndDisabled();
  auto& choice = app.exports.choice;
  const auto& formats = figures::export_formats();
  for (size_t i = 0; i < formats.size() && i < choice.ticked.size(); ++i) {
    std::string label = formats[i];  // "png" -> "PNG"
    for (char& ch : label) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    flow_same_line(ImGui::GetFrameHeight() + label_width(label.c_str()));
    bool on = choice.ticked[i] != 0;
    if (ImGui::Checkbox(label.c_str(), &on)) choice.ticked[i] = on;
  }
  flow_same_line(ui_px(90) + label_width("dpi"));
  int dpi = static_cast<int>(app.exports.settings.dpi);
  ImGui::SetNextItemWidth(ui_px(90));
  if (ImGui::InputInt("dpi", &dpi, 50, 100)) app.exports.settings.dpi = std::clamp(dpi, 10, 2400);
  app.exports.settings.formats = choice.formats();
  ImGui::PopID();
}

}  // namespace proteus::gui
