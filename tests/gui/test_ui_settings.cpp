// The UI scale's parsing and steps, and the settings entry's lines (state/ui_settings.hpp): a
// bad --ui-scale is refused with a message naming it; a hand-edited settings file never stops
// the window (bad lines are skipped); the config folder follows XDG_CONFIG_HOME, else HOME.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>

#include "app/gui/state/ui_settings.hpp"
#include "core/common/input_error.hpp"

namespace {

using namespace proteus::gui;

// The field and message a refused scale gives, or "(accepted)".
std::string refusal(const std::string& text) {
  try {
    parse_ui_scale(text);
  } catch (const proteus::InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(UiScale, ParsesNumbersInRange) {
  EXPECT_EQ(parse_ui_scale("1"), 1.0f);
  EXPECT_EQ(parse_ui_scale("1.5"), 1.5f);
  EXPECT_EQ(parse_ui_scale("0.5"), 0.5f);
  EXPECT_EQ(parse_ui_scale("4"), 4.0f);
}

TEST(UiScale, RefusesAnythingElseNamingTheOption) {
  for (const char* bad : {"", "abc", "2x", "1.5 ", "0.49", "4.01", "-1", "nan", "inf", "1e9"}) {
    const std::string why = refusal(bad);
    EXPECT_EQ(why.rfind("--ui-scale: must be a number in [0.5, 4]", 0), 0u) << bad << " -> " << why;
    EXPECT_NE(why.find(std::string("got \"") + bad + "\""), std::string::npos) << why;
  }
  // A long value is quoted shortened.
  EXPECT_LT(refusal(std::string(500, '9')).size(), 160u);
}

TEST(UiScale, ContentScaleIsRoundedToAStepAndClamped) {
  EXPECT_EQ(ui_scale_from_content_scale(1.0f), 1.0f);
  EXPECT_EQ(ui_scale_from_content_scale(1.3f), 1.25f);
  EXPECT_EQ(ui_scale_from_content_scale(2.0f), 2.0f);
  EXPECT_EQ(ui_scale_from_content_scale(9.0f), kMaxUiScale);
  EXPECT_EQ(ui_scale_from_content_scale(0.1f), kMinUiScale);
  EXPECT_EQ(ui_scale_from_content_scale(0.0f), 1.0f);
  EXPECT_EQ(ui_scale_from_content_scale(std::nanf("")), 1.0f);
}

TEST(UiScale, StepsUpAndDownOnTheGridWithinTheRange) {
  EXPECT_EQ(step_ui_scale(1.0f, +1), 1.25f);
  EXPECT_EQ(step_ui_scale(1.0f, -1), 0.75f);
  EXPECT_EQ(step_ui_scale(1.3f, +1), 1.5f);  // off the grid: the next grid point up
  EXPECT_EQ(step_ui_scale(1.3f, -1), 1.25f);
  EXPECT_EQ(step_ui_scale(kMaxUiScale, +1), kMaxUiScale);
  EXPECT_EQ(step_ui_scale(kMinUiScale, -1), kMinUiScale);
  float s = 1;
  for (int i = 0; i < 4; ++i) s = step_ui_scale(s, +1);
  EXPECT_EQ(s, 2.0f);
  for (int i = 0; i < 4; ++i) s = step_ui_scale(s, -1);
  EXPECT_EQ(s, 1.0f);
}

TEST(UiSettingsLines, RoundTrip) {
  UiSettings s;
  s.ui_scale = 1.75f;
  s.window_width = 1400, s.window_height = 900;
  s.tab = "teach";
  const std::string lines = write_ui_settings_lines(s);
  EXPECT_EQ(lines, "UiScale=1.75\nWindowSize=1400,900\nTab=teach\n");
  UiSettings back;
  size_t at = 0;
  while (at < lines.size()) {
    const size_t nl = lines.find('\n', at);
    EXPECT_TRUE(read_ui_settings_line(back, std::string_view(lines).substr(at, nl - at)));
    at = nl + 1;
  }
  EXPECT_EQ(back, s);
  EXPECT_EQ(write_ui_settings_lines(UiSettings{}), "");  // nothing remembered yet: nothing written
}

TEST(UiSettingsLines, BadLinesAreSkippedAndChangeNothing) {
  UiSettings s;
  s.ui_scale = 2.0f;
  s.window_width = 800, s.window_height = 600;
  s.tab = "runs";
  const UiSettings before = s;
  for (const char* bad : {"UiScale=9", "UiScale=big", "WindowSize=10,10", "WindowSize=800", "WindowSize=800,600,1",
                          "Tab=settings", "Colour=blue", "no equals sign", ""})
    EXPECT_FALSE(read_ui_settings_line(s, bad)) << bad;
  EXPECT_EQ(s, before);
}

// Sets an environment variable for one scope, restoring it after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) ::setenv(name, value, 1);
    else ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(UiSettingsFile, InTheUsersConfigFolderNotTheWorkingDirectory) {
  {
    ScopedEnv xdg("XDG_CONFIG_HOME", "/tmp/xdg-config");
    ScopedEnv home("HOME", "/home/someone");
    EXPECT_EQ(ui_settings_file(), "/tmp/xdg-config/proteus-lab/imgui.ini");
  }
  {
    ScopedEnv xdg("XDG_CONFIG_HOME", "relative/config");  // invalid by the XDG spec: ignored
    ScopedEnv home("HOME", "/home/someone");
    EXPECT_EQ(ui_settings_file(), "/home/someone/.config/proteus-lab/imgui.ini");
  }
  {
    ScopedEnv xdg("XDG_CONFIG_HOME", nullptr);
    ScopedEnv home("HOME", nullptr);
    EXPECT_TRUE(ui_settings_file().empty());
  }
}

}  // namespace
