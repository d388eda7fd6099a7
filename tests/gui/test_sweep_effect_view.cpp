// The window's sweep view: a sweep over a field other than E, set up in the editor, draws the
// gating effect against that field as its runs finish (the training view's figures of a snapshot),
// a point appearing once both its gated run and its E = 1 baseline are evaluated.
#include <gtest/gtest.h>

#include "app/gui/state/experiment_editor.hpp"
#include "app/gui/state/training_session.hpp"
#include "tests/support/synthetic_per_position.hpp"
#include "tests/train/tiny_run.hpp"

namespace {

using namespace proteus;

const figures::Figure* find_figure(const std::vector<figures::NamedFigure>& figs, const std::string& name) {
  for (const auto& f : figs)
    if (f.name == name) return &f.figure;
  return nullptr;
}

// The editor on a tiny run gated at E = 4, in `mode`, its runs in a fresh folder.
gui::ExperimentEditor gated_editor(const std::string& folder, gui::RunMode mode) {
  gui::ExperimentEditor ed;
  ed.set_config(test_support::tiny_run(test_support::fresh_dir(folder) / "runs"));
  ed.edit_config([&](config::RunConfig& c) { c.model.mixer.E = 4; return true; });
  ed.set_mode(mode);
  return ed;
}

// A run as the job lists it before it starts: its name, every other field at its default.
engine::RunView run_view(const std::string& name) {
  engine::RunView run;
  run.name = name;
  return run;
}

TEST(SweepEffectView, TheEffectAgainstTheSweptFieldFillsInAsRunsFinish) {
  auto ed = gated_editor("sweep-effect-view", gui::RunMode::sweep_e);
  ed.pick_sweep_field("model.d_model");
  ed.set_sweep_values({16, 32, 64});
  const auto configs = ed.runs();
  ASSERT_EQ(configs.size(), 6u);

  engine::Snapshot snapshot;
  for (const auto& c : configs) snapshot.runs.push_back(run_view(c.name));
  // Evaluates run i: the gated runs lose 0.01 nats per d_model / 16 against their baseline.
  const auto finish = [&](size_t i) {
    const auto& c = configs[i];
    const double shift = c.model.mixer.E == 1 ? 0.0 : 0.01 * c.model.d_model / 16;
    auto report = std::make_shared<eval::EvalReport>();
    report->per_position = test_support::synthetic_per_position(64, 8, c.data.seq_len, 1, shift, shift, c.model.d_model);
    snapshot.runs[i].report = report;
    snapshot.runs[i].state = engine::RunPhase::finished;
  };
  std::vector<size_t> order;  // the sweep's runs by d_model: both E of the first value, then the next...
  for (int d : {16, 32, 64})
    for (size_t i = 0; i < configs.size(); ++i)
      if (configs[i].model.d_model == d) order.push_back(i);
  ASSERT_EQ(order.size(), 6u);

  for (size_t k = 0; k < 3; ++k) finish(order[k]);  // one point and half of the next
  EXPECT_EQ(find_figure(gui::snapshot_figures(snapshot, configs), "gating_effect_nll_all"), nullptr)
      << "one paired point is not yet a curve";
  finish(order[3]);
  const auto figs_two = gui::snapshot_figures(snapshot, configs);
  const auto* two = find_figure(figs_two, "gating_effect_nll_all");
  ASSERT_NE(two, nullptr);
  EXPECT_EQ(two->x.label, "model.d_model");
  EXPECT_EQ(two->series.front().x, (std::vector<double>{16, 32}));
  for (size_t k = 4; k < 6; ++k) finish(order[k]);
  const auto figs = gui::snapshot_figures(snapshot, configs);
  const auto* all = find_figure(figs, "gating_effect_nll_all");
  ASSERT_NE(all, nullptr);
  ASSERT_EQ(all->series.front().y.size(), 3u);
  EXPECT_NEAR(all->series.front().y[2], 0.04, 1e-9);
  EXPECT_NE(find_figure(figs, "gating_effect_nll_N-4N"), nullptr);
}

// Compare with E = 1 over two seeds: the training view draws the forest plot of the gated seed
// group against its baseline group once all four runs are evaluated, n = the two paired seeds.
TEST(SweepEffectView, ComparedSeedGroupsDrawTheGatingEffectByVariant) {
  auto ed = gated_editor("variant-effect-view", gui::RunMode::compare);
  ed.set_seeds(2);
  const auto configs = ed.runs();
  ASSERT_EQ(configs.size(), 4u);
  engine::Snapshot snapshot;
  for (const auto& c : configs) {
    auto report = std::make_shared<eval::EvalReport>();
    const double shift = c.model.mixer.E == 1 ? 0.0 : 0.1 + 0.01 * static_cast<double>(c.seed);
    report->per_position = test_support::synthetic_per_position(64, 8, c.data.seq_len, 1, shift, shift, c.seed);
    engine::RunView run = run_view(c.name);
    run.state = engine::RunPhase::finished;
    run.report = report;
    snapshot.runs.push_back(run);
  }
  const auto figs = gui::snapshot_figures(snapshot, configs);
  const auto* forest = find_figure(figs, "gating_effect_by_variant");
  ASSERT_NE(forest, nullptr);
  ASSERT_EQ(forest->y.tick_labels.size(), 1u) << "one gated group";
  EXPECT_TRUE(forest->y.tick_labels.front().ends_with(", n=2")) << forest->y.tick_labels.front();
  EXPECT_NE(forest->data_csv.find(",2,nats per byte\n"), std::string::npos) << forest->data_csv;
}

}  // namespace
