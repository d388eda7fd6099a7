#include "app/gui/view/widgets.hpp"

#include <imgui.h>

#include <algorithm>

namespace proteus::gui {

bool combo(const char* label, std::string& value, const std::vector<std::string>& items) {
  bool changed = false;
  if (ImGui::BeginCombo(label, value.c_str())) {
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

bool input_double(const char* label, double& v, double lo, double hi, const char* fmt) {
  double x = v;
  if (!ImGui::InputDouble(label, &x, 0, 0, fmt)) return false;
  v = std::clamp(x, lo, hi);
  return true;
}

}  // namespace proteus::gui
