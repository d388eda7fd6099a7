// The figure set of a list of runs, fed as the window feeds it (live results) and as a run
// directory does: which figures appear for which data, the live per-position curve until the
// final evaluation, activation maps for memory runs with results, names and colours per run.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/figures/figure_set.hpp"

namespace {

using namespace proteus;
using namespace proteus::figures;

std::vector<std::string> names_of(const std::vector<NamedFigure>& figs) {
  std::vector<std::string> out;
  for (const auto& f : figs) out.push_back(f.name);
  return out;
}

const Figure& find(const std::vector<NamedFigure>& figs, const std::string& name) {
  const auto it = std::find_if(figs.begin(), figs.end(), [&](const auto& f) { return f.name == name; });
  if (it == figs.end()) throw std::runtime_error("no figure " + name);
  return it->figure;
}

std::shared_ptr<const eval::PerPositionResult> four_positions(double base) {
  auto pp = std::make_shared<eval::PerPositionResult>();
  pp->seq_len = 4;
  pp->sequences = 2;
  pp->nll = {base + 1, base + 0.5, base, base - 0.5};
  pp->bucket_lo = {1, 2, 3, 4};
  pp->bucket_hi = {1, 2, 3, 4};
  pp->bucket_nll = pp->nll;
  return pp;
}

RunResults run(const std::string& name, int E, bool trained) {
  RunResults r;
  r.name = name;
  r.config.emplace();
  r.config->data.seq_len = 16;
  r.config->model.mixer.d_head = 4;
  r.config->model.mixer.E = E;
  if (trained) {
    r.curve.step = {1, 2};
    r.curve.loss = {5, 4};
    r.curve.val_step = {2};
    r.curve.val_bpb = {4.0 - 0.1 * E};
  }
  return r;
}

TEST(FigureSet, TheLiveCurveUntilTheFinalEvaluation) {
  auto a = run("base", 1, true), b = run("proteus", 4, true);
  a.live_per_position = four_positions(2.0);
  a.live_per_position_step = 2;
  b.live_per_position = four_positions(1.5);
  b.live_per_position_step = 2;
  auto figs = figure_set({a, b});
  const auto& live = find(figs, "per_position");
  EXPECT_NE(std::find(live.notes.begin(), live.notes.end(), "live: validation rows at step 2"), live.notes.end());
  EXPECT_NEAR(live.series[1].y.back(), std::exp(1.0), 1e-12);

  // The final evaluation replaces the live curve, run by run.
  auto report = std::make_shared<eval::EvalReport>();
  report->per_position = *four_positions(0.5);
  b.report = report;
  figs = figure_set({a, b});
  EXPECT_NEAR(find(figs, "per_position").series[1].y.back(), std::exp(0.0), 1e-12);
  a.report = report;
  figs = figure_set({a, b});
  const auto& final = find(figs, "per_position");
  EXPECT_EQ(std::count_if(final.notes.begin(), final.notes.end(), [](const auto& n) { return n.rfind("live", 0) == 0; }), 0);
  const auto names = names_of(figs);
  EXPECT_EQ(std::count(names.begin(), names.end(), "ppl_ratio"), 1);
}

TEST(FigureSet, ActivationMapsForMemoryRunsWithResults) {
  auto queued = run("queued", 4, false), trained = run("trained", 4, true), attention = run("attention", 4, true);
  attention.config->model.mixer.type = config::MixerType::attention;
  EXPECT_FALSE(queued.has_results());
  EXPECT_TRUE(trained.has_results());
  const auto names = names_of(figure_set({queued, trained, attention}));
  EXPECT_EQ(std::count(names.begin(), names.end(), "activation_map_trained"), 1);
  EXPECT_EQ(std::count(names.begin(), names.end(), "activation_map_queued"), 0);
  EXPECT_EQ(std::count(names.begin(), names.end(), "activation_map_attention"), 0);
  const auto figs = figure_set({trained});
  const auto& map = find(figs, "activation_map_trained");
  EXPECT_EQ(map.heatmap->cols, 32) << "twice the horizon before an evaluation";
  EXPECT_EQ(map.notes.front().rfind("uniform schedule, ", 0), 0u);
}

TEST(FigureSet, TheLossAxesBeforeAnyStepOnlyWhenAsked) {
  const auto queued = run("r", 4, false);
  EXPECT_TRUE(figure_set({queued}).empty());
  EXPECT_EQ(names_of(figure_set({queued}, {.loss_before_data = true})), std::vector<std::string>{"loss"});
}

TEST(FigureSet, RunsKeepTheirNameAndColourInEveryFigure) {
  auto a = run("tiny", 1, true), b = run("tiny", 2, true);
  b.live_per_position = four_positions(1.0);  // only run 1 has a per-position curve
  const auto figs = figure_set({a, b});
  const auto& loss = find(figs, "loss");
  ASSERT_EQ(loss.series.size(), 2u);
  EXPECT_EQ(loss.series[0].name, "tiny");
  EXPECT_EQ(loss.series[1].name, "tiny-2");
  const auto& pp = find(figs, "per_position");
  ASSERT_EQ(pp.series.size(), 2u) << "run 1, and the training-length line";
  EXPECT_EQ(pp.series[0].name, "tiny-2");
  EXPECT_EQ(pp.series[0].color, palette(1));
  const auto names = names_of(figs);
  EXPECT_EQ(std::count(names.begin(), names.end(), "activation_map_tiny-2"), 1);
  // Two distinct E with a val_bpb: the E ablation.
  const auto& e = find(figs, "e_ablation");
  ASSERT_EQ(e.series.size(), 1u);
  EXPECT_EQ(e.series[0].x, (std::vector<double>{1, 2}));
}

TEST(FigureSet, NoEAblationFromOneE) {
  const auto names = names_of(figure_set({run("a", 4, true), run("b", 4, true)}));
  EXPECT_EQ(std::count(names.begin(), names.end(), "e_ablation"), 0);
}

}  // namespace
