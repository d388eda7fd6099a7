// A test fixture with the whole window's state (LabApp) in a headless ImGui context and a runs
// folder of its own: the base of the window tests that draw real views.
#pragma once
#include <gtest/gtest.h>
#include <imgui.h>

#include <memory>

#include "app/gui/view/lab_app.hpp"
#include "tests/support/headless_imgui.hpp"
#include "tests/support/temp_dir.hpp"

namespace proteus::test_support {

class HeadlessLabApp : public ::testing::Test {
 protected:
  void SetUp() override {
    context_ = create_headless_imgui();
    app_ = std::make_unique<gui::LabApp>(PROTEUS_SOURCE_DIR, dir_.path() / "runs");
  }
  void TearDown() override {
    app_.reset();
    ImGui::DestroyContext(context_);
  }

  ImGuiContext* context_ = nullptr;
  TempDir dir_;
  std::unique_ptr<gui::LabApp> app_;
};

}  // namespace proteus::test_support
