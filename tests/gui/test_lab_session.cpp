// The window's actions without a window (LabSession): each says what happened, posts the same on
// the status line, and leaves the state as the panels and the scripted runs expect: Load and Save
// (where Save writes, when it asks before replacing a file), Train refused, Explore refused, an
// export from start to end, the presentation view's figures, the Teach stream's playback, the UI
// scale request and the status line's log.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>

#include "app/gui/state/lab_session.hpp"
#include "app/gui/state/ui_settings.hpp"
#include "tests/support/temp_dir.hpp"

namespace {

using namespace proteus;
namespace fs = std::filesystem;

class LabSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* old = std::getenv("XDG_DATA_HOME")) old_data_home_ = old;
    setenv("XDG_DATA_HOME", (dir_.path() / "data home").c_str(), 1);
    before_ = fs::current_path();
    fs::create_directories(dir_.path() / "work");
    fs::current_path(dir_.path() / "work");  // no experiments/ here: names are looked up
    session_.emplace(PROTEUS_SOURCE_DIR, dir_.path() / "runs");
  }
  void TearDown() override {
    session_.reset();
    fs::current_path(before_);
    old_data_home_ ? setenv("XDG_DATA_HOME", old_data_home_->c_str(), 1) : unsetenv("XDG_DATA_HOME");
  }
  gui::LabSession& session() { return *session_; }
  fs::path experiments() const { return dir_.path() / "data home" / "proteus-lab" / "experiments"; }
  // The status line says what the action returned, in red exactly when it failed.
  void expect_posted(const gui::ActionResult& r) {
    EXPECT_EQ(session().status_line.text, r.message);
    EXPECT_EQ(session().status_line.is_error, !r.ok);
  }

  test_support::TempDir dir_;
  fs::path before_;
  std::optional<std::string> old_data_home_;
  std::optional<gui::LabSession> session_;
};

TEST_F(LabSessionTest, OpensOnTheQuickstart) {
  EXPECT_FALSE(session().status_line.is_error) << session().status_line.text;
  EXPECT_EQ(session().editor.preset_label, "quickstart-cpu.json");
  EXPECT_TRUE(session().editor.problem.empty()) << session().editor.problem;
  EXPECT_EQ(session().current_tab(), gui::Tab::activation);
  EXPECT_EQ(session().editor.experiment.config().runs_dir, (dir_.path() / "runs").string()) << "the window's runs folder";
}

TEST_F(LabSessionTest, LoadSaysWhatItReadOrWhyNot) {
  const auto loaded = session().load_experiment("rules/delta-cpu.json");
  ASSERT_TRUE(loaded) << loaded.message;
  expect_posted(loaded);
  EXPECT_EQ(loaded.path.filename(), "delta-cpu.json");
  EXPECT_EQ(session().editor.preset_label, "rules/delta-cpu.json");

  const auto missing = session().load_experiment("no-such-experiment.json");
  EXPECT_FALSE(missing);
  EXPECT_FALSE(missing.message.empty());
  expect_posted(missing);
  EXPECT_EQ(session().editor.preset_label, "rules/delta-cpu.json") << "a failed load leaves the editor as it was";
}

TEST_F(LabSessionTest, SaveNamesTheFileWrittenAndAsksOnlyBeforeReplacingAnother) {
  const auto target = session().save_target("mine.json");
  EXPECT_EQ(target, experiments() / "mine.json");
  EXPECT_FALSE(session().save_asks_first(target)) << "nothing there yet";

  const auto saved = session().save_experiment("mine.json");
  ASSERT_TRUE(saved) << saved.message;
  expect_posted(saved);
  EXPECT_EQ(saved.path, target);
  EXPECT_TRUE(fs::is_regular_file(target));
  EXPECT_EQ(session().editor.controls.experiment_file, target.string()) << "the path field names the file written";
  EXPECT_FALSE(session().save_asks_first(target)) << "this window wrote it: saved over without asking";

  const auto theirs = experiments() / "theirs.json";
  std::ofstream(theirs) << "{}\n";
  EXPECT_TRUE(session().save_asks_first(theirs)) << "a file this window did not write";
}

TEST_F(LabSessionTest, ASaveThatCannotBeWrittenSaysWhy) {
  std::ofstream(dir_.path() / "a file") << "x";
  const std::string field = (dir_.path() / "a file" / "mine.json").string();  // under a file: no folder there
  const std::string before = session().editor.controls.experiment_file;
  const auto saved = session().save_experiment(field);
  EXPECT_FALSE(saved);
  EXPECT_EQ(saved.message.rfind("cannot save: ", 0), 0u) << saved.message;
  expect_posted(saved);
  EXPECT_TRUE(saved.path.empty());
  EXPECT_EQ(session().editor.controls.experiment_file, before);
}

TEST_F(LabSessionTest, TrainingAnInvalidExperimentIsRefused) {
  session().editor.experiment.edit_config([](config::RunConfig& c) {
    c.model.d_model = 0;
    return true;
  });
  session().editor_changed();
  EXPECT_FALSE(session().editor.problem.empty());
  const auto started = session().start_training();
  EXPECT_FALSE(started);
  expect_posted(started);
  EXPECT_FALSE(session().training.active());
  EXPECT_EQ(session().current_tab(), gui::Tab::activation) << "the tab changes only when training starts";
}

TEST_F(LabSessionTest, ExploringAFolderThatIsNoRunIsRefused) {
  fs::create_directories(dir_.path() / "not a run");
  const auto opened = session().open_explore((dir_.path() / "not a run").string());
  EXPECT_FALSE(opened);
  EXPECT_FALSE(opened.message.empty());
  expect_posted(opened);
  EXPECT_FALSE(session().explore.session.is_open());
  EXPECT_EQ(session().current_tab(), gui::Tab::activation);
}

TEST_F(LabSessionTest, AnExportRunsOnAWorkerAndSaysHowItEnded) {
  const auto nothing = session().start_export({}, dir_.path() / "empty");
  EXPECT_FALSE(nothing);
  EXPECT_EQ(nothing.message, "nothing to export yet");
  EXPECT_FALSE(session().export_busy());

  session().show(gui::Tab::activation);
  const auto figs = session().presentation_figures();  // the activation map (and which elements open)
  ASSERT_FALSE(figs.empty());
  session().exports.settings.formats = {"csv"};
  const auto started = session().start_export(figs, dir_.path() / "exports");
  ASSERT_TRUE(started) << started.message;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!session().export_ended() && std::chrono::steady_clock::now() < deadline) {
    session().poll_workers();  // as each frame does
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(session().export_ended()) << "the export never ended";
  const auto& ended = *session().export_ended();
  EXPECT_TRUE(ended) << ended.message;
  expect_posted(ended);
  EXPECT_FALSE(session().export_busy());
  EXPECT_TRUE(fs::is_regular_file(dir_.path() / "exports" / "activation_map.csv"));
}

TEST_F(LabSessionTest, ThePresentationViewStepsThroughTheShownTabsFigures) {
  session().show(gui::Tab::activation);
  session().toggle_presentation();
  EXPECT_TRUE(session().display.presenting);
  ASSERT_FALSE(session().presentation_figures().empty());
  EXPECT_EQ(session().presentation_figures()[0].name, "activation_map");
  session().toggle_presentation();
  EXPECT_FALSE(session().display.presenting);
  session().show(gui::Tab::teach);
  EXPECT_TRUE(session().presentation_figures().empty()) << "the Teach tab is presented whole";
}

TEST_F(LabSessionTest, AUiScaleRequestIsClampedAndTakenOnce) {
  session().request_ui_scale(100.0f);
  EXPECT_EQ(session().requested_ui_scale(), gui::kMaxUiScale);
  EXPECT_NE(session().status_line.text.find("UI scale"), std::string::npos);
  EXPECT_EQ(session().take_ui_scale_request(), gui::kMaxUiScale);
  EXPECT_FALSE(session().take_ui_scale_request());
}

TEST(TeachPlayback, StepsWhenItsTimeComesAndStopsAtTheEnd) {
  gui::TeachState teach;
  teach.stepper.go_to(0);
  teach.steps_per_s = 2.0f;
  teach.toggle_play(10.0);
  EXPECT_TRUE(teach.playing);
  teach.advance(10.2);
  EXPECT_EQ(teach.stepper.t(), 0) << "half a second per step";
  teach.advance(10.5);
  EXPECT_EQ(teach.stepper.t(), 1);
  double now = 10.5;
  while (teach.playing && now < 100) teach.advance(now += 0.5);
  EXPECT_EQ(teach.stepper.t(), teach.stepper.T());
  EXPECT_FALSE(teach.playing) << "stops at the last token";
  teach.toggle_play(now);
  EXPECT_EQ(teach.stepper.t(), 0) << "play at the end starts again";
  teach.go_to(3);
  EXPECT_FALSE(teach.playing) << "stepping stops playback";
  EXPECT_EQ(teach.stepper.t(), 3);
}

TEST(StatusLine, KeepsTheLast200NoticesErrorsMarked) {
  gui::StatusLine line;
  for (int i = 0; i < 205; ++i) line.post("n" + std::to_string(i), i == 204 ? gui::Notice::error : gui::Notice::info);
  EXPECT_EQ(line.log.size(), 200u);
  EXPECT_EQ(line.log.front(), "n5");
  EXPECT_EQ(line.log.back(), "error: n204");
  EXPECT_TRUE(line.is_error);
  line.post("fine", gui::Notice::info);
  EXPECT_FALSE(line.is_error);
}

}  // namespace
