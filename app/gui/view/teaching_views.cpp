#include "app/gui/view/teaching_views.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "core/memory/schedule.hpp"

namespace proteus::gui {
namespace {

// Blue (negative) - white - red (positive), |v| / scale clamped to 1.
ImU32 diverging(double v, double scale) {
  const float t = static_cast<float>(std::clamp(scale > 0 ? v / scale : 0.0, -1.0, 1.0));
  const float r = t > 0 ? 1.0f : 1.0f + t * 0.8f, g = 1.0f - std::abs(t) * 0.8f, b = t < 0 ? 1.0f : 1.0f - t * 0.8f;
  return ImGui::ColorConvertFloat4ToU32(ImVec4(r, g, b, 1));
}

}  // namespace

void draw_cell_grid(const char* id, int rows, int cols, float cell, const std::vector<double>& values,
                    const std::vector<uint8_t>* mask, const std::vector<uint8_t>* written, double scale) {
  ImGui::PushID(id);
  const ImVec2 o = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("##grid", ImVec2(cols * cell, rows * cell));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      const size_t i = size_t(r) * cols + c;
      const ImVec2 a(o.x + c * cell, o.y + r * cell), b(a.x + cell - 2, a.y + cell - 2);
      dl->AddRectFilled(a, b, diverging(values[i], scale));
      const bool locked = mask && !(*mask)[i];
      if (locked) {  // hatched: locked elements keep their value
        for (float d = 0; d < 2 * cell; d += 6)
          dl->AddLine(ImVec2(a.x + std::max(0.0f, d - cell), a.y + std::min(d, cell - 2)),
                      ImVec2(a.x + std::min(d, cell - 2), a.y + std::max(0.0f, d - cell)), IM_COL32(90, 90, 90, 160));
      }
      if (written && (*written)[i]) dl->AddRect(a, b, IM_COL32(255, 200, 0, 255), 0, 0, 2.5f);
      char buf[16];
      std::snprintf(buf, sizeof buf, "%+.2f", values[i]);
      const ImVec2 ts = ImGui::CalcTextSize(buf);
      if (ts.x < cell - 4) dl->AddText(ImVec2(a.x + (cell - 2 - ts.x) / 2, a.y + (cell - 2 - ts.y) / 2), IM_COL32(0, 0, 0, 255), buf);
      if (ImGui::IsItemHovered() && mouse.x >= a.x && mouse.x < b.x && mouse.y >= a.y && mouse.y < b.y)
        ImGui::SetTooltip("[%d][%d] = %.6f%s", r, c, values[i], locked ? " (locked)" : "");
    }
  ImGui::PopID();
}

void draw_block_strip(const TeachingExample& e, int current) {
  const ImVec2 o = ImGui::GetCursorScreenPos();
  const float cw = std::min(28.0f, (ImGui::GetContentRegionAvail().x - 80) / e.T), ch = 10;
  ImGui::Dummy(ImVec2(e.T * cw + 80, e.E * ch + 18));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const auto sched = memory::Schedule::make(memory::ScheduleSpec{e.schedule, 2.0, {}}, int64_t(e.d_k) * e.d_v, e.E,
                                            e.N > 0 ? e.N : e.T);
  for (int t = 1; t <= e.T; ++t)
    for (int b = 0; b < e.E; ++b) {
      const bool on = b < sched.active_blocks(t);
      const ImVec2 a(o.x + 80 + (t - 1) * cw, o.y + (e.E - 1 - b) * ch);
      dl->AddRectFilled(a, ImVec2(a.x + cw - 1, a.y + ch - 1), on ? IM_COL32(60, 60, 60, 255) : IM_COL32(225, 225, 225, 255));
    }
  if (current >= 1)
    dl->AddRect(ImVec2(o.x + 80 + (current - 1) * cw - 1, o.y - 1), ImVec2(o.x + 80 + current * cw, o.y + e.E * ch + 1),
                IM_COL32(255, 160, 0, 255), 0, 0, 2);
  dl->AddText(ImVec2(o.x, o.y), ImGui::GetColorU32(ImGuiCol_TextDisabled), "blocks");
  dl->AddText(ImVec2(o.x + 80, o.y + e.E * ch + 2), ImGui::GetColorU32(ImGuiCol_TextDisabled),
              "tokens 1..T (dark = active block)");
}

void draw_token_inputs(const nlohmann::json& input, int t) {
  auto row = [&](const char* name) {
    if (!input.contains(name)) return;
    const auto& x = input[name][t - 1];
    std::string text = std::string(name) + "_t = ";
    if (x.is_array()) {
      text += "[";
      for (size_t i = 0; i < x.size(); ++i) {
        char buf[16];
        std::snprintf(buf, sizeof buf, "%s%+.2f", i ? " " : "", x[i].get<double>());
        text += buf;
      }
      text += "]";
    } else {
      char buf[16];
      std::snprintf(buf, sizeof buf, "%.2f", x.get<double>());
      text += buf;
    }
    ImGui::TextUnformatted(text.c_str());
  };
  for (const char* k : {"q", "k", "v", "beta", "a", "eta", "p", "gamma"}) row(k);
}

}  // namespace proteus::gui
