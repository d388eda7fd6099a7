// The window's Save and Load (LabSession::save_experiment, load_experiment, and the controls column
// that calls them, drawn headless): a new name is saved in the user's experiments folder
// ($XDG_DATA_HOME/proteus-lab/experiments, made on the first save), the path field then names the
// file written, and Load finds it again by the relative name from any folder, as `proteus train`
// does; a shipped preset loads by its relative name too. Folder names carry spaces and non-ASCII
// letters. Where a shipped preset is saved (never /usr/share): tests/config/test_preset_save.cpp.
#include <gtest/gtest.h>
#include <imgui.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "app/gui/view/lab_app.hpp"
#include "tests/support/headless_lab_app.hpp"

namespace {

using namespace proteus;
namespace fs = std::filesystem;

class SaveLoadTest : public test_support::HeadlessLabApp {
 protected:
  void SetUp() override {
    if (const char* old = std::getenv("XDG_DATA_HOME")) old_data_home_ = old;
    data_home_ = dir_.path() / "data home é";
    setenv("XDG_DATA_HOME", data_home_.c_str(), 1);
    before_ = fs::current_path();
    work_ = dir_.path() / "work dir ü";
    fs::create_directories(work_);
    fs::current_path(work_);  // a folder with no experiments/: names are looked up
    HeadlessLabApp::SetUp();
  }
  void TearDown() override {
    HeadlessLabApp::TearDown();
    fs::current_path(before_);
    old_data_home_ ? setenv("XDG_DATA_HOME", old_data_home_->c_str(), 1) : unsetenv("XDG_DATA_HOME");
  }
  void draw_frames(int n) {
    for (int i = 0; i < n; ++i) {
      ImGui::NewFrame();
      app_->frame();
      ImGui::Render();
    }
  }
  fs::path experiments() const { return data_home_ / "proteus-lab" / "experiments"; }

  fs::path data_home_, work_, before_;
  std::optional<std::string> old_data_home_;
};

TEST_F(SaveLoadTest, ANewNameIsSavedInTheUsersFolderAndLoadsBackByName) {
  ASSERT_FALSE(fs::exists(experiments())) << "made on the first save, not before";
  EXPECT_EQ(app_->save_target("mine.json"), experiments() / "mine.json");
  auto& ed = app_->editor.experiment;
  ed.edit_config([](config::RunConfig& c) {
    c.seed = 1234;
    return true;
  });
  const auto saved = app_->save_experiment("mine.json");
  const auto& written = saved.path;
  ASSERT_TRUE(saved.ok) << saved.message;
  ASSERT_EQ(written, experiments() / "mine.json") << saved.message;
  EXPECT_TRUE(fs::is_regular_file(written));
  EXPECT_NE(app_->status_line.text.find(written.string()), std::string::npos) << "the message names the file";
  EXPECT_FALSE(fs::exists(work_ / "mine.json")) << "nothing in the working folder";

  ed.edit_config([](config::RunConfig& c) {
    c.seed = 1;
    return true;
  });
  const auto loaded = app_->load_experiment("mine.json");
  EXPECT_TRUE(loaded.ok) << loaded.message;
  EXPECT_EQ(app_->editor.experiment.config().seed, 1234u) << "the saved file was read back";
}

TEST_F(SaveLoadTest, AShippedPresetLoadsByItsRelativeName) {
  app_->load_experiment("rules/delta-cpu.json");  // not in this folder: experiments/ of the data root
  EXPECT_FALSE(app_->status_line.is_error) << app_->status_line.text;
  EXPECT_NE(app_->status_line.text.find("experiments/rules/delta-cpu.json"), std::string::npos) << app_->status_line.text;
  app_->load_experiment("experiments/quickstart-cpu.json");  // the path the docs use
  EXPECT_FALSE(app_->status_line.is_error) << app_->status_line.text;
}

TEST_F(SaveLoadTest, TheControlsColumnDrawsWithTheUsersFolderNotYetMade) {
  app_->editor.controls.experiment_file = "my-experiment.json";
  draw_frames(3);  // Save's target is worked out each frame: no folder is made for it
  EXPECT_FALSE(fs::exists(data_home_));
}

}  // namespace
