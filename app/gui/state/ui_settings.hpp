// What the window remembers between runs beside Dear ImGui's own layout (tables' columns): the UI
// scale, the window's size and the tab shown. Kept in the ImGui settings file in the user's config
// folder ($XDG_CONFIG_HOME/proteus-lab/, else ~/.config/proteus-lab/), as a "[ProteusLab][Window]"
// entry whose lines this file reads and writes; view/ui_settings_handler.cpp registers it with
// ImGui. No ImGui here, so the parsing is tested on its own.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace proteus::gui {

// The UI scale's range and step: 1 is the 15-pixel font, 2 doubles every size.
inline constexpr float kMinUiScale = 0.5f;
inline constexpr float kMaxUiScale = 4.0f;
inline constexpr float kUiScaleStep = 0.25f;

// A scale given by the user ("--ui-scale 1.5"): throws InputError naming `field` unless the text
// is a plain number in [kMinUiScale, kMaxUiScale].
float parse_ui_scale(const std::string& text, const std::string& field = "--ui-scale");

// The monitor's content scale as a starting UI scale: clamped to the range, rounded to the step
// (a 1.3 content scale gives 1.25), 1 for anything not finite.
float ui_scale_from_content_scale(float content_scale);

// Ctrl + / Ctrl -: the next step up (direction +1) or down (-1) from `scale`, within the range.
float step_ui_scale(float scale, int direction);

struct UiSettings {
  std::optional<float> ui_scale;  // none: start from the monitor's content scale
  int window_width = 0;           // 0: not remembered
  int window_height = 0;
  std::string tab;                // "activation", "training", ... or ""
  bool operator==(const UiSettings&) const = default;
};

// One "Key=Value" line of the entry into `s`; false (and `s` unchanged) for a line it does not
// know or a value out of range, so a hand-edited file never stops the window from opening.
bool read_ui_settings_line(UiSettings& s, std::string_view line);
// The entry's lines, each ending in '\n' ("UiScale=1.5\nWindowSize=1600,1000\nTab=teach\n").
std::string write_ui_settings_lines(const UiSettings& s);

// The folder for the settings file: $XDG_CONFIG_HOME/proteus-lab when that is set and absolute,
// else $HOME/.config/proteus-lab; empty when neither is set (nothing is remembered then).
std::filesystem::path user_config_dir();
// The ImGui settings file in it ("imgui.ini"), or empty.
std::filesystem::path ui_settings_file();

}  // namespace proteus::gui
