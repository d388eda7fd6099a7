// Issue 48: the window opened with no preset starts on a valid experiment, never on a red config
// error (it used to start in compare mode with E = 1, which compare refuses): the quickstart preset
// when the presets are there (the source tree's, or an installed share/proteus-lab), else the
// built-in defaults compared at E = 16.
#include <gtest/gtest.h>
#include <imgui.h>

#include <vector>

#include "app/gui/view/lab_app.hpp"
#include "tests/support/headless_imgui.hpp"
#include "tests/support/headless_lab_app.hpp"
#include "tests/support/temp_dir.hpp"

namespace {

using namespace proteus;

void draw_frame(gui::LabApp& app) {
  ImGui::NewFrame();
  app.frame();
  ImGui::Render();
}

// A valid start: nothing in red, the controls' runs trainable (Train enabled), two runs to compare.
void expect_valid_start(const gui::LabApp& app) {
  EXPECT_EQ(app.editor.problem, "");
  EXPECT_FALSE(app.status_line.is_error) << app.status_line.text;
  EXPECT_EQ(app.editor.experiment.mode(), gui::RunMode::compare);
  EXPECT_GT(app.editor.experiment.config().model.mixer.E, 1);
  std::vector<config::RunConfig> runs;
  ASSERT_NO_THROW(runs = app.editor.experiment.runs());
  EXPECT_EQ(runs.size(), 2u);
  EXPECT_TRUE(app.editor.activation.has_value()) << app.editor.activation_error;
}

using DefaultExperiment = test_support::HeadlessLabApp;

TEST_F(DefaultExperiment, OpensOnTheQuickstartPreset) {
  draw_frame(*app_);
  expect_valid_start(*app_);
  EXPECT_EQ(app_->editor.preset_label, gui::kDefaultPreset);
  EXPECT_EQ(app_->editor.experiment.config().name, "quickstart");
  EXPECT_EQ(app_->editor.experiment.config().model.mixer.E, 16);
  EXPECT_EQ(app_->editor.experiment.config().runs_dir, (dir_.path() / "runs").string()) << "the window's runs folder";
}

// Without the presets (a data folder that lacks them) or with an unreadable quickstart, the
// built-in defaults, compared at E = 16.
class DefaultExperimentWithoutPresets : public ::testing::Test {
 protected:
  void SetUp() override { context_ = test_support::create_headless_imgui(); }
  void TearDown() override { ImGui::DestroyContext(context_); }
  void expect_built_in_defaults(const std::filesystem::path& root) {
    gui::LabApp app(root, dir_.path() / "runs");
    draw_frame(app);
    expect_valid_start(app);
    EXPECT_EQ(app.editor.preset_label, "");
    EXPECT_EQ(app.editor.experiment.config().model.mixer.E, 16);
  }
  ImGuiContext* context_ = nullptr;
  test_support::TempDir dir_;
};

TEST_F(DefaultExperimentWithoutPresets, StartsOnTheBuiltInDefaultsAtE16) { expect_built_in_defaults(dir_.path()); }

TEST_F(DefaultExperimentWithoutPresets, AnUnreadableQuickstartFallsBackToTheDefaults) {
  dir_.write("data/experiments/quickstart-cpu.json", "{\"model\": {\"mixer\": {\"E\": ");
  expect_built_in_defaults(dir_.path() / "data");
}

}  // namespace
