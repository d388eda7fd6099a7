// Issue 46: a gated run against its E = 1 baseline has one home (core/eval/baseline.hpp). A runs
// folder where the four old rules disagreed (the seed groups took the first group named "*baseline",
// whatever its model; the forest plot the group with the most partners; the gating-effect maps the
// first baseline given; the runs table the first row) is paired the same way, run by run, by the
// seed-group summaries, both gating-effect figures (the maps and the forest plot) and the runs
// table, whatever the order the runs are given in.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/gui/state/runs_browser.hpp"
#include "core/config/config_json.hpp"
#include "core/engine/seed_groups.hpp"
#include "core/figures/gating_effect_by_variant.hpp"
#include "core/figures/gating_effect_figures.hpp"
#include "core/runs/eval_files.hpp"
#include "core/runs/run_dir.hpp"
#include "tests/support/seed_group_runs.hpp"
#include "tests/support/synthetic_per_position.hpp"
#include "tests/support/temp_dir.hpp"

namespace {

using namespace proteus;

// A group of the folder: its E, its seeds and its level (every loss of its runs is shifted by it).
struct Arm {
  std::string group;
  int E;
  std::vector<uint64_t> seeds;
  double level;
  int d_model = 16;
};

// The gated arms renormalise over the open rows (a schedule's own field: the baselines still pair).
// a-early-e1 sorts first and has seed 1 only (the old runs table took it for seed 1); a-first-e1
// has every seed (the old forest plot took it for the most partners); b-wide-baseline is another
// model named "baseline" (the old seed groups took it); diag-normalize-baseline is the one of the
// same experiment, with seeds 1 and 2 only.
const Arm kArms[] = {{"a-early-e1", 1, {1}, 0.3},
                     {"a-first-e1", 1, {1, 2, 3}, 0.2},
                     {"b-wide-baseline", 1, {1, 2, 3}, 0.4, 32},
                     {"diag-normalize-baseline", 1, {1, 2}, 0.1},
                     {"diag-normalize-mask-e16", 16, {1, 2, 3}, -0.05},
                     {"diag-normalize-mask-e4", 4, {1, 2, 3}, 0.05}};

// The one rule's pairs: the same experiment's baseline where it has the seed, else the one run left.
const std::map<uint64_t, std::string> kBaselineOfSeed = {
    {1, "diag-normalize-baseline-s1"}, {2, "diag-normalize-baseline-s2"}, {3, "a-first-e1-s3"}};
const char* kBaselineGroup = "diag-normalize-baseline";

config::RunConfig config_of(const Arm& arm, uint64_t seed) {
  auto c = test_support::seed_group_member(arm.group, arm.E, seed);
  c.model.d_model = arm.d_model;
  if (arm.E > 1) c.model.mixer.normalize = memory::KeyNormalize::mask_then_normalize;
  return c;
}

double level_of(const std::string& run) {
  for (const auto& arm : kArms)
    if (run.starts_with(arm.group + "-s")) return arm.level;
  throw std::runtime_error("no arm of " + run);
}

// The effect a gated group's pairs give over every position: its runs minus their baselines, the
// mean over seeds (a seed's runs share their noise, so each difference is the levels').
double expected_effect(const Arm& gated) {
  double sum = 0;
  for (uint64_t s : gated.seeds) sum += gated.level - level_of(kBaselineOfSeed.at(s));
  return sum / static_cast<double>(gated.seeds.size());
}

// Every arm's runs in a runs folder, each evaluated per position; their directories.
std::vector<std::string> write_folder(const std::filesystem::path& dir) {
  std::vector<std::string> dirs;
  for (const auto& arm : kArms)
    for (uint64_t s : arm.seeds) {
      const auto c = config_of(arm, s);
      auto w = runs::RunWriter::create(dir, c.name, config::to_json(c));
      runs::EvalReport report;
      report.per_position = test_support::synthetic_per_position(64, 4, 32, 8, arm.level, arm.level, s);
      runs::write_eval_report(w, report);
      w.set_status(runs::RunState::finished, "done", 10);
      dirs.push_back(w.dir().string());
    }
  return dirs;
}

std::vector<figures::EffectRun> effect_runs(const std::vector<std::string>& dirs) {
  std::vector<figures::EffectRun> out;
  for (const auto& d : dirs) {
    const auto reader = runs::RunReader::open(d);
    out.push_back({reader.name(), reader.run_config(), std::make_shared<const eval::EvalReport>(runs::read_eval_report(reader))});
  }
  return out;
}

class BaselineAgreement : public ::testing::Test {
 protected:
  void SetUp() override { dirs = write_folder(tmp.path() / "runs"); }
  test_support::TempDir tmp;
  std::vector<std::string> dirs;
};

TEST_F(BaselineAgreement, TheRunsTablePairsEachGatedRunByTheOneRule) {
  gui::RunsBrowser b;
  b.rescan(tmp.path() / "runs");
  int gated = 0;
  for (const auto& e : b.entries()) {
    if (e.config->model.mixer.E == 1) {
      EXPECT_EQ(e.baseline, "") << e.name;
      continue;
    }
    ++gated;
    EXPECT_EQ(e.baseline, kBaselineOfSeed.at(e.config->seed)) << e.name;
    EXPECT_FALSE(std::isnan(e.effect)) << e.name;
  }
  EXPECT_EQ(gated, 6);
}

TEST_F(BaselineAgreement, TheSeedGroupsPairTheSameRunsAndNameTheSameGroup) {
  std::vector<std::string> notes;
  engine::write_seed_group_results(dirs, &notes);
  for (const auto& arm : kArms) {
    const auto j = nlohmann::json::parse(test_support::TempDir::read(tmp / ("runs/groups/" + arm.group + "/group.json")));
    if (arm.E == 1) {
      EXPECT_TRUE(j.at("baseline").is_null()) << arm.group << ": an E = 1 group has no baseline";
      continue;
    }
    EXPECT_EQ(j.at("baseline"), kBaselineGroup) << arm.group;
    const auto& per_seed = j.at("paired_per_seed");
    ASSERT_EQ(per_seed.size(), 3u) << j.dump();
    for (const auto& p : per_seed) {
      const auto seed = p.at("seed").get<uint64_t>();
      EXPECT_EQ(p.at("baseline_run"), kBaselineOfSeed.at(seed)) << arm.group << " seed " << seed;
      EXPECT_NEAR(p.at("all").at("mean").get<double>(), arm.level - level_of(kBaselineOfSeed.at(seed)), 1e-9);
    }
    EXPECT_NEAR(j.at("paired_vs_baseline").at("all").at("mean").get<double>(), expected_effect(arm), 1e-9);
  }
  const auto groups = engine::find_seed_groups(dirs);
  for (size_t i = 0; i < groups.size(); ++i) {
    const int b = engine::baseline_group(groups, i);
    EXPECT_EQ(b < 0 ? "" : groups[b].name, groups[i].members.front().config.model.mixer.E > 1 ? kBaselineGroup : "")
        << groups[i].name;
  }
}

// The runs view's choices reach its maps; an axis the selection was not swept along (these
// groups differ in E, not in training tokens) keeps the maps against the default axis and says why.
TEST_F(BaselineAgreement, TheRunsViewsEffectChoicesReachItsMaps) {
  gui::RunsBrowser b;
  b.rescan(tmp.path() / "runs");
  b.select_only(dirs);
  const auto has = [&](const std::string& name) {
    return std::any_of(b.figures().begin(), b.figures().end(), [&](const figures::NamedFigure& f) { return f.name == name; });
  };
  EXPECT_EQ(b.load(), "");
  EXPECT_TRUE(has("gating_effect_nll_first-N16"));
  EXPECT_FALSE(has("gating_effect_nll_3-16"));
  b.figure_options.effect_ranges = figures::EffectRanges::diagnosis;
  EXPECT_EQ(b.load(), "");
  EXPECT_TRUE(has("gating_effect_nll_3-16"));
  EXPECT_FALSE(has("gating_effect_nll_first-N16"));
  b.figure_options.effect_x = figures::kTrainingTokensX;
  const auto why = b.load();
  EXPECT_EQ(why.rfind("gating-effect x axis: 'train.tokens' needs gated runs trained on different numbers of tokens", 0), 0u) << why;
  EXPECT_TRUE(has("gating_effect_nll_all")) << "the maps against E are still drawn";
}

TEST_F(BaselineAgreement, BothGatingEffectFiguresPairTheSameRunsInAnyOrder) {
  auto runs = effect_runs(dirs);
  for (int order = 0; order < 3; ++order) {
    if (order == 1) std::reverse(runs.begin(), runs.end());
    if (order == 2)  // the same experiment's baselines given last, the folder's first E = 1 runs first
      std::stable_partition(runs.begin(), runs.end(), [](const figures::EffectRun& r) { return !r.name.starts_with("diag-normalize-b"); });
    // The forest plot: a row per gated group, its baseline group named, every seed paired.
    const auto rows = figures::variant_effects(runs);
    ASSERT_EQ(rows.size(), 2u) << "order " << order;
    for (const auto& row : rows) {
      const auto arm = std::find_if(std::begin(kArms), std::end(kArms), [&](const Arm& a) { return a.group == row.variant; });
      ASSERT_NE(arm, std::end(kArms)) << row.variant;
      EXPECT_EQ(row.baseline, kBaselineGroup) << row.variant << ", order " << order;
      EXPECT_EQ(row.seeds, (std::vector<uint64_t>{1, 2, 3})) << row.variant;
      EXPECT_NEAR(row.effect("all")->mean, expected_effect(*arm), 1e-9) << row.variant << ", order " << order;
    }
    // The maps: the effect against E (the gated groups differ in E alone), over every position.
    const auto maps = figures::gating_effect_maps(runs);
    ASSERT_FALSE(maps.empty()) << "order " << order;
    const auto& nll = maps.front();
    ASSERT_EQ(nll.metric, "nll");
    EXPECT_EQ(nll.x_field, "model.mixer.E");
    int seen = 0;
    for (const auto& p : nll.points) {
      if (p.range != "all") continue;
      const Arm& arm = p.x == 16 ? kArms[4] : kArms[5];
      EXPECT_EQ(p.effect.n, 3);
      EXPECT_NEAR(p.effect.mean, expected_effect(arm), 1e-9) << "E = " << p.x << ", order " << order;
      ++seen;
    }
    EXPECT_EQ(seen, 2);
  }
}

}  // namespace
