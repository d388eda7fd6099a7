// Instant feedback before any training: the block activation map of the configured schedule,
// redrawn as E, N or the schedule changes, and the custom schedule's unlock points as handles
// to drag along the position axis.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "app/gui/view/lab_app.hpp"
#include "app/gui/view/plot_view.hpp"
#include "app/gui/view/widgets.hpp"
#include "core/config/mixer_schedule.hpp"

namespace proteus::gui {

bool draw_unlock_strip(ExperimentEditor& editor, int& dragging, const DrawnFigure& map, float width) {
  const auto& spec = editor.config().model.mixer.schedule;
  const float h = ui_px(46);
  const ImVec2 o = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("##strip", ImVec2(width, h));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float x0 = map.plot_min().x, x1 = map.plot_max().x, y = o.y + h / 2;
  auto px = [&](int64_t pos) { return map.screen_x(double(pos)); };
  auto pos_at = [&](float x) { return int64_t(std::llround(map.data_x(x))); };
  dl->AddLine(ImVec2(x0, y), ImVec2(x1, y), ImGui::GetColorU32(ImGuiCol_Border), ui_px(2));
  dl->AddText(ImVec2(o.x + ui_px(4), y - ImGui::GetFontSize() / 2), ImGui::GetColorU32(ImGuiCol_TextDisabled), "unlock");
  bool changed = false;
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  int hovered = -1;
  for (int j = 0; j < int(spec.unlock.size()); ++j) {
    const ImVec2 c(px(spec.unlock[j]), y);
    if (j > 0 && std::abs(mouse.x - c.x) < ui_px(7) && std::abs(mouse.y - c.y) < ui_px(12)) hovered = j;
  }
  if (hovered >= 0 && ImGui::IsMouseClicked(ImGuiMouseButton_Left)) dragging = hovered;
  if (!ImGui::IsMouseDown(ImGuiMouseButton_Left)) dragging = -1;
  if (dragging > 0 && dragging < int(spec.unlock.size())) {
    const int64_t before = spec.unlock[dragging];
    const int64_t now = editor.drag_unlock(dragging, pos_at(mouse.x));
    changed = now != before;
    ImGui::SetTooltip("block %d unlocks at position %lld", dragging + 1, static_cast<long long>(now));
  } else if (hovered > 0) {
    ImGui::SetTooltip("block %d unlocks at position %lld: drag", hovered + 1,
                      static_cast<long long>(spec.unlock[hovered]));
  }
  for (int j = 0; j < int(spec.unlock.size()); ++j) {
    const ImVec2 c(px(spec.unlock[j]), y);
    const ImU32 col = j == 0 ? ImGui::GetColorU32(ImGuiCol_TextDisabled)
                      : j == dragging || j == hovered ? ImGui::GetColorU32(ImGuiCol_SliderGrabActive)
                                                      : ImGui::GetColorU32(ImGuiCol_SliderGrab);
    dl->AddTriangleFilled(ImVec2(c.x, c.y - ui_px(9)), ImVec2(c.x - ui_px(6), c.y + ui_px(7)), ImVec2(c.x + ui_px(6), c.y + ui_px(7)), col);
  }
  return changed;
}

void draw_activation_panel(LabApp& app) {
  auto& ed = app.editor.experiment;
  const auto& m = ed.config().model.mixer;
  if (m.type != config::MixerType::memory) {
    ImGui::TextWrapped("The attention reference has no memory blocks: choose a memory mixer to see the activation map.");
    return;
  }
  bool changed = false;
  const int D = int(config::mixer_state_size(m));
  int E = m.E;
  ImGui::SetNextItemWidth(ui_px(260));
  if (ImGui::SliderInt("E (drag)", &E, 1, std::min(D, 64))) ed.set_E(E), changed = true;
  flow_same_line(ui_px(260) + label_width("horizon N"));
  int N = m.N > 0 ? m.N : ed.config().data.seq_len;
  ImGui::SetNextItemWidth(ui_px(260));
  if (ImGui::SliderInt("horizon N", &N, 1, std::max(4 * ed.config().data.seq_len, N), "%d",
                       ImGuiSliderFlags_Logarithmic))
    ed.set_N(N), changed = true;
  flow_same_line(ImGui::CalcTextSize("Back to uniform").x + 2 * ImGui::GetStyle().FramePadding.x);
  if (m.schedule.type != memory::ScheduleType::custom) {
    if (ImGui::Button("Edit as custom")) ed.set_schedule_type(memory::ScheduleType::custom), changed = true;
  } else if (ImGui::Button("Back to uniform")) {
    ed.set_schedule_type(memory::ScheduleType::uniform);
    changed = true;
  }
  if (changed) app.editor_changed();

  const float w = ImGui::GetContentRegionAvail().x;
  const float strip = m.schedule.type == memory::ScheduleType::custom ? ui_px(56) : 0.0f;
  const float avail = std::max(ui_px(200), ImGui::GetContentRegionAvail().y - strip - 3 * ImGui::GetTextLineHeightWithSpacing());
  if (!app.editor.activation) {
    ImGui::TextColored(kErrorColour, "%s", app.editor.activation_error.c_str());
    return;
  }
  // With more than one block the state picture (which elements the blocks are) shares the height.
  const bool state = app.editor.state_opening.has_value();
  // Each figure tall enough for a readable plot area (the view scrolls): at scale 2 on a small
  // screen the two would otherwise squeeze their plots.
  const float h = readable_figure_height(*app.editor.activation, w, state ? std::max(ui_px(200), 0.55f * avail) : avail);
  const DrawnFigure map = draw_figure("activation", *app.editor.activation, ImVec2(w, h));
  if (m.schedule.type == memory::ScheduleType::custom && draw_unlock_strip(ed, app.editor.activation_panel.dragging_unlock, map, w))
    app.editor_changed();
  try {
    const auto s = ed.schedule();
    ImGui::PushTextWrapPos(0.0f);
    if (m.block_axis == memory::BlockAxis::layer)  // the blocks run over the layer's heads, not one head's state
      ImGui::TextDisabled("The layer's %d heads x %lld = %lld elements in E = %lld blocks of %lld; a block unlocks at "
                          "each marked position; past N = %lld every block is active.",
                          m.heads, static_cast<long long>(s.D()), static_cast<long long>(m.heads * s.D()),
                          static_cast<long long>(s.E()), static_cast<long long>(m.heads * s.D() / s.E()),
                          static_cast<long long>(s.N()));
    else
      ImGui::TextDisabled("D = %lld elements per head in E = %lld blocks of %lld; a block unlocks at each marked position; "
                          "past N = %lld every block is active.",
                          static_cast<long long>(s.D()), static_cast<long long>(s.E()),
                          static_cast<long long>(s.block_size()), static_cast<long long>(s.N()));
    ImGui::PopTextWrapPos();
  } catch (const std::exception&) {
  }
  if (state) {
    const auto& f = *app.editor.state_opening;
    const float rest = std::max(ui_px(160), ImGui::GetContentRegionAvail().y - ImGui::GetStyle().ItemSpacing.y);
    draw_figure("state_opening", f, ImVec2(w, readable_figure_height(f, w, rest)));
  }
}

}  // namespace proteus::gui
