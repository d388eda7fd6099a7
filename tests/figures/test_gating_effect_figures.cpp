// The gating-effect map from synthetic seed groups whose effects are known exactly: the gated run
// of seed s is its baseline plus effect(x, position) plus a per-seed offset, so every mean,
// interval and zero crossing can be computed by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "core/common/input_error.hpp"
#include "core/figures/figure_export.hpp"
#include "core/figures/figure_set.hpp"
#include "core/figures/gating_effect_figures.hpp"
#include "core/figures/layout.hpp"
#include "tests/support/synthetic_per_position.hpp"
#include "tests/support/temp_dir.hpp"

namespace {

using namespace proteus;

constexpr int kTrainLen = 64;        // N
constexpr int kEvalLen = 4 * kTrainLen;
constexpr int kSequences = 40;
constexpr int kEarly = kTrainLen / 16;  // positions 1..N/16

config::RunConfig config_of(int E, int steps, uint64_t seed) {
  config::RunConfig c;
  c.name = "sweep-E" + std::to_string(E) + "-steps" + std::to_string(steps) + "-s" + std::to_string(seed);
  c.group = "sweep-E" + std::to_string(E) + "-steps" + std::to_string(steps);
  c.seed = seed;
  c.data.seq_len = kTrainLen;
  c.model.mixer.E = E;
  c.train.steps = steps;
  return c;
}

// The run of `c` whose losses are shifted by (early, late) from the common base, noise from `noise_seed`.
figures::EffectRun run_of(const config::RunConfig& c, double early, double late, uint64_t noise_seed) {
  auto report = std::make_shared<eval::EvalReport>();
  report->per_position = test_support::synthetic_per_position(kEvalLen, kSequences, kTrainLen, kEarly, early, late, noise_seed);
  return {c.name, c, report};
}

// Effect past the first N/16 positions at each training budget: positive (gating hurts) at small
// budgets, negative at large ones; the first N/16 positions always gain 0.5.
double late_effect(int steps) { return steps == 100 ? 0.3 : steps == 200 ? 0.1 : steps == 400 ? -0.1 : -0.3; }
constexpr double kEarlyEffect = -0.5;
const double kSeedOffset[3] = {-0.04, 0.0, 0.04};  // per-seed deviations of the effect: sd 0.04

std::vector<figures::EffectRun> steps_sweep(int seeds) {
  std::vector<figures::EffectRun> runs;
  for (int steps : {100, 200, 400, 800})
    for (int s = 0; s < seeds; ++s) {
      const uint64_t noise = 1000 + 10 * steps + s;  // a gated run and its baseline share the sequences' noise
      runs.push_back(run_of(config_of(1, steps, s + 1), 0, 0, noise));
      const double off = seeds == 1 ? 0.0 : kSeedOffset[s];
      runs.push_back(run_of(config_of(16, steps, s + 1), kEarlyEffect + off, late_effect(steps) + off, noise));
    }
  return runs;
}

// The runs as figure_set takes them (a run directory's results).
std::vector<figures::RunResults> as_run_results(const std::vector<figures::EffectRun>& runs) {
  std::vector<figures::RunResults> out;
  for (const auto& r : runs) {
    figures::RunResults x;
    x.name = r.name;
    x.config = r.config;
    x.report = r.report;
    out.push_back(x);
  }
  return out;
}

const figures::EffectPoint& point_at(const figures::GatingEffectMap& map, const std::string& range, double x,
                                     const std::string& line = "") {
  for (const auto& p : map.points)
    if (p.range == range && p.x == x && p.line == line) return p;
  throw std::runtime_error("no point at " + range + ", x = " + std::to_string(x));
}

TEST(GatingEffect, ThreeSeedsGiveTheKnownMeansTIntervalsAndZeroCrossing) {
  const auto maps = figures::gating_effect_maps(steps_sweep(3));
  ASSERT_EQ(maps.size(), 1u) << "per-position NLL only: the runs have no accuracy task";
  const auto& map = maps.front();
  EXPECT_EQ(map.metric, "nll");
  EXPECT_EQ(map.x_field, "train.steps") << "the swept field, not the lockstep-derived ones";
  EXPECT_TRUE(map.line_fields.empty());
  ASSERT_EQ(map.ranges.size(), 4u);
  EXPECT_EQ(map.ranges[0].name, "first-N16");
  EXPECT_EQ(map.ranges[2].name, "N-4N");

  // t over 3 seeds of effect + {-0.04, 0, 0.04}: sd 0.04, t(0.975, 2) = 4.302653.
  const double half_width = 4.302653 * 0.04 / std::sqrt(3.0);
  for (int steps : {100, 200, 400, 800}) {
    const auto& late = point_at(map, "N-4N", steps).effect;
    EXPECT_NEAR(late.mean, late_effect(steps), 1e-9);
    EXPECT_NEAR(late.hi - late.mean, half_width, 1e-6);
    EXPECT_NEAR(late.mean - late.lo, half_width, 1e-6);
    EXPECT_EQ(late.n, 3);
    const auto& all = point_at(map, "all", steps).effect;
    EXPECT_NEAR(all.mean, (kEarly * kEarlyEffect + (kEvalLen - kEarly) * late_effect(steps)) / kEvalLen, 1e-9);
    EXPECT_NEAR(point_at(map, "first-N16", steps).effect.mean, kEarlyEffect, 1e-9);
  }
  // The late effect changes sign between 200 and 400 steps, halfway on the log axis.
  const auto z = figures::zero_crossings(map);
  int late_crossings = 0;
  for (const auto& c : z)
    if (c.range == "N-4N") {
      ++late_crossings;
      EXPECT_NEAR(c.x, std::sqrt(200.0 * 400.0), 1e-6);
    }
  EXPECT_EQ(late_crossings, 1);
  for (const auto& c : z) EXPECT_NE(c.range, "first-N16") << "the early effect never changes sign";

  const auto f = figures::gating_effect_figure(map, "N-4N");
  ASSERT_EQ(f.series.size(), 3u) << "one line, the zero line and the line's trend";
  EXPECT_TRUE(f.series[0].error_bars);
  EXPECT_EQ(f.series[1].y, (std::vector<double>{0, 0}));
  EXPECT_TRUE(f.series[1].name.empty()) << "the zero line is a guide, not data";
  EXPECT_EQ(f.x.scale, figures::Scale::log);
  bool says_crossing = false;
  for (const auto& n : f.notes) says_crossing |= n.find("crosses zero near train.steps = 282.8") != std::string::npos;
  EXPECT_TRUE(says_crossing);
}

// The rows-per-block map's shape: d_head and the batch are scaled together (fewer sequences per
// step where a sequence costs more), so they form one lockstep class.
std::vector<figures::EffectRun> head_size_sweep() {
  std::vector<figures::EffectRun> runs;
  for (int d : {16, 32, 64})
    for (int E : {1, 16}) {
      auto c = config_of(E, 100, 1);
      c.name = "rows-d" + std::to_string(d) + "-E" + std::to_string(E);
      c.model.mixer.d_head = d;
      c.data.batch = 1024 / d;
      runs.push_back(run_of(c, E == 1 ? 0 : -0.1, E == 1 ? 0 : 0.01 * d, 7 + d));
    }
  return runs;
}

TEST(GatingEffect, ALockstepClassIsNamedByItsModelFieldOrTheFieldAskedFor) {
  const auto maps = figures::gating_effect_maps(head_size_sweep());
  ASSERT_EQ(maps.size(), 1u);
  EXPECT_EQ(maps.front().x_field, "model.mixer.d_head") << "the head size, not the batch scaled with it";
  EXPECT_TRUE(maps.front().line_fields.empty()) << "the batch moves with d_head: no second line";
  EXPECT_NEAR(point_at(maps.front(), "N-4N", 32).effect.mean, 0.32, 1e-9);
  const auto by_batch = figures::gating_effect_maps(head_size_sweep(), {.x_field = "data.batch"});
  ASSERT_EQ(by_batch.size(), 1u);
  EXPECT_EQ(by_batch.front().x_field, "data.batch");
  EXPECT_NEAR(point_at(by_batch.front(), "N-4N", 32).effect.mean, 0.32, 1e-9) << "batch 32 is d_head 32";
  const auto f = figures::gating_effect_figure(maps.front(), "N-4N");
  bool names_positions = false;
  for (const auto& n : f.notes) names_positions |= n.find("positions 65-256") != std::string::npos;
  EXPECT_TRUE(names_positions) << "one training length: the note names the positions";
}

TEST(GatingEffect, TrainingLengthsThatMoveWithXGiveNoSinglePositionRange) {
  auto runs = head_size_sweep();
  for (auto& r : runs) r.config.data.seq_len = 4 * r.config.model.mixer.d_head;  // 32 tokens per key dimension, scaled
  const auto maps = figures::gating_effect_maps(runs);
  ASSERT_EQ(maps.size(), 1u);
  EXPECT_TRUE(maps.front().lengths_differ);
  const auto f = figures::gating_effect_figure(maps.front(), "N-4N");
  for (const auto& n : f.notes) EXPECT_EQ(n.find("positions 65-256"), std::string::npos) << "the first point's range is not every point's";
  bool in_units = false;
  for (const auto& n : f.notes) in_units |= n.find("units of each point's training length") != std::string::npos;
  EXPECT_TRUE(in_units);
}

TEST(GatingEffect, HowOftenARunReportsIsNeitherAnAxisNorALine) {
  auto runs = steps_sweep(3);
  for (auto& r : runs)  // a budget sweep whose short runs report more often
    if (r.config.train.steps <= 200) r.config.train.eval_every = r.config.train.checkpoint_every = 25;
  const auto maps = figures::gating_effect_maps(runs);
  ASSERT_EQ(maps.size(), 1u);
  EXPECT_EQ(maps.front().x_field, "train.steps");
  EXPECT_TRUE(maps.front().line_fields.empty());
  EXPECT_NEAR(point_at(maps.front(), "N-4N", 100).effect.mean, late_effect(100), 1e-9);
}

TEST(GatingEffect, ABudgetIsReadAgainstTheTokensItTrainedOn) {
  auto runs = steps_sweep(3);
  for (auto& r : runs) {
    r.config.train.warmup = r.config.train.steps / 10;       // scaled with the budget, as the presets do
    if (r.config.train.steps == 800) r.config.data.batch = 16;  // the last point doubles its tokens by its batch
  }
  const auto maps = figures::gating_effect_maps(runs, {.x_field = figures::kTrainingTokensX});
  ASSERT_EQ(maps.size(), 1u);
  const auto& map = maps.front();
  EXPECT_EQ(map.x_field, figures::kTrainingTokensX);
  EXPECT_TRUE(map.line_fields.empty()) << "the budget's factors are the axis, not lines";
  const double per_step = 8.0 * kTrainLen;  // the default batch of 8 sequences of N tokens
  for (int steps : {100, 200, 400})
    EXPECT_NEAR(point_at(map, "N-4N", steps * per_step).effect.mean, late_effect(steps), 1e-9);
  EXPECT_NEAR(point_at(map, "N-4N", 800 * 2 * per_step).effect.mean, late_effect(800), 1e-9);
  const auto f = figures::gating_effect_figure(map, "N-4N");
  EXPECT_EQ(f.x.label, "training bytes (train.steps x data.batch x data.seq_len)") << "byte text: a token is a byte";
  EXPECT_EQ(f.x.scale, figures::Scale::log);
  bool trend_in_bytes = false;
  for (const auto& n : f.notes)
    trend_in_bytes |= n.find("per doubling") != std::string::npos && n.find(" training bytes (") != std::string::npos;
  EXPECT_TRUE(trend_in_bytes);

  // With steps as the axis, the batch that moved at one point is a line of its own.
  EXPECT_EQ(figures::gating_effect_maps(runs, {.x_field = "train.steps"}).front().line_fields,
            (std::vector<std::string>{"data.batch"}));
  // Runs trained on as many tokens have no budget axis: refused, naming what they differ in.
  auto same_budget = steps_sweep(1);
  for (auto& r : same_budget) {
    r.config.model.d_model = r.config.train.steps;
    r.config.train.steps = 300;
  }
  try {
    figures::gating_effect_maps(same_budget, {.x_field = figures::kTrainingTokensX});
    ADD_FAILURE() << "train.tokens accepted for runs of one budget";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "x");
    EXPECT_NE(e.reason().find("model.d_model"), std::string::npos) << e.reason();
  }
}

// The x tick labels the figure's layout prints (a fixed-pitch font: which ones fit does not matter here).
std::vector<std::string> x_tick_labels(const figures::Figure& f) {
  const auto measure = [](const std::string& s, const figures::TextStyle& style) { return 0.5 * style.size * double(s.size()); };
  std::vector<std::string> out;
  for (const auto& t : figures::layout_figure(f, 2000, 1333, measure).x_ticks) out.push_back(t.label);
  return out;
}

TEST(GatingEffect, TheBudgetFigureNamesItsUnitAndPrintsMillionsOfBytesAsM) {
  auto runs = steps_sweep(3);
  for (auto& r : runs) r.config.data.batch = 64;  // 4096 bytes a step: 0.41M to 3.28M bytes over 100..800 steps
  const auto bytes = figures::gating_effect_maps(runs, {.x_field = figures::kTrainingTokensX});
  ASSERT_EQ(bytes.size(), 1u);
  EXPECT_EQ(bytes.front().unit, "nats per byte");
  const auto f = figures::gating_effect_figure(bytes.front(), "all");
  EXPECT_EQ(f.y.label, "difference in mean NLL (nats per byte; < 0: gating helps)");
  EXPECT_EQ(f.x.label, "training bytes (train.steps x data.batch x data.seq_len)");
  EXPECT_EQ(x_tick_labels(f), (std::vector<std::string>{"409.6k", "819.2k", "1.64M", "3.28M"}))
      << "one tick per budget, exact to four digits or rounded to three, never e-notation";
  bool trend_in_units = false;
  for (const auto& n : f.notes) trend_in_units |= n.find("nats per byte per doubling") != std::string::npos;
  EXPECT_TRUE(trend_in_units);

  // A BPE run's loss is per token, and so is its budget; task rows in the mix make tokens of a byte run's budget.
  auto bpe = runs;
  for (auto& r : bpe) r.config.data.tokenizer = config::Tokenizer::bpe;
  const auto tokens = figures::gating_effect_figure(figures::gating_effect_maps(bpe, {.x_field = figures::kTrainingTokensX}).front(), "all");
  EXPECT_EQ(tokens.y.label, "difference in mean NLL (nats per token; < 0: gating helps)");
  EXPECT_EQ(tokens.x.label.rfind("training tokens (", 0), 0u) << tokens.x.label;
  auto mixed = runs;
  for (auto& r : mixed) r.config.data.mix.push_back({"mqar", 0.5});
  const auto mixed_map = figures::gating_effect_maps(mixed, {.x_field = figures::kTrainingTokensX}).front();
  EXPECT_EQ(mixed_map.unit, "nats per byte") << "the loss is still read on the byte text";
  EXPECT_EQ(mixed_map.x_unit, "tokens");
}

// The options that read positions in the diagnosis's ranges (every other field at its default).
figures::GatingEffectOptions diagnosis_ranges() {
  figures::GatingEffectOptions o;
  o.ranges = figures::EffectRanges::diagnosis;
  return o;
}
figures::FigureSetOptions diagnosis_figures() {
  figures::FigureSetOptions o;
  o.effect_ranges = figures::EffectRanges::diagnosis;
  return o;
}

TEST(GatingEffect, TheDiagnosisRangesReadEachPositionAsItsTablesDo) {
  // N = 64, evaluated to 256, the effect -0.5 at positions 1-4 and late_effect after: 257-N is empty.
  const auto maps = figures::gating_effect_maps(steps_sweep(3), diagnosis_ranges());
  ASSERT_EQ(maps.size(), 1u);
  const auto& map = maps.front();
  EXPECT_EQ(map.ranges_read, figures::EffectRanges::diagnosis);
  std::vector<std::string> names;
  for (const auto& r : map.ranges) names.push_back(r.name);
  EXPECT_EQ(names, (std::vector<std::string>{"1-2", "3-16", "17-256", "N-4N", "all"}));
  const double half_width = 4.302653 * 0.04 / std::sqrt(3.0);
  for (int steps : {100, 800}) {
    const auto& early = point_at(map, "1-2", steps).effect;
    EXPECT_NEAR(early.mean, kEarlyEffect, 1e-9);
    EXPECT_NEAR(early.hi - early.mean, half_width, 1e-6);
    // Positions 3 and 4 carry the early effect, 5-16 the late one: each position counts once.
    EXPECT_NEAR(point_at(map, "3-16", steps).effect.mean, (2 * kEarlyEffect + 12 * late_effect(steps)) / 14, 1e-9);
    EXPECT_NEAR(point_at(map, "17-256", steps).effect.mean, late_effect(steps), 1e-9);
  }
  const auto f = figures::gating_effect_figure(map, "3-16");
  EXPECT_NE(f.title.find("positions 3 to 16"), std::string::npos) << f.title;
  bool exact_note = false;
  for (const auto& n : f.notes) exact_note |= n.find("positions 3-16 (N = training length; position by position)") != std::string::npos;
  EXPECT_TRUE(exact_note);

  // One seed: a run keeps each sequence's loss by bucket, so only every position has an interval.
  const auto one = figures::gating_effect_maps(steps_sweep(1), diagnosis_ranges()).front();
  EXPECT_EQ(point_at(one, "3-16", 100).effect.n, 1);
  EXPECT_NEAR(point_at(one, "3-16", 100).effect.mean, (2 * kEarlyEffect + 12 * late_effect(100)) / 14, 1e-9);
  EXPECT_EQ(point_at(one, "all", 100).effect.n, kSequences);
  const auto says_no_interval = [&](const std::string& range) {
    const auto notes = figures::gating_effect_figure(one, range).notes;
    return std::any_of(notes.begin(), notes.end(), [](const std::string& n) { return n.starts_with("no interval where n = 1"); });
  };
  EXPECT_TRUE(says_no_interval("3-16"));
  EXPECT_FALSE(says_no_interval("all")) << "every position has its interval: its figure says nothing of the others'";

  // The figure set draws them under the ranges' names.
  const auto results = as_run_results(steps_sweep(3));
  bool drawn = false;
  for (const auto& nf : figures::figure_set(results, diagnosis_figures()))
    drawn |= nf.name == "gating_effect_nll_17-256";
  EXPECT_TRUE(drawn);
}

TEST(GatingEffect, OneSeedBootstrapsOverTheSharedSequences) {
  const auto maps = figures::gating_effect_maps(steps_sweep(1));
  ASSERT_EQ(maps.size(), 1u);
  for (int steps : {100, 800}) {
    const auto& late = point_at(maps.front(), "N-4N", steps).effect;
    EXPECT_NEAR(late.mean, late_effect(steps), 1e-9) << "the shared noise cancels in the paired difference";
    EXPECT_EQ(late.n, kSequences);
    EXPECT_LE(late.lo, late.mean);
    EXPECT_GE(late.hi, late.mean);
  }
}

TEST(GatingEffect, AMultiFieldSweepDrawsOneLinePerSecondValue) {
  std::vector<figures::EffectRun> runs;
  for (int d_model : {64, 128, 256})
    for (int steps : {100, 400})
      for (int E : {1, 16}) {
        auto c = config_of(E, steps, 1);
        c.model.d_model = d_model;
        c.name += "-d" + std::to_string(d_model);
        const double shift = E == 1 ? 0.0 : 0.001 * d_model;
        runs.push_back(run_of(c, shift, shift, 7 + d_model + steps));
      }
  const auto maps = figures::gating_effect_maps(runs, {.x_field = "train.steps"});
  ASSERT_EQ(maps.size(), 1u);
  const auto& map = maps.front();
  EXPECT_EQ(map.line_fields, (std::vector<std::string>{"model.d_model"}));
  EXPECT_EQ(map.lines, (std::vector<std::string>{"d_model=64", "d_model=128", "d_model=256"}));
  EXPECT_NEAR(point_at(map, "all", 400, "d_model=128").effect.mean, 0.128, 1e-9);
  const auto f = figures::gating_effect_figure(map, "all");
  ASSERT_EQ(f.series.size(), 4u) << "three lines and the zero line";
  EXPECT_EQ(f.series[2].name, "d_model=256");
  EXPECT_EQ(f.series[2].x, (std::vector<double>{100, 400}));
  const auto csv = figures::gating_effect_csv(map, "all");
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "x,range,mean,lo,hi,n,line");

  // Without a chosen x the first numeric swept field is x; a field that was not swept is refused.
  EXPECT_EQ(figures::gating_effect_maps(runs).front().x_field, "model.d_model");
  EXPECT_THROW(figures::gating_effect_maps(runs, {.x_field = "model.mixer.rule"}), InputError);
}

TEST(GatingEffect, TheCsvHasExactlyTheColumnsAndTheFigureSetDrawsIt) {
  const auto results = as_run_results(steps_sweep(3));
  const auto figs = figures::figure_set(results);
  const figures::Figure* all = nullptr;
  for (const auto& f : figs)
    if (f.name == "gating_effect_nll_all") all = &f.figure;
  ASSERT_NE(all, nullptr);
  const auto csv = figures::figure_csv(*all);
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "x,range,mean,lo,hi,n");
  EXPECT_NE(csv.find("\n800,all,"), std::string::npos);
  EXPECT_NE(csv.find(",3\n"), std::string::npos) << "n = 3 seeds";
}

TEST(GatingEffect, AccuracyIsADifferenceInPoints) {
  std::vector<figures::EffectRun> runs;
  for (int steps : {100, 400})
    for (uint64_t s : {1, 2})
      for (int E : {1, 16}) {
        auto report = std::make_shared<eval::EvalReport>();
        eval::MqarResult m;
        m.answers = 100;
        m.accuracy = E == 1 ? 0.5 : (steps == 100 ? 0.40 : 0.70) + 0.01 * static_cast<double>(s);
        report->mqar = m;
        auto c = config_of(E, steps, s);
        runs.push_back({c.name, c, report});
      }
  const auto maps = figures::gating_effect_maps(runs);
  ASSERT_EQ(maps.size(), 1u);
  EXPECT_EQ(maps.front().metric, "mqar");
  EXPECT_NEAR(point_at(maps.front(), "all", 100).effect.mean, -8.5, 1e-9);
  EXPECT_NEAR(point_at(maps.front(), "all", 400).effect.mean, 21.5, 1e-9);
  EXPECT_EQ(point_at(maps.front(), "all", 400).effect.n, 2);
}

// An E sweep with the E = 1 run among its points (the e-ablation presets): x is E itself.
TEST(GatingEffect, AnESweepDrawsTheEffectAgainstE) {
  std::vector<figures::EffectRun> runs;
  for (int E : {1, 2, 4, 8})
    for (uint64_t s : {1, 2}) {
      const double effect = E == 1 ? 0.0 : -0.01 * E + (s == 1 ? -0.001 : 0.001);
      runs.push_back(run_of(config_of(E, 100, s), effect, effect, 50 + s));
    }
  const auto maps = figures::gating_effect_maps(runs);
  ASSERT_EQ(maps.size(), 1u);
  EXPECT_EQ(maps.front().x_field, "model.mixer.E");
  EXPECT_NEAR(point_at(maps.front(), "all", 8).effect.mean, -0.08, 1e-9);
  EXPECT_EQ(point_at(maps.front(), "all", 2).effect.n, 2);
  const auto f = figures::gating_effect_figure(maps.front(), "all");
  EXPECT_EQ(f.series.front().x, (std::vector<double>{2, 4, 8}));
}

// One seed of the token needle task: the difference in points with the bootstrap over the paired
// cells of the grid; one MQAR value per run: a mean and, as the figure says, no interval.
TEST(GatingEffect, OneSeedOfAccuracyBootstrapsOverCellsOrSaysThereIsNoInterval) {
  std::vector<figures::EffectRun> runs;
  for (int steps : {100, 400})
    for (int E : {1, 16}) {
      auto report = std::make_shared<eval::EvalReport>();
      eval::NeedleResult needle;
      eval::NiahTaskGrid grid;
      grid.task = "single";
      grid.lengths = {32, 64};
      grid.depths = {0, 50, 100};
      const double gain = E == 1 ? 0 : (steps == 100 ? -10 : 20);
      grid.score = {40 + gain, 50 + gain, 60 + gain, 30 + gain + 2, 20 + gain - 2, 50 + gain};
      needle.forms.push_back(grid);
      report->needle = needle;
      eval::MqarResult m;
      m.answers = 10;
      m.accuracy = E == 1 ? 0.5 : 0.5 + gain / 100;
      report->mqar = m;
      const auto c = config_of(E, steps, 1);
      runs.push_back({c.name, c, report});
    }
  const auto maps = figures::gating_effect_maps(runs);
  ASSERT_EQ(maps.size(), 2u);
  const auto& needle = maps[0].metric == "needle" ? maps[0] : maps[1];
  const auto& mqar = maps[0].metric == "mqar" ? maps[0] : maps[1];
  const auto& n400 = point_at(needle, "all", 400).effect;
  EXPECT_NEAR(n400.mean, 20, 1e-9);
  EXPECT_EQ(n400.n, 6) << "the grid's cells";
  EXPECT_NEAR(point_at(mqar, "all", 100).effect.mean, -10, 1e-9);
  EXPECT_FALSE(point_at(mqar, "all", 100).effect.has_interval());
  const auto f = figures::gating_effect_figure(mqar, "all");
  EXPECT_FALSE(f.series.front().error_bars);
  bool says = false;
  for (const auto& n : f.notes) says |= n.find("no interval") != std::string::npos;
  EXPECT_TRUE(says);
}

// Claim (c)'s figure: a needle grid asked at four lengths, the gated run of seed s scoring
// baseline + 5 points per doubling of the length from -20 at the shortest, + a seed offset (+-2).
// The map has one line per form, the known means at each length, n = seeds, and the trend's slope
// is exactly 5 points per doubling; with one seed, the bootstrap over the depth cells (n = depths).
std::vector<figures::EffectRun> needle_length_runs(int seeds) {
  std::vector<figures::EffectRun> runs;
  for (int s = 1; s <= seeds; ++s)
    for (int E : {1, 16}) {
      eval::NeedleResult needle;
      for (const char* form : {"single", "multikey"}) {
        eval::NiahTaskGrid grid;
        grid.task = form;
        grid.lengths = {32, 64, 128, 256};
        grid.depths = {0, 50, 100};
        for (int d = 0; d < 3; ++d)
          for (int l = 0; l < 4; ++l) {
            const double base = 60 + 10 * d - 3 * l + (form[0] == 'm' ? -30 : 0);
            const double offset = seeds == 1 ? 0 : (s == 1 ? -2 : 2);
            grid.score.push_back(E == 1 ? base : base - 20 + 5 * l + offset + (d - 1));
          }
        needle.forms.push_back(grid);
      }
      auto report = std::make_shared<eval::EvalReport>();
      report->needle = needle;
      auto c = config_of(E, 100, static_cast<uint64_t>(s));
      c.data.seq_len = 64;
      runs.push_back({c.name, c, report});
    }
  return runs;
}

TEST(GatingEffect, TheNeedleEffectIsDrawnAgainstTheContextLengthWithItsGrowthPerDoubling) {
  const auto map = figures::needle_effect_by_length(needle_length_runs(2));
  ASSERT_TRUE(map.has_value());
  EXPECT_EQ(map->metric, "needle_length");
  EXPECT_EQ(map->lines, (std::vector<std::string>{"single", "multikey"}));
  for (const char* form : {"single", "multikey"})
    for (int l = 0; l < 4; ++l) {
      const auto& e = point_at(*map, "all", 32 << l, form).effect;
      EXPECT_NEAR(e.mean, -20 + 5 * l, 1e-9) << form << " at " << (32 << l);
      EXPECT_EQ(e.n, 2);
      EXPECT_TRUE(e.has_interval());
    }
  const auto fits = figures::trend_fits(*map);
  ASSERT_EQ(fits.size(), 2u);
  EXPECT_TRUE(fits[0].log_x);
  EXPECT_NEAR(fits[0].slope, 5.0, 1e-9) << "points per doubling of the context";
  const auto f = figures::gating_effect_figure(*map, "all");
  EXPECT_EQ(f.x.scale, figures::Scale::log);
  EXPECT_EQ(f.series.front().x, (std::vector<double>{32, 64, 128, 256}));
  bool names_n = false;
  for (const auto& n : f.notes) names_n |= n.find("training length N = 64") != std::string::npos;
  EXPECT_TRUE(names_n);
  // The export draws it beside the other maps.
  bool drawn = false;
  for (const auto& nf : figures::gating_effect_figures(needle_length_runs(2))) drawn |= nf.name == "gating_effect_needle_by_length";
  EXPECT_TRUE(drawn);
  // One seed: the bootstrap over the three paired depth cells.
  const auto one = figures::needle_effect_by_length(needle_length_runs(1));
  ASSERT_TRUE(one.has_value());
  EXPECT_EQ(point_at(*one, "all", 128, "single").effect.n, 3);
  EXPECT_NEAR(point_at(*one, "all", 128, "single").effect.mean, -10, 1e-9);
}

// A map of one range ("all") with the given means at the given x, each a 3-seed point, on `line`.
figures::GatingEffectMap map_of(const std::vector<double>& xs, const std::vector<double>& means,
                                const std::string& line = "") {
  figures::GatingEffectMap map;
  map.metric = "nll";
  map.x_field = "train.steps";
  map.lines = {line};
  map.ranges = {{"all", 1, 1}};
  for (size_t i = 0; i < xs.size(); ++i) map.points.push_back({xs[i], line, "all", {means[i], means[i] - 0.1, means[i] + 0.1, 3}});
  return map;
}

TEST(GatingEffectTrend, PointsOnALineGiveItsSlopeAndInterceptExactly) {
  // mean = 0.25 - 0.05 x on a linear axis (x = 1..3: max / min < 4), zero at x = 5.
  const auto fits = figures::trend_fits(map_of({1, 2, 3}, {0.20, 0.15, 0.10}));
  ASSERT_EQ(fits.size(), 1u);
  const auto& t = fits.front();
  EXPECT_EQ(t.range, "all");
  EXPECT_EQ(t.points, 3);
  EXPECT_FALSE(t.log_x);
  EXPECT_NEAR(t.slope, -0.05, 1e-12);
  EXPECT_NEAR(t.intercept, 0.25, 1e-12);
  EXPECT_NEAR(t.slope_lo, -0.05, 1e-9) << "no residuals: no width";
  EXPECT_NEAR(t.slope_hi, -0.05, 1e-9);
  EXPECT_NEAR(t.zero_x, 5, 1e-9);
  EXPECT_FALSE(t.zero_inside);
}

TEST(GatingEffectTrend, TheSlopeIntervalIsTheTIntervalOfTheResidualStandardError) {
  // The line mean = u - 1.5 at u = 2..5 plus noise (0.5, 1.5, -0.5, 1.5): means 1, 3, 2, 5.
  // By hand: u mean 3.5, Suu = 5, Suy = 5.5, slope 1.1, intercept 2.75 - 1.1 * 3.5 = -1.1;
  // residuals -0.1, 0.8, -1.3, 0.6, SSE 2.7; se = sqrt(2.7 / 2 / 5); t(0.975, 2) = 4.30265273.
  const auto fits = figures::trend_fits(map_of({2, 3, 4, 5}, {1, 3, 2, 5}));
  ASSERT_EQ(fits.size(), 1u);
  const auto& t = fits.front();
  const double half = 4.30265273 * std::sqrt(2.7 / 2 / 5);
  EXPECT_NEAR(t.slope, 1.1, 1e-12);
  EXPECT_NEAR(t.intercept, -1.1, 1e-12);
  EXPECT_NEAR(t.slope_hi - t.slope, half, 1e-6);
  EXPECT_NEAR(t.slope - t.slope_lo, half, 1e-6);
  EXPECT_LT(t.slope_lo, 1.0);
  EXPECT_GT(t.slope_hi, 1.0) << "the true slope is inside";
  EXPECT_NEAR(t.zero_x, 1, 1e-12) << "-intercept / slope";
  EXPECT_FALSE(t.zero_inside) << "x = 1 is left of the runs (2..5)";
  const auto csv = figures::gating_effect_trend_csv(map_of({2, 3, 4, 5}, {1, 3, 2, 5}), "all");
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "line,range,points,slope,slope_lo,slope_hi,intercept,zero_x,zero_inside,axis");
  EXPECT_NE(csv.find("\n,all,4,"), std::string::npos);
  EXPECT_NE(csv.find(",0,linear"), std::string::npos);
}

TEST(GatingEffectTrend, OnALogAxisTheSlopeIsPerDoubling) {
  // mean = -0.05 (log2 x - log2 200): -0.05 per doubling, zero at x = 200, inside 40..640.
  const std::vector<double> xs = {40, 80, 160, 320, 640};
  std::vector<double> means;
  for (double x : xs) means.push_back(-0.05 * (std::log2(x) - std::log2(200.0)));
  const auto fits = figures::trend_fits(map_of(xs, means));
  ASSERT_EQ(fits.size(), 1u);
  const auto& t = fits.front();
  EXPECT_TRUE(t.log_x);
  EXPECT_EQ(t.points, 5);
  EXPECT_NEAR(t.slope, -0.05, 1e-12);
  EXPECT_NEAR(t.intercept, 0.05 * std::log2(200.0), 1e-12);
  EXPECT_NEAR(t.zero_x, 200, 1e-9);
  EXPECT_TRUE(t.zero_inside);
  const auto csv = figures::gating_effect_trend_csv(map_of(xs, means), "all");
  EXPECT_NE(csv.find(",1,log2\n"), std::string::npos);
}

TEST(GatingEffectTrend, TwoPointsOrAFlatLineGiveNoFitOrNoCrossing) {
  EXPECT_TRUE(figures::trend_fits(map_of({100, 400}, {0.1, -0.1})).empty());
  const auto csv = figures::gating_effect_trend_csv(map_of({100, 400}, {0.1, -0.1}), "all");
  EXPECT_EQ(csv.find('\n'), csv.size() - 1) << "a header alone";
  const auto f = figures::gating_effect_figure(map_of({100, 400}, {0.1, -0.1}), "all");
  EXPECT_EQ(f.series.size(), 2u) << "the line and the zero line, no trend";
  EXPECT_TRUE(f.extra_csv.empty());
  const auto flat = figures::trend_fits(map_of({1, 2, 3}, {0.2, 0.2, 0.2}));
  ASSERT_EQ(flat.size(), 1u);
  EXPECT_EQ(flat.front().slope, 0);
  EXPECT_TRUE(std::isnan(flat.front().zero_x));
  EXPECT_FALSE(flat.front().zero_inside);
}

TEST(GatingEffectTrend, TheFigureDrawsOneTrendPerFittedLineWithANote) {
  // The steps sweep's late effect: 0.3, 0.1, -0.1, -0.3 at 100..800 steps, -0.2 nats per doubling.
  const auto maps = figures::gating_effect_maps(steps_sweep(3));
  ASSERT_EQ(maps.size(), 1u);
  const auto f = figures::gating_effect_figure(maps.front(), "N-4N");
  ASSERT_EQ(f.series.size(), 3u);
  const auto& trend = f.series[2];
  EXPECT_TRUE(trend.name.empty()) << "a guide like the zero line: not in the legend or the CSV";
  EXPECT_TRUE(trend.dashed);
  EXPECT_EQ(trend.color, f.series[0].color);
  EXPECT_DOUBLE_EQ(trend.x.front(), 100);
  EXPECT_NEAR(trend.x.back(), 800, 1e-9);
  EXPECT_NEAR(trend.x[2], std::sqrt(100.0 * 800.0), 1e-9) << "evenly spaced in log2 x";
  EXPECT_NEAR(trend.y.front(), 0.3, 1e-9);
  EXPECT_NEAR(trend.y.back(), -0.3, 1e-9);
  std::string note;
  for (const auto& n : f.notes)
    if (n.find("trend: ") != std::string::npos) note = n;
  EXPECT_NE(note.find("-0.2 nats per byte per doubling ["), std::string::npos) << note;
  EXPECT_NE(note.find("(least squares over 4 points, t 2 df)"), std::string::npos) << note;
  EXPECT_NE(note.find("crosses zero near train.steps = 282.8 (within the runs)"), std::string::npos) << note;
  bool kept = false;  // the neighbouring points' crossing note stays
  for (const auto& n : f.notes) kept |= n.starts_with("the mean crosses zero near train.steps = 282.8");
  EXPECT_TRUE(kept);
  const auto csv = figures::figure_csv(f);
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "x,range,mean,lo,hi,n") << "the figure's CSV is unchanged";
  ASSERT_EQ(f.extra_csv.size(), 1u);
  EXPECT_EQ(f.extra_csv.front().first, "trend");
  EXPECT_EQ(f.extra_csv.front().second, figures::gating_effect_trend_csv(maps.front(), "N-4N"));

  // The early effect is flat (-0.5 at every budget): a trend that never crosses zero.
  const auto early = figures::gating_effect_figure(maps.front(), "first-N16");
  bool flat = false;
  for (const auto& n : early.notes) flat |= n.find("flat: no zero crossing") != std::string::npos;
  EXPECT_TRUE(flat);

  // Two lines, one with three x values and one with two: one trend, named by its line in the note.
  auto two = map_of({100, 200, 400}, {0.2, 0.1, 0.0}, "d=1");
  const auto second = map_of({100, 400}, {0.3, 0.1}, "d=2");
  two.lines.push_back("d=2");
  two.points.insert(two.points.end(), second.points.begin(), second.points.end());
  const auto g = figures::gating_effect_figure(two, "all");
  ASSERT_EQ(g.series.size(), 4u) << "two lines, the zero line and one trend";
  EXPECT_EQ(g.series[3].color, g.series[0].color);
  bool named = false;
  for (const auto& n : g.notes)
    named |= n.starts_with("d=1: trend: -0.1 nats per doubling") && n.ends_with("train.steps = 400 (within the runs)");
  EXPECT_TRUE(named);
}

TEST(GatingEffectTrend, TheExportWritesTheTrendTableBesideTheFigure) {
  const auto maps = figures::gating_effect_maps(steps_sweep(3));
  ASSERT_EQ(maps.size(), 1u);
  const std::vector<figures::NamedFigure> figs = {{"gating_effect_nll_N-4N", figures::gating_effect_figure(maps.front(), "N-4N")}};
  const test_support::TempDir dir;
  figures::ExportSettings s;
  s.formats = {"csv"};
  EXPECT_EQ(figures::export_file_count(figs, s), 2);
  const auto files = figures::export_figures(figs, dir / "out", s);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(std::filesystem::path(files[1]).filename(), "gating_effect_nll_N-4N_trend.csv");
  EXPECT_EQ(test_support::TempDir::read(files[1]), figures::gating_effect_trend_csv(maps.front(), "N-4N"));
  s.formats = {"svg"};
  EXPECT_EQ(figures::export_file_count(figs, s), 1) << "the table rides with the CSV only";
}

}  // namespace
