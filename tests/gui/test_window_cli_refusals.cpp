// Issue 46: one validator. A field the window refuses is refused by `proteus train` / `sweep` in
// the same words: the editor's problem line and the command on the file the editor saves both
// come from train::validate_runs over the same config::Experiment.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "app/gui/state/experiment_editor.hpp"
#include "tests/support/run_command.hpp"
#include "tests/train/tiny_run.hpp"

namespace {

using namespace proteus;

// The window's refusal, then the command's on the saved file: exit 2 and the same text.
void expect_same_refusal(const gui::ExperimentEditor& ed, const std::filesystem::path& file, const std::string& field) {
  const std::string problem = ed.problem();
  ASSERT_EQ(problem.rfind(field + ":", 0), 0u) << problem;
  const auto cli = test_support::run_proteus({ed.cli_command(), file.string(), "--dry-run"});
  EXPECT_EQ(cli.status, 2) << cli.out;
  EXPECT_NE(cli.out.find(problem), std::string::npos) << "window: " << problem << "\ncli: " << cli.out;
}

TEST(WindowAndCliRefusals, AMissingCorpusIsRefusedInTheSameWords) {
  const auto dir = test_support::fresh_dir("refusal-corpus");
  gui::ExperimentEditor ed;
  ed.set_config(test_support::tiny_run(dir / "runs"));
  ed.set_mode(gui::RunMode::single);
  ed.edit_config([&](config::RunConfig& c) {
    c.data.text.path = (dir / "no-such-corpus").string();
    return true;
  });
  ed.save(dir / "single.json");
  expect_same_refusal(ed, dir / "single.json", "data.text.path");
}

TEST(WindowAndCliRefusals, ABadFieldOfACompareOrASweepIsRefusedInTheSameWords) {
  const auto dir = test_support::fresh_dir("refusal-grid");
  gui::ExperimentEditor ed;
  ed.set_config(test_support::tiny_run(dir / "runs"));
  ed.edit_config([](config::RunConfig& c) {
    c.model.mixer.heads = 0;
    return true;
  });
  ed.save(dir / "compare.json");
  expect_same_refusal(ed, dir / "compare.json", "model.mixer.heads");

  ed.set_config(test_support::tiny_run(dir / "runs"));
  ed.set_mode(gui::RunMode::sweep_e);
  ed.set_sweep_E({1, 4});
  ed.edit_config([&](config::RunConfig& c) {
    c.data.text.path = (dir / "no-such-corpus").string();
    return true;
  });
  ed.save(dir / "sweep.json");
  expect_same_refusal(ed, dir / "sweep.json", "data.text.path");
  EXPECT_NE(ed.problem().find("(in run "), std::string::npos) << "of several runs, the run is named: " << ed.problem();
}

}  // namespace
