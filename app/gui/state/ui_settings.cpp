#include "app/gui/state/ui_settings.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "app/gui/state/tabs.hpp"
#include "core/common/input_error.hpp"

namespace proteus::gui {
namespace {

std::string format_scale(float s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", double(s));
  return buf;
}

float snap(float s) { return std::round(s / kUiScaleStep) * kUiScaleStep; }

bool known_tab(std::string_view t) { return tab_from_name(t).has_value(); }

}  // namespace

float parse_ui_scale(const std::string& text, const std::string& field) {
  const std::string range = "must be a number in [" + format_scale(kMinUiScale) + ", " + format_scale(kMaxUiScale) + "]";
  const std::string shown = text.size() > 40 ? text.substr(0, 40) + "..." : text;
  float v = 0;
  size_t used = 0;
  try {
    v = std::stof(text, &used);
  } catch (const std::exception&) {
    throw InputError(field, range + " (1 = the normal size, 2 = twice as large), got \"" + shown + "\"");
  }
  if (used != text.size() || !std::isfinite(v) || v < kMinUiScale || v > kMaxUiScale)
    throw InputError(field, range + " (1 = the normal size, 2 = twice as large), got \"" + shown + "\"");
  return v;
}

float ui_scale_from_content_scale(float content_scale) {
  if (!std::isfinite(content_scale) || content_scale <= 0) return 1.0f;
  return std::clamp(snap(content_scale), kMinUiScale, kMaxUiScale);
}

float step_ui_scale(float scale, int direction) {
  // From a scale off the grid (1.3 from --ui-scale) the first step lands on the grid.
  const float grid = direction > 0 ? std::floor(scale / kUiScaleStep + 1e-3f) : std::ceil(scale / kUiScaleStep - 1e-3f);
  return std::clamp((grid + float(direction > 0 ? 1 : -1)) * kUiScaleStep, kMinUiScale, kMaxUiScale);
}

bool read_ui_settings_line(UiSettings& s, std::string_view line) {
  const auto eq = line.find('=');
  if (eq == std::string_view::npos) return false;
  const std::string key(line.substr(0, eq)), value(line.substr(eq + 1));
  if (key == "UiScale") {
    try {
      s.ui_scale = parse_ui_scale(value, key);
      return true;
    } catch (const std::exception&) {
      return false;
    }
  }
  if (key == "WindowSize") {
    int w = 0, h = 0;
    char extra = 0;
    if (std::sscanf(value.c_str(), "%d,%d%c", &w, &h, &extra) != 2 || w < 200 || h < 150 || w > 16384 || h > 16384)
      return false;
    s.window_width = w, s.window_height = h;
    return true;
  }
  if (key == "Tab" && known_tab(value)) {
    s.tab = value;
    return true;
  }
  return false;
}

std::string write_ui_settings_lines(const UiSettings& s) {
  std::string out;
  if (s.ui_scale) out += "UiScale=" + format_scale(*s.ui_scale) + "\n";
  if (s.window_width > 0 && s.window_height > 0)
    out += "WindowSize=" + std::to_string(s.window_width) + "," + std::to_string(s.window_height) + "\n";
  if (!s.tab.empty()) out += "Tab=" + s.tab + "\n";
  return out;
}

std::filesystem::path user_config_dir() {
  // The XDG base directory spec: a relative XDG_CONFIG_HOME is invalid and is ignored.
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg && std::filesystem::path(xdg).is_absolute())
    return std::filesystem::path(xdg) / "proteus-lab";
  if (const char* home = std::getenv("HOME"); home && *home) return std::filesystem::path(home) / ".config" / "proteus-lab";
  return {};
}

std::filesystem::path ui_settings_file() {
  const auto dir = user_config_dir();
  return dir.empty() ? dir : dir / "imgui.ini";
}

}  // namespace proteus::gui
