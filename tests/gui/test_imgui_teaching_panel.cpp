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
    app_ = std::make_unique<gui::LabApp>(PROTEUS_SOURCE_DIR, dir_.path() / "runs");
    app_->show(gui::Tab::teach);
    frame();
  }
  void TearDown() override {
    app_.reset();
    ImGui::DestroyContext(context_);
  }
  // One frame with `key` (a gui::key code, what the GLFW backend writes into io.KeysDown) held
  // down, or none; the key is released after it.
  void frame(int key = -1) {
    ImGuiIO& io = ImGui::GetIO();
    if (key >= 0) io.KeysDown[key] = true;
    ImGui::NewFrame();
    app_->frame();
    ImGui::Render();
    if (key >= 0) {
      io.KeysDown[key] = false;
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
  auto& st = app_->teach.stepper;
  ASSERT_EQ(st.t(), 0);
  frame(gui::key::right);
  EXPECT_EQ(st.t(), 1);
  frame(gui::key::right);
  EXPECT_EQ(st.t(), 2);
  frame(gui::key::left);
  EXPECT_EQ(st.t(), 1);
  frame(gui::key::end);
  EXPECT_EQ(st.t(), st.T());
  frame(gui::key::home);
  EXPECT_EQ(st.t(), 0);
  frame(gui::key::space);
  EXPECT_TRUE(app_->teach.playing);
  frame(gui::key::space);
  EXPECT_FALSE(app_->teach.playing);
  // Both memories are drawn from the stepper at every step.
  frame(gui::key::end);
  EXPECT_EQ(st.current().gated.recall.size(), static_cast<size_t>(st.T()));
  EXPECT_EQ(st.current().ungated.recall.size(), static_cast<size_t>(st.T()));
}

TEST_F(TeachingPanel, KeysTypedIntoATextFieldDoNotStep) {
  auto& st = app_->teach.stepper;
  ImGuiIO& io = ImGui::GetIO();
  io.KeysDown[gui::key::right] = true;
  ImGui::NewFrame();
  io.WantTextInput = true;  // as when the seed field holds the keyboard (NewFrame sets it)
  app_->frame();
  ImGui::Render();
  EXPECT_EQ(st.t(), 0);
  io.KeysDown[gui::key::right] = false;
  frame();
  frame(gui::key::right);  // the same key once the field lets go
  EXPECT_EQ(st.t(), 1);
}

}  // namespace
