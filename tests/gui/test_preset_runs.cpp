// Every preset under experiments/ trains the same runs from the window as from the command line:
// the editor's runs after loading the file equal `proteus sweep`'s expansion (files with "sweep")
// or `proteus train`'s (the others), run by run: the name and the resolved config. Trains nothing.
#include <gtest/gtest.h>

#include "app/gui/state/experiment_editor.hpp"
#include "core/config/config_json.hpp"
#include "core/config/experiment.hpp"
#include "tests/train/tiny_run.hpp"

namespace {

using namespace proteus;
const std::filesystem::path kExperiments = std::filesystem::path(PROTEUS_SOURCE_DIR) / "experiments";

// The runs the command line makes of a file: what `proteus sweep` / `proteus train` would train.
std::vector<config::RunConfig> cli_runs(const std::filesystem::path& file) {
  return config::Experiment::load(file).all_runs();
}

void expect_same_runs(const std::vector<config::RunConfig>& window, const std::vector<config::RunConfig>& cli,
                      const std::string& label) {
  ASSERT_EQ(window.size(), cli.size()) << label << ": the window trains " << window.size() << " runs, the CLI "
                                       << cli.size();
  for (size_t i = 0; i < cli.size(); ++i) {
    EXPECT_EQ(window[i].name, cli[i].name) << label << " run " << i;
    EXPECT_EQ(config::to_json(window[i]).dump(), config::to_json(cli[i]).dump()) << label << " run " << cli[i].name;
  }
}

TEST(PresetRuns, EveryPresetTrainsInTheWindowTheRunsTheCommandLineTrains) {
  const auto presets = gui::find_presets(kExperiments);
  ASSERT_GE(presets.size(), 10u);
  for (const auto& p : presets) {
    gui::ExperimentEditor ed;
    ASSERT_NO_THROW(ed.load(p.path)) << p.label;
    std::vector<config::RunConfig> window;
    ASSERT_NO_THROW(window = ed.runs()) << p.label << ": " << ed.problem();
    expect_same_runs(window, cli_runs(p.path), p.label);
    EXPECT_EQ(ed.run_count(), window.size()) << p.label;
    // The saved-file notification names this command: the one that reads the file's grid.
    EXPECT_EQ(ed.cli_command(), config::Experiment::load(p.path).sweep ? "sweep" : "train") << p.label;
  }
}

// Saving what was loaded writes a file the command line reads back into the same runs.
TEST(PresetRuns, EveryPresetSavedFromTheWindowRunsTheSameFromTheCommandLine) {
  const auto dir = test_support::fresh_dir("preset-runs-saved");
  for (const auto& p : gui::find_presets(kExperiments)) {
    gui::ExperimentEditor ed;
    ASSERT_NO_THROW(ed.load(p.path)) << p.label;
    const auto file = dir / "saved.json";
    ed.save(file);
    EXPECT_EQ(config::Experiment::load(file).sweep.has_value(), ed.cli_command() == "sweep") << p.label;
    expect_same_runs(cli_runs(file), cli_runs(p.path), p.label + " (saved)");
    gui::ExperimentEditor back;
    ASSERT_NO_THROW(back.load(file)) << p.label;
    expect_same_runs(back.runs(), cli_runs(p.path), p.label + " (saved, loaded back)");
  }
}

}  // namespace
