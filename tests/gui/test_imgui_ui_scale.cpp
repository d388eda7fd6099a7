// The window's scale, shortcuts, presentation view and settings file, headless (Dear ImGui
// without a window, the whole LabApp frame): fonts are rebuilt at the scale's pixel size and the
// style scaled from scratch; the keys in the shortcut table do what it says and the help overlay
// lists them; F11 presents the Teach stream or a tab's figures in the large font; the scale and
// an ImGui window's layout survive a save and a load in a temporary config folder; the cut-text
// check finds a label that does not fit and passes one that does; every tab at scale 1 and 2
// draws no cut text.
#include <gtest/gtest.h>
#include <imgui.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>

#include "app/gui/state/ui_settings.hpp"
#include "app/gui/view/lab_app.hpp"
#include "app/gui/view/shortcuts.hpp"
#include "app/gui/view/text_check.hpp"
#include "app/gui/view/ui_scale.hpp"
#include "app/gui/view/ui_settings_handler.hpp"
#include "tests/support/headless_imgui.hpp"
#include "tests/support/temp_dir.hpp"

namespace {

using namespace proteus;
using gui::ShortcutAction;

std::string without_spaces(std::string s) {
  std::erase(s, ' ');
  return s;
}

class UiScaleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    context_ = test_support::create_headless_imgui();
    app_ = std::make_unique<gui::LabApp>(PROTEUS_SOURCE_DIR, dir_.path() / "runs");
    scale(1.0f);
  }
  void TearDown() override {
    app_.reset();
    ImGui::DestroyContext(context_);
  }
  // The fonts and style at `s`, as main.cpp applies them between frames.
  void scale(float s) {
    app_->fonts = gui::apply_ui_scale(s);
    app_->display.ui_scale = s;
  }
  // One frame with `key` (a gui::key code) pressed, with Ctrl when `ctrl`; or with `typed` typed.
  void frame(int key = -1, bool ctrl = false, ImWchar typed = 0) {
    ImGuiIO& io = ImGui::GetIO();
    if (key >= 0) io.KeysDown[key] = true;
    io.KeyCtrl = ctrl;
    if (typed) io.AddInputCharacter(typed);
    ImGui::NewFrame();
    app_->frame();
    ImGui::Render();
    if (key >= 0) {
      io.KeysDown[key] = false;
      io.KeyCtrl = false;
      ImGui::NewFrame();  // the release, so the next press is a new one
      app_->frame();
      ImGui::Render();
    }
    if (const auto s = app_->take_ui_scale_request()) scale(*s);  // between frames, as main.cpp does
  }
  std::vector<gui::DrawnText> text_in(const std::string& window) {
    std::vector<gui::DrawnText> out;
    for (auto& t : gui::drawn_text(*ImGui::GetDrawData(), *ImGui::GetIO().Fonts))
      if (t.window.rfind(window, 0) == 0) out.push_back(std::move(t));
    return out;
  }
  ImGuiContext* context_ = nullptr;
  test_support::TempDir dir_;
  std::unique_ptr<gui::LabApp> app_;
};

TEST_F(UiScaleTest, FontsAreRebuiltAtTheScalesPixelSizeAndTheStyleScaledFromScratch) {
  const ImGuiStyle fresh = gui::scaled_style(1.0f);
  frame();
  EXPECT_FLOAT_EQ(ImGui::GetFontSize(), gui::kBaseFontPx);
  scale(2.0f);
  frame();
  EXPECT_FLOAT_EQ(ImGui::GetFontSize(), 2 * gui::kBaseFontPx);  // a font of 30 pixels, not 15 stretched
  EXPECT_FLOAT_EQ(ImGui::GetIO().FontGlobalScale, 1.0f);
  EXPECT_FLOAT_EQ(app_->fonts.presentation->FontSize, 2 * gui::kBaseFontPx * gui::kPresentationFontFactor);
  EXPECT_FLOAT_EQ(ImGui::GetStyle().ItemSpacing.x, 2 * fresh.ItemSpacing.x);
  EXPECT_FLOAT_EQ(ImGui::GetStyle().FramePadding.y, 2 * fresh.FramePadding.y);
  EXPECT_FLOAT_EQ(gui::ui_px(100), 200.0f);
  // Up and down again: the same style as at the start (nothing compounds).
  scale(1.5f);
  scale(1.0f);
  EXPECT_FLOAT_EQ(ImGui::GetStyle().ItemSpacing.x, fresh.ItemSpacing.x);
  EXPECT_FLOAT_EQ(ImGui::GetStyle().WindowPadding.x, fresh.WindowPadding.x);
}

TEST_F(UiScaleTest, CtrlPlusMinusAndZeroStepTheScale) {
  app_->display.default_ui_scale = 1.25f;  // the monitor's
  frame(gui::key::equal, true);
  EXPECT_FLOAT_EQ(app_->display.ui_scale, 1.25f);
  frame(gui::key::keypad_add, true);
  EXPECT_FLOAT_EQ(app_->display.ui_scale, 1.5f);
  frame(gui::key::minus, true);
  frame(gui::key::minus, true);
  frame(gui::key::minus, true);
  EXPECT_FLOAT_EQ(app_->display.ui_scale, 0.75f);
  frame(gui::key::zero, true);
  EXPECT_FLOAT_EQ(app_->display.ui_scale, 1.25f);
  frame(gui::key::equal, false);  // '=' without Ctrl is not a shortcut
  EXPECT_FLOAT_EQ(app_->display.ui_scale, 1.25f);
  EXPECT_FLOAT_EQ(ImGui::GetFontSize(), 1.25f * gui::kBaseFontPx);
}

TEST_F(UiScaleTest, EveryActionHasAKeyAndEveryKeyIsListedOnce) {
  std::set<ShortcutAction> actions;
  std::set<std::string> keys_per_scope;
  for (const auto& s : gui::shortcut_table()) {
    actions.insert(s.action);
    EXPECT_TRUE(keys_per_scope.insert(std::to_string(int(s.scope)) + "/" + std::to_string(s.key) + (s.ctrl ? "c" : "")).second)
        << s.keys << ": the same key twice in one scope";
  }
  EXPECT_EQ(actions.size(), size_t(ShortcutAction::figure_previous) + 1) << "an action no key reaches";
  // The Teach tab lists its stream's keys, not the figures'; a presented figure tab the reverse.
  const auto names = [](const gui::ShortcutContext& c) {
    std::set<ShortcutAction> a;
    for (const auto* s : gui::shortcuts_for(c)) a.insert(s->action);
    return a;
  };
  const auto teach = names({true, false}), figures = names({false, true}), plain = names({false, false});
  EXPECT_TRUE(teach.count(ShortcutAction::teach_step_forward) && !teach.count(ShortcutAction::figure_next));
  EXPECT_TRUE(figures.count(ShortcutAction::figure_next) && !figures.count(ShortcutAction::teach_step_forward));
  EXPECT_TRUE(plain.count(ShortcutAction::toggle_presentation) && !plain.count(ShortcutAction::figure_next));
}

TEST_F(UiScaleTest, HelpOverlayListsTheShortcutsOfTheCurrentTab) {
  app_->show(gui::Tab::teach);
  frame(gui::key::f1);
  ASSERT_TRUE(app_->display.help_open);
  frame();
  std::string shown;
  for (const auto& t : text_in("Keyboard shortcuts")) shown += t.text + "\n";
  for (const auto* s : gui::shortcuts_for(app_->shortcut_context())) {
    EXPECT_NE(shown.find(without_spaces(s->keys)), std::string::npos) << s->keys << " missing from:\n" << shown;
    EXPECT_NE(shown.find(without_spaces(s->what)), std::string::npos) << s->what;
  }
  EXPECT_EQ(shown.find(without_spaces("next figure")), std::string::npos) << "a figure key in the Teach tab's list";
  frame(gui::key::escape);
  EXPECT_FALSE(app_->display.help_open);
  frame(0, false, '?');  // '?' typed opens it too, on any keyboard layout
  EXPECT_TRUE(app_->display.help_open);
  frame(0, false, '?');
  EXPECT_FALSE(app_->display.help_open);
}

TEST_F(UiScaleTest, F11PresentsTheTeachStreamInLargeTypeAndTheArrowsStepIt) {
  app_->show(gui::Tab::teach);
  frame();
  float ui_height = 0;
  for (const auto& t : text_in("Proteus Lab")) ui_height = std::max(ui_height, t.height);
  frame(gui::key::f11);
  ASSERT_TRUE(app_->display.presenting);
  frame();
  bool leave_button = false;
  float shown_height = 0;
  for (const auto& t : text_in("Proteus Lab: presentation")) {
    leave_button |= t.text.find("Leave(F11)") != std::string::npos;
    shown_height = std::max(shown_height, t.height);
  }
  EXPECT_TRUE(leave_button);
  EXPECT_GT(shown_height, ui_height * 1.4f) << "the presentation view's type is the large font";
  EXPECT_TRUE(text_in("controls").empty()) << "no controls column while presenting";
  frame(gui::key::right);
  frame(gui::key::right);
  EXPECT_EQ(app_->teach.stepper.t(), 2);
  frame(gui::key::space);
  EXPECT_TRUE(app_->teach.playing);
  frame(gui::key::escape);  // leaves the presentation view
  EXPECT_FALSE(app_->display.presenting);
}

TEST_F(UiScaleTest, PresentedFiguresStepWithTheArrows) {
  app_->show(gui::Tab::activation);
  frame();
  frame(gui::key::f11);
  ASSERT_TRUE(app_->display.presenting);
  ASSERT_EQ(app_->presentation_figures().size(), 2u);  // the quickstart's activation map and state picture
  frame(gui::key::right);
  EXPECT_EQ(app_->display.presented_figure, 1);
  frame(gui::key::right);
  EXPECT_EQ(app_->display.presented_figure, 0);  // past the last figure: round to the first
  EXPECT_EQ(app_->teach.stepper.t(), 0) << "the arrows step figures here, not the Teach stream";
  frame(gui::key::f11);
  EXPECT_FALSE(app_->display.presenting);
  // A tab with no figures yet says so instead of drawing nothing.
  app_->show(gui::Tab::training);
  frame(gui::key::f11);
  frame();
  std::string shown;
  for (const auto& t : text_in("Proteus Lab: presentation")) shown += t.text;
  EXPECT_NE(shown.find("Nofiguresinthetrainingtabyet"), std::string::npos) << shown;
}

TEST_F(UiScaleTest, ScaleAndLayoutSurviveARestartInTheConfigFolder) {
  const std::string ini = (dir_.path() / "imgui.ini").string();
  gui::UiSettings saved;
  saved.ui_scale = 1.75f;
  saved.window_width = 1400, saved.window_height = 900;
  saved.tab = "teach";
  {
    ImGuiContext* writer = test_support::create_headless_imgui();  // the fixture's context stays untouched
    gui::register_ui_settings_handler(&saved);
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(123, 45));
    ImGui::Begin("a movable window");
    ImGui::End();
    ImGui::Render();
    gui::save_settings_file(ini, true);  // as the window saves it
    ImGui::DestroyContext(writer);
  }
  std::ifstream f(ini);
  std::stringstream text;
  text << f.rdbuf();
  EXPECT_NE(text.str().find("[ProteusLab][Window]\nUiScale=1.75\nWindowSize=1400,900\nTab=teach\n"), std::string::npos)
      << text.str();

  ImGuiContext* reader = test_support::create_headless_imgui();
  gui::UiSettings loaded;
  gui::register_ui_settings_handler(&loaded);
  gui::load_settings_file(ini);  // as the window reads it
  EXPECT_EQ(loaded, saved);
  ImGui::NewFrame();
  ImGui::Begin("a movable window");
  const ImVec2 pos = ImGui::GetWindowPos();
  ImGui::End();
  ImGui::Render();
  EXPECT_FLOAT_EQ(pos.x, 123.0f);  // ImGui's own layout came back with ours
  EXPECT_FLOAT_EQ(pos.y, 45.0f);
  ImGui::DestroyContext(reader);
  ImGui::SetCurrentContext(context_);
}

TEST_F(UiScaleTest, CutTextCheckFindsALabelThatDoesNotFit) {
  ImGui::NewFrame();
  ImGui::SetNextWindowPos(ImVec2(10, 10));
  ImGui::SetNextWindowSize(ImVec2(400, 200));
  ImGui::Begin("probe", nullptr, ImGuiWindowFlags_NoSavedSettings);
  ImGui::Button("fits");
  ImGui::Button("a label far too long for its button", ImVec2(60, 0));  // ImGui trims it to the frame
  ImGui::End();
  ImGui::SetNextWindowPos(ImVec2(10, 300));
  ImGui::SetNextWindowSize(ImVec2(120, 100));
  ImGui::Begin("narrow", nullptr, ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoScrollbar);
  ImGui::TextUnformatted("a line that runs past the window's edge");
  ImGui::End();
  ImGui::Render();
  const auto cut = gui::find_cut_text(*ImGui::GetDrawData(), *ImGui::GetIO().Fonts);
  std::set<std::string> where;
  for (const auto& c : cut) {
    where.insert(c.window);
    EXPECT_EQ(c.text.find("fits"), std::string::npos) << "a label that fits reported cut";
  }
  EXPECT_EQ(where, (std::set<std::string>{"probe", "narrow"}));
}

// Every tab, and the presentation views, at scale 1 in 1600 x 1000, and at scale 2 in 2560 x 1600
// (a high-density laptop) and 1920 x 1200 (a projector): no text is cut off.
TEST_F(UiScaleTest, NoTabCutsTextAtScaleOneOrTwo) {
  for (const auto& [s, size] : {std::pair{1.0f, ImVec2(1600, 1000)}, {2.0f, ImVec2(2560, 1600)}, {2.0f, ImVec2(1920, 1200)}}) {
    scale(s);
    ImGui::GetIO().DisplaySize = size;
    for (const auto tab : {gui::Tab::activation, gui::Tab::training, gui::Tab::runs, gui::Tab::explore, gui::Tab::teach}) {
      for (const bool present : {false, true}) {
        app_->show(tab);
        app_->display.presenting = present;
        app_->teach.stepper.go_to(7);
        // A requested tab is drawn from the second frame; its scroll range from the third.
        for (int i = 0; i < 3; ++i) frame();
        for (const auto& c : gui::find_cut_text(*ImGui::GetDrawData(), *ImGui::GetIO().Fonts))
          ADD_FAILURE() << "scale " << s << " in " << size.x << " x " << size.y << ", " << gui::tab_name(tab) << (present ? " presented" : "") << ": cut in "
                        << c.window << " at (" << c.x << ", " << c.y << "): " << c.text;
      }
    }
  }
}

}  // namespace
