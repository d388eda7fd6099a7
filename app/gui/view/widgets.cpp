#include "app/gui/view/widgets.hpp"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <limits>
#include <string>
#include <string_view>

#include "app/gui/view/ui_scale.hpp"
#include "core/config/size_bounds.hpp"

namespace proteus::gui {

bool combo(const char* label, std::string& value, const std::vector<std::string>& items) {
  bool changed = false;
  // A value wider than the column's item width ("normalize_then_mask" at scale 2) widens its combo,
  // the label going above it when both do not fit on one line.
  std::string id = label;
  const float want = ImGui::CalcTextSize(value.c_str()).x + ImGui::GetFrameHeight() + 2 * ImGui::GetStyle().FramePadding.x;
  if (want > ImGui::CalcItemWidth()) {
    const float avail = ImGui::GetContentRegionAvail().x;
    if (want + label_width(label) > avail) {
      const std::string_view shown(label);
      const std::string text(shown.substr(0, shown.find("##")));
      ImGui::TextUnformatted(text.c_str());
      id = std::string("##") + label;
    }
    ImGui::SetNextItemWidth(std::min(want, avail));
  }
  if (ImGui::BeginCombo(id.c_str(), value.c_str())) {
    for (const auto& it : items) {
      const bool sel = it == value;
      if (ImGui::Selectable(it.c_str(), sel)) {
        changed = value != it;
        value = it;
      }
      if (sel) ImGui::SetItemDefaultFocus();
    }
    ImGui::EndCombo();
  }
  return changed;
}

bool input_int(const char* label, int& v, int lo, int hi, int step, int fast) {
  int x = v;
  if (!ImGui::InputInt(label, &x, step, fast)) return false;
  v = std::clamp(x, lo, hi);
  return true;
}

bool input_config_int(const char* label, const char* path, int& v, int step, int fast) {
  const auto* b = config::size_bound(path);
  const int lo = b ? static_cast<int>(std::max<int64_t>(b->lo, std::numeric_limits<int>::min())) : std::numeric_limits<int>::min();
  const int hi = b ? static_cast<int>(std::min<int64_t>(b->hi, std::numeric_limits<int>::max())) : std::numeric_limits<int>::max();
  const bool changed = input_int(label, v, lo, hi, step, fast);
  if (b && ImGui::IsItemHovered()) ImGui::SetTooltip("%s: %lld to %lld", path, static_cast<long long>(b->lo), static_cast<long long>(b->hi));
  return changed;
}

bool horizon_input(const char* label, int& N, int auto_value) {
  ImGui::PushID(label);
  bool is_auto = N == 0, changed = false;
  const std::string box = "auto (" + std::to_string(auto_value) + ")";
  if (ImGui::Checkbox(box.c_str(), &is_auto)) N = is_auto ? 0 : auto_value, changed = true;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("auto: the horizon is data.seq_len, the training length");
  ImGui::SameLine();
  if (is_auto) {
    ImGui::TextDisabled("%s", label);
  } else {
    ImGui::SetNextItemWidth(std::min(ui_px(160), std::max(ui_px(80), ImGui::GetContentRegionAvail().x - label_width(label))));
    changed |= input_int(label, N, 1, 1 << 20, 16, 256);
  }
  ImGui::PopID();
  return changed;
}

float horizon_input_width(const char* label, int auto_value) {
  const std::string box = "auto (" + std::to_string(auto_value) + ")";
  return ImGui::GetFrameHeight() + label_width(box.c_str()) + ImGui::GetStyle().ItemSpacing.x + ui_px(80) + label_width(label);
}

bool input_double(const char* label, double& v, double lo, double hi, const char* fmt) {
  double x = v;
  if (!ImGui::InputDouble(label, &x, 0, 0, fmt)) return false;
  v = std::clamp(x, lo, hi);
  return true;
}

void flow_same_line(float width) {
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  const float next = ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x;
  if (next + width <= right) ImGui::SameLine();
}

float field_width_for(const std::string& text, float min_width) {
  const float want = ImGui::CalcTextSize(text.c_str()).x + 2 * ImGui::GetStyle().FramePadding.x + ui_px(8);
  return std::min(std::max(want, min_width), ImGui::GetContentRegionAvail().x);
}

namespace {

bool utf8_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }
bool fits(const std::string& text, float width) { return ImGui::CalcTextSize(text.c_str()).x <= width; }

}  // namespace

std::string text_fitting(const std::string& text, float width) {
  if (fits(text, width)) return text;
  size_t lo = 0, hi = text.size();  // the longest prefix whose "prefix..." fits: in [lo, hi)
  while (lo + 1 < hi) {
    const size_t mid = (lo + hi) / 2;
    if (fits(text.substr(0, mid) + "...", width)) lo = mid;
    else hi = mid;
  }
  while (lo > 0 && utf8_continuation(text[lo])) --lo;  // whole UTF-8 characters
  return text.substr(0, lo) + "...";
}

std::string path_end_fitting(const std::string& path, float width) {
  if (fits(path, width)) return path;
  // Whole folders first: the longest tail that starts at a separator and still fits.
  std::string best;
  for (size_t slash = path.rfind('/'); slash != std::string::npos && slash > 0; slash = path.rfind('/', slash - 1)) {
    const std::string tail = "..." + path.substr(slash);
    if (!fits(tail, width)) break;
    best = tail;
  }
  if (!best.empty()) return best;
  size_t lo = 0, hi = path.size();  // the shortest suffix start whose "...suffix" fits: in (lo, hi]
  while (lo + 1 < hi) {
    const size_t mid = (lo + hi) / 2;
    if (fits("..." + path.substr(mid), width)) hi = mid;
    else lo = mid;
  }
  while (hi < path.size() && utf8_continuation(path[hi])) ++hi;  // whole UTF-8 characters
  return "..." + path.substr(hi);
}

bool path_field(const char* id, std::string& path) {
  // 0: the end shown; 1: a click asked to edit (focus the field); 2: the whole path being edited.
  ImGuiStorage* storage = ImGui::GetStateStorage();
  const ImGuiID key = ImGui::GetID(id);
  const int mode = storage->GetInt(key, 0);
  if (mode != 0) {
    if (mode == 1) ImGui::SetKeyboardFocusHere();
    const bool changed = ImGui::InputText(id, &path);
    if (mode == 1 && ImGui::IsItemActive()) storage->SetInt(key, 2);
    if (ImGui::IsItemDeactivated() || (mode == 2 && !ImGui::IsItemActive())) storage->SetInt(key, 0);
    return changed;
  }
  const float inner = ImGui::CalcItemWidth() - 2 * ImGui::GetStyle().FramePadding.x;
  std::string shown = path_end_fitting(path, inner);
  const std::string label(id);  // the same visible label, another ID ("label###id")
  ImGui::InputText((label.substr(0, label.find("##")) + "###shown " + label).c_str(), &shown,
                   ImGuiInputTextFlags_ReadOnly);
  if (ImGui::IsItemActivated()) storage->SetInt(key, 1);
  if (shown != path && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", path.c_str());
  return false;
}

float label_width(const char* label) {
  const float text = ImGui::CalcTextSize(label, nullptr, true).x;
  return text > 0 ? ImGui::GetStyle().ItemInnerSpacing.x + text : 0.0f;
}

}  // namespace proteus::gui
