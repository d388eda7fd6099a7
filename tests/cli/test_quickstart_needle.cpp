// The quickstart's needle heatmap speaks: the committed result of a measured run of the preset
// (experiments/results/quickstart/, made by `proteus train experiments/quickstart-cpu.json`) has,
// for each run, a token-needle grid that is neither all 0 nor all 100, and was made with the
// preset as it is now (its config.json agrees with the preset's fields); and the preset, trained
// a few steps, writes that grid (depths x the lengths it names) for both its runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/support/run_command.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kSource = PROTEUS_SOURCE_DIR;
const fs::path kPreset = kSource / "experiments" / "quickstart-cpu.json";
const fs::path kResult = kSource / "experiments" / "results" / "quickstart";
const char* kRuns[] = {"quickstart-baseline", "quickstart-proteus-e16"};

json read_json(const fs::path& p) {
  std::ifstream f(p);
  if (!f) throw std::runtime_error("cannot read " + p.string());
  return json::parse(f);
}

// Every cell of every form's grid, 0..100.
std::vector<double> cells(const json& needle) {
  std::vector<double> out;
  for (const auto& form : needle.at("forms"))
    for (double s : form.at("score").get<std::vector<double>>()) out.push_back(s);
  return out;
}

TEST(QuickstartNeedle, CommittedResultIsNeitherAllZeroNorAllHundred) {
  for (const char* run : kRuns) {
    const auto c = cells(read_json(kResult / run / "needle.json"));
    ASSERT_FALSE(c.empty()) << run;
    const bool all_zero = std::all_of(c.begin(), c.end(), [](double s) { return s == 0; });
    const bool all_hundred = std::all_of(c.begin(), c.end(), [](double s) { return s == 100; });
    EXPECT_FALSE(all_zero) << run << ": the heatmap is 0 in every cell";
    EXPECT_FALSE(all_hundred) << run << ": the heatmap is 100 in every cell";
    // Not a flat grid either: the cells differ across depth and length.
    EXPECT_GT(*std::max_element(c.begin(), c.end()) - *std::min_element(c.begin(), c.end()), 10.0) << run;
  }
}

TEST(QuickstartNeedle, CommittedResultWasMadeWithThePresetAsItIs) {
  const json preset = read_json(kPreset);
  for (const char* run : kRuns) {
    const json made = read_json(kResult / run / "config.json");
    EXPECT_EQ(made.at("data").at("mix"), preset.at("data").at("mix")) << run;
    for (const auto& [key, value] : preset.at("data").at("needle").items())
      EXPECT_EQ(made.at("data").at("needle").at(key), value) << run << ": data.needle." << key;
    for (const char* key : {"d_model", "layers"}) EXPECT_EQ(made.at("model").at(key), preset.at("model").at(key)) << key;
    for (const char* key : {"heads", "d_head", "rule"})
      EXPECT_EQ(made.at("model").at("mixer").at(key), preset.at("model").at("mixer").at(key)) << key;
    for (const auto& [key, value] : preset.at("train").items()) EXPECT_EQ(made.at("train").at(key), value) << "train." << key;
    for (const auto& [key, value] : preset.at("eval").at("needle").items())
      EXPECT_EQ(made.at("eval").at("needle").at(key), value) << "eval.needle." << key;
  }
}

TEST(QuickstartNeedle, PresetTrainedAFewStepsWritesTheGridForBothRuns) {
  const fs::path dir = fs::temp_directory_path() / ("proteus-quickstart-" + std::to_string(std::random_device{}()));
  const auto r = proteus::test_support::run_proteus(
      {"train", kPreset.string(), "--steps", "8", "--runs-dir", dir.string(), "--set", "train.eval_every=4", "--set",
       "train.warmup=2", "--set", "eval.per_position.sequences=2", "--set", "eval.needle.samples=2", "--set",
       "data.text.path=" + (kSource / "assets" / "corpus" / "brown").string()});
  ASSERT_EQ(r.status, 0) << r.out;
  const json preset = read_json(kPreset);
  const auto lengths = preset.at("eval").at("needle").at("lengths").get<std::vector<int>>();
  const int depths = preset.at("eval").at("needle").at("depths").get<int>();
  for (const char* run : kRuns) {
    const json needle = read_json(dir / run / "needle.json");
    ASSERT_EQ(needle.at("forms").size(), preset.at("data").at("needle").at("forms").size()) << run;
    for (const auto& form : needle.at("forms")) {
      EXPECT_EQ(form.at("lengths").get<std::vector<int>>(), lengths) << run;
      EXPECT_EQ(form.at("depths").size(), size_t(depths)) << run;
      EXPECT_EQ(form.at("score").size(), lengths.size() * size_t(depths)) << run;
    }
    EXPECT_FALSE(fs::exists(dir / run / "niah.json")) << "the quickstart evaluates the token needle, not byte NIAH";
  }
  fs::remove_all(dir);
}

}  // namespace
