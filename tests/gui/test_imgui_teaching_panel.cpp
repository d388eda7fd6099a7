// The Teach tab without a window (Dear ImGui headless, the whole LabApp frame): it draws both
// memories from the stepper, and the keys a teacher uses work: the right and left arrows step,
// space plays and pauses, End and Home jump; keys typed into a text field do not.
#include <gtest/gtest.h>
#include <imgui.h>

#include <memory>

#include "app/gui/view/lab_app.hpp"
#include "tests/support/headless_imgui.hpp"
#include "tests/support/temp_dir.hpp"

namespace {

using namespace proteus;

class TeachingPanel : public ::testing::Test {
 protected:
  void SetUp() override {
    context_ = test_support::create_headless_imgui();
    ImGuiIO& io = ImGui::GetIO();
    for (int k : {ImGuiKey_Space, ImGuiKey_LeftArrow, ImGuiKey_RightArrow, ImGuiKey_Home, ImGuiKey_End})
      io.KeyMap[k] = 100 + k;  // what a platform backend does: its own key codes
    app_ = std::make_unique<gui::LabApp>(PROTEUS_SOURCE_DIR, dir_.path() / "runs");
    app_->show(gui::Tab::teach);
    frame();
  }
  void TearDown() override {
    app_.reset();
    ImGui::DestroyContext(context_);
  }
  // One frame with `key` (an ImGuiKey_) held down, or none; the key is released after it.
  void frame(int key = -1) {
    ImGuiIO& io = ImGui::GetIO();
    if (key >= 0) io.KeysDown[io.KeyMap[key]] = true;
    ImGui::NewFrame();
    app_->frame();
    ImGui::Render();
    if (key >= 0) {
      io.KeysDown[io.KeyMap[key]] = false;
      ImGui::NewFrame();  // the release, so the next press is a new one
      app_->frame();
      ImGui::Render();
    }
  }
  ImGuiContext* context_ = nullptr;
  test_support::TempDir dir_;
  std::unique_ptr<gui::LabApp> app_;
};

TEST_F(TeachingPanel, ArrowsStepSpacePlaysHomeAndEndJump) {
  auto& st = app_->teaching;
  ASSERT_EQ(st.t(), 0);
  frame(ImGuiKey_RightArrow);
  EXPECT_EQ(st.t(), 1);
  frame(ImGuiKey_RightArrow);
  EXPECT_EQ(st.t(), 2);
  frame(ImGuiKey_LeftArrow);
  EXPECT_EQ(st.t(), 1);
  frame(ImGuiKey_End);
  EXPECT_EQ(st.t(), st.T());
  frame(ImGuiKey_Home);
  EXPECT_EQ(st.t(), 0);
  frame(ImGuiKey_Space);
  EXPECT_TRUE(app_->teaching_playing);
  frame(ImGuiKey_Space);
  EXPECT_FALSE(app_->teaching_playing);
  // Both memories are drawn from the stepper at every step.
  frame(ImGuiKey_End);
  EXPECT_EQ(st.current().gated.recall.size(), static_cast<size_t>(st.T()));
  EXPECT_EQ(st.current().ungated.recall.size(), static_cast<size_t>(st.T()));
}

TEST_F(TeachingPanel, KeysTypedIntoATextFieldDoNotStep) {
  auto& st = app_->teaching;
  ImGuiIO& io = ImGui::GetIO();
  io.KeysDown[io.KeyMap[ImGuiKey_RightArrow]] = true;
  ImGui::NewFrame();
  io.WantTextInput = true;  // as when the seed field holds the keyboard (NewFrame sets it)
  app_->frame();
  ImGui::Render();
  EXPECT_EQ(st.t(), 0);
  io.KeysDown[io.KeyMap[ImGuiKey_RightArrow]] = false;
  frame();
  frame(ImGuiKey_RightArrow);  // the same key once the field lets go
  EXPECT_EQ(st.t(), 1);
}

}  // namespace
