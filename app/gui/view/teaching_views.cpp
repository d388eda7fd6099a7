#include "app/gui/view/teaching_views.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "app/gui/view/content_check.hpp"
#include "app/gui/view/ui_scale.hpp"

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
  register_content(ContentKind::grid, id, ImGui::GetItemRectMin(), ImGui::GetItemRectMax(), cell);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      const size_t i = size_t(r) * cols + c;
      const ImVec2 a(o.x + c * cell, o.y + r * cell), b(a.x + cell - 2, a.y + cell - 2);
      dl->AddRectFilled(a, b, diverging(values[i], scale));
      const bool locked = mask && !(*mask)[i];
      if (locked) {  // hatched: locked elements keep their value
        for (float d = 0; d < 2 * cell; d += ui_px(6))
          dl->AddLine(ImVec2(a.x + std::max(0.0f, d - cell), a.y + std::min(d, cell - 2)),
                      ImVec2(a.x + std::min(d, cell - 2), a.y + std::max(0.0f, d - cell)), IM_COL32(90, 90, 90, 160));
      }
      if (written && (*written)[i]) dl->AddRect(a, b, IM_COL32(255, 200, 0, 255), 0, 0, ui_px(2.5f));
      char buf[16];
      std::snprintf(buf, sizeof buf, "%+.2f", values[i]);
      const ImVec2 ts = ImGui::CalcTextSize(buf);
      if (ts.x < cell - 4) dl->AddText(ImVec2(a.x + (cell - 2 - ts.x) / 2, a.y + (cell - 2 - ts.y) / 2), IM_COL32(0, 0, 0, 255), buf);
      if (ImGui::IsItemHovered() && mouse.x >= a.x && mouse.x < b.x && mouse.y >= a.y && mouse.y < b.y)
        ImGui::SetTooltip("[%d][%d] = %.6f%s", r, c, values[i], locked ? " (locked)" : "");
    }
  ImGui::PopID();
}

namespace {
float block_row_height(int E) { return std::clamp(ui_px(60) / std::max(E, 1), ui_px(2), ui_px(10)); }
}  // namespace

float block_strip_height(int E) {
  return std::max(E * block_row_height(E), ImGui::GetFontSize()) + ImGui::GetTextLineHeightWithSpacing() +
         ImGui::GetStyle().ItemSpacing.y;
}

void draw_block_strip(const nlohmann::json& active_blocks, int E, int current) {
  const int T = static_cast<int>(active_blocks.size());
  const ImVec2 o = ImGui::GetCursorScreenPos();
  // The strip starts right of its label; its caption sits under it.
  const float label_w = ImGui::CalcTextSize("gated blocks").x + ui_px(8);
  const float cw = std::min(ui_px(28), (ImGui::GetContentRegionAvail().x - label_w) / std::max(T, 1));
  const float ch = block_row_height(E);
  const float caption_h = ImGui::GetTextLineHeightWithSpacing();
  ImGui::Dummy(ImVec2(T * cw + label_w, std::max(E * ch, ImGui::GetFontSize()) + caption_h));
  // A timeline, not cells to read one by one: only whether it is cut is checked.
  register_content(ContentKind::grid, "gated blocks", ImGui::GetItemRectMin(), ImGui::GetItemRectMax(), 0);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  for (int t = 1; t <= T; ++t)
    for (int b = 0; b < E; ++b) {
      const bool on = b < active_blocks[t - 1].get<int>();
      const ImVec2 a(o.x + label_w + (t - 1) * cw, o.y + (E - 1 - b) * ch);
      dl->AddRectFilled(a, ImVec2(a.x + cw - 1, a.y + std::max(ch - 1, 1.0f)),
                        on ? IM_COL32(60, 60, 60, 255) : IM_COL32(225, 225, 225, 255));
    }
  if (current >= 1)
    dl->AddRect(ImVec2(o.x + label_w + (current - 1) * cw - 1, o.y - 1),
                ImVec2(o.x + label_w + current * cw, o.y + E * ch + 1), IM_COL32(255, 160, 0, 255), 0, 0, ui_px(2));
  dl->AddText(ImVec2(o.x, o.y), ImGui::GetColorU32(ImGuiCol_TextDisabled), "gated blocks");
  dl->AddText(ImVec2(o.x + label_w, o.y + std::max(E * ch, ImGui::GetFontSize()) + ui_px(2)), ImGui::GetColorU32(ImGuiCol_TextDisabled),
              "tokens 1..T (dark = active block)");
}

unsigned recall_colour(double error) {
  const float e = static_cast<float>(std::clamp(error, 0.0, 1.5));
  float r, g, b;
  if (e < 0.5f) r = 0.15f + 1.6f * e, g = 0.65f + 0.3f * e, b = 0.25f;          // green -> yellow
  else if (e < 1.0f) r = 0.95f, g = 0.8f - 1.4f * (e - 0.5f), b = 0.2f;       // yellow -> red
  else r = 0.95f - 0.8f * (e - 1.0f), g = 0.1f, b = 0.2f;                      // red -> dark red
  return ImGui::ColorConvertFloat4ToU32(ImVec4(r, g, b, 1));
}

void draw_recall_bars(const char* id, const std::vector<double>& recall, int T, float width, float height) {
  ImGui::PushID(id);
  const float axis_w = ImGui::CalcTextSize("0.0").x + ui_px(10), top = 1.5f;  // the bars' scale: 0 .. 1.5, larger errors clipped
  const float tick_h = ImGui::GetFontSize();
  ImGui::InvisibleButton("##bars", ImVec2(width, height + tick_h / 2 + tick_h + ui_px(2)));
  register_content(ContentKind::plot, id, ImGui::GetItemRectMin(), ImGui::GetItemRectMax(), height);
  ImVec2 o = ImGui::GetItemRectMin();
  o.y += tick_h / 2;  // room for the top tick's label
  const bool hovered = ImGui::IsItemHovered();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float x0 = o.x + axis_w, bw = (width - axis_w) / std::max(T, 1);
  const auto y_of = [&](double e) { return o.y + height - height * static_cast<float>(std::min(e, double(top)) / top); };
  const ImU32 faint = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  for (double tick : {0.0, 0.5, 1.0, 1.5}) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%.1f", tick);
    dl->AddText(ImVec2(o.x, y_of(tick) - tick_h / 2), faint, buf);
    dl->AddLine(ImVec2(x0, y_of(tick)), ImVec2(o.x + width, y_of(tick)), IM_COL32(128, 128, 128, 60));
  }
  for (float x = x0; x < o.x + width; x += ui_px(8))  // dashed: the caption's "recalled" threshold
    dl->AddLine(ImVec2(x, y_of(kRecalledBelow)), ImVec2(std::min(x + ui_px(4), o.x + width), y_of(kRecalledBelow)),
                IM_COL32(40, 160, 70, 200), ui_px(1.5f));
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  for (int i = 0; i < T; ++i) {
    const float a = x0 + i * bw + 1, b = x0 + (i + 1) * bw - 1;
    if (i < static_cast<int>(recall.size())) {
      dl->AddRectFilled(ImVec2(a, y_of(recall[i])), ImVec2(b, y_of(0)), recall_colour(recall[i]));
      if (recall[i] > top)
        dl->AddTriangleFilled(ImVec2(a, o.y + ui_px(6)), ImVec2(b, o.y + ui_px(6)), ImVec2((a + b) / 2, o.y), IM_COL32(120, 20, 30, 255));
    } else {
      dl->AddRect(ImVec2(a, o.y + height - ui_px(3)), ImVec2(b, y_of(0)), faint);  // not written yet
    }
    // Every label where they fit (two digits per bar), else every fourth.
    if (bw >= ImGui::CalcTextSize("00").x + ui_px(2) || (i + 1) % 4 == 0 || i == 0) {
      char buf[16];
      std::snprintf(buf, sizeof buf, "%d", i + 1);
      const float tw = ImGui::CalcTextSize(buf).x;
      dl->AddText(ImVec2((a + b - tw) / 2, o.y + height + ui_px(2)), faint, buf);
    }
    if (hovered && mouse.x >= a && mouse.x < b) {
      if (i < static_cast<int>(recall.size())) ImGui::SetTooltip("association %d: recall error %.4f", i + 1, recall[i]);
      else ImGui::SetTooltip("association %d: not written yet", i + 1);
    }
  }
  ImGui::PopID();
}

void draw_recall_history(const char* id, const nlohmann::json& recall_error, int T, int current, float cell) {
  ImGui::PushID(id);
  const float label_w = ImGui::CalcTextSize("00").x + ui_px(8);
  const ImVec2 o = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("##history", ImVec2(label_w + T * cell, T * cell + ImGui::GetTextLineHeightWithSpacing()));
  register_content(ContentKind::grid, id, ImGui::GetItemRectMin(), ImGui::GetItemRectMax(), cell);
  const bool hovered = ImGui::IsItemHovered();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 faint = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  for (int t = 1; t <= T; ++t) {
    const auto& row = recall_error[t - 1];
    for (int i = 1; i <= t; ++i) {
      const double e = row[i - 1].get<double>();
      const ImVec2 a(o.x + label_w + (t - 1) * cell, o.y + (i - 1) * cell), b(a.x + cell - 1, a.y + cell - 1);
      dl->AddRectFilled(a, b, recall_colour(e), 0);
      if (t > current) dl->AddRectFilled(a, b, IM_COL32(255, 255, 255, 150));  // the future, faded
      if (hovered && mouse.x >= a.x && mouse.x < b.x && mouse.y >= a.y && mouse.y < b.y)
        ImGui::SetTooltip("association %d at step %d: recall error %.4f", i, t, e);
    }
  }
  for (int i = 1; i <= T; i += (T > 16 ? 4 : 1)) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%d", i);
    dl->AddText(ImVec2(o.x, o.y + (i - 1) * cell + (cell - ImGui::GetFontSize()) / 2), faint, buf);
  }
  if (current >= 1)
    dl->AddRect(ImVec2(o.x + label_w + (current - 1) * cell - 1, o.y - 1),
                ImVec2(o.x + label_w + current * cell, o.y + T * cell), IM_COL32(255, 160, 0, 255), 0, 0, ui_px(2));
  dl->AddText(ImVec2(o.x + label_w, o.y + T * cell + ui_px(2)), faint, "step t ->  (row i: association i)");
  ImGui::PopID();
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
