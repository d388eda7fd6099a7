// The gating effect by variant (a forest plot of diagnosis cells) from synthetic seed groups whose
// effects are known exactly: seed s of a gated group is its baseline's seed s (the same noise) plus
// early (positions 1-16) and late shifts, plus a per-seed offset, so every mean, t interval and n
// can be computed by hand; and the figure laid out in the window's panel at 1000 pixels.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <tuple>
#include <variant>

#include "core/common/input_error.hpp"
#include "core/figures/figure_set.hpp"
#include "core/figures/gating_effect_by_variant.hpp"
#include "core/figures/layout.hpp"
#include "core/figures/painter.hpp"
#include "tests/support/input_error_field.hpp"
#include "tests/support/synthetic_per_position.hpp"

namespace {

using namespace proteus;

constexpr int kTrainLen = 512;  // N: every diagnosis range is there (257-N and N-4N too)
constexpr int kEvalLen = 4 * kTrainLen;
constexpr int kSequences = 6;
constexpr int kEarly = 16;  // positions 1-16 take the early shift, 17 on the late one
const double kSeedOffset[3] = {-0.04, 0.0, 0.04};  // seeds 1-3: sd 0.04
const double kHalfWidth3 = 4.302653 * 0.04 / std::sqrt(3.0);  // t(0.975, 2) sd / sqrt(3)

// One cell of the diagnosis: a group's config (the reference regime, changed by `change`).
config::RunConfig cell_config(const std::string& group, int E, uint64_t seed) {
  config::RunConfig c;
  c.name = group + "-s" + std::to_string(seed);
  c.group = group;
  c.seed = seed;
  c.data.seq_len = kTrainLen;
  c.model.mixer.E = E;
  return c;
}

// The run of `c` shifted by (early, late) from the base of `seed`'s noise.
figures::EffectRun run_of(const config::RunConfig& c, double early, double late, double per_word = 0) {
  auto report = std::make_shared<eval::EvalReport>();
  report->per_position = test_support::synthetic_per_position(kEvalLen, kSequences, kTrainLen, kEarly, early, late, 100 + c.seed);
  report->per_position->bytes_per_word = per_word;
  return {c.name, c, report};
}

// Three cells over seeds 1-3: the reference (regime-comba), a normalisation variant sharing the
// reference's configs at E = 1 but with a baseline group of its own, and 4 heads (another baseline).
struct Cell {
  std::string gated, baseline;
  double early, late;
};
const Cell kCells[] = {{"regime-comba-proteus-e16", "regime-comba-baseline", -0.2, 0.15},
                       {"diag-normalize-mask-then-normalize-e16", "diag-normalize-baseline", -0.1, 0.05},
                       {"diag-heads4-proteus-e16", "diag-heads4-baseline", 0.0, -0.03}};

std::vector<figures::EffectRun> diagnosis_runs(double per_word = 0) {
  std::vector<figures::EffectRun> runs;
  for (const auto& cell : kCells)
    for (uint64_t s = 1; s <= 3; ++s) {
      auto b = cell_config(cell.baseline, 1, s), g = cell_config(cell.gated, 16, s);
      if (cell.gated.find("normalize") != std::string::npos) g.model.mixer.normalize = memory::KeyNormalize::mask_then_normalize;
      if (cell.gated.find("heads4") != std::string::npos) b.model.mixer.heads = g.model.mixer.heads = 4;
      // Each cell's arms lie at their own level (a group wrongly paired moves every mean); a seed's
      // arms share their noise (a seed wrongly paired widens every interval).
      const double level = 0.5 * static_cast<double>(&cell - kCells), off = kSeedOffset[s - 1];
      runs.push_back(run_of(b, level, level, per_word));
      runs.push_back(run_of(g, level + cell.early + off, level + cell.late + off, per_word));
    }
  return runs;
}

const figures::VariantEffect& row_named(const std::vector<figures::VariantEffect>& rows, const std::string& name) {
  for (const auto& r : rows)
    if (r.variant == name) return r;
  throw std::runtime_error("no row " + name);
}

TEST(DiagnosisRanges, AreFixedPositionsClippedToTheEvaluation) {
  const auto r = eval::diagnosis_ranges(512, 2048);
  ASSERT_EQ(r.size(), 6u);
  const std::vector<std::tuple<std::string, int, int>> want = {
      {"1-2", 1, 2}, {"3-16", 3, 16}, {"17-256", 17, 256}, {"257-N", 257, 512}, {"N-4N", 513, 2048}, {"all", 1, 2048}};
  for (size_t k = 0; k < want.size(); ++k) {
    EXPECT_EQ(r[k].name, std::get<0>(want[k]));
    EXPECT_EQ(r[k].lo, std::get<1>(want[k]));
    EXPECT_EQ(r[k].hi, std::get<2>(want[k]));
  }
  const auto short_run = eval::diagnosis_ranges(64, 128);  // N <= 256: no 257-N; 17-256 ends at L
  std::vector<std::string> names;
  for (const auto& x : short_run) names.push_back(x.name);
  EXPECT_EQ(names, (std::vector<std::string>{"1-2", "3-16", "17-256", "N-4N", "all"}));
  EXPECT_EQ(short_run[2].hi, 128);
}

TEST(DiagnosisRanges, TheMeanIsOverExactlyTheRangesPositions) {
  eval::PerPositionResult r;
  r.seq_len = 300;
  for (int t = 1; t <= r.seq_len; ++t) r.nll.push_back(t);  // nll = the position
  for (auto [lo, hi] : eval::log_buckets(r.seq_len, 8)) {
    r.bucket_lo.push_back(lo);
    r.bucket_hi.push_back(hi);
    r.bucket_nll.push_back((lo + hi) / 2.0);
  }
  r.mean_nll = 150.5;
  EXPECT_DOUBLE_EQ(eval::exact_range_mean_nll(r, {"3-16", 3, 16}), 9.5);
  EXPECT_DOUBLE_EQ(eval::exact_range_mean_nll(r, {"17-256", 17, 256}), 136.5) << "not by whole buckets";
  EXPECT_DOUBLE_EQ(eval::exact_range_mean_nll(r, {"all", 1, 300}), 150.5);

  // Paired and read position by position (the maps' diagnosis ranges): gated = 2 x baseline, so
  // the effect is the baseline's own exact mean; the default reading takes whole buckets.
  auto g = r;
  for (auto& x : g.nll) x *= 2;
  for (auto& x : g.bucket_nll) x *= 2;
  g.mean_nll *= 2;
  const std::vector<const eval::PerPositionResult*> gated{&g, &g}, baseline{&r, &r};
  const eval::PositionRange late{"17-256", 17, 256};
  EXPECT_DOUBLE_EQ(eval::paired_range_effect(gated, baseline, late, eval::PositionReading::exact).mean, 136.5);
  EXPECT_NE(eval::paired_range_effect(gated, baseline, late).mean, 136.5) << "by buckets: the last one runs to 300";
}

TEST(GatingEffectByVariant, EachRowIsItsGroupMinusItsOwnBaselineWithTheTIntervalOverSeeds) {
  const auto rows = figures::variant_effects(diagnosis_runs());
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].variant, "regime-comba-proteus-e16") << "rows in order of first appearance";
  for (const auto& cell : kCells) {
    const auto& row = row_named(rows, cell.gated);
    EXPECT_EQ(row.baseline, cell.baseline) << "the E = 1 group of the same cell, not the first that pairs";
    EXPECT_EQ(row.seeds, (std::vector<uint64_t>{1, 2, 3}));
    EXPECT_EQ(row.unit, "nats per byte");
    ASSERT_EQ(row.ranges.size(), 6u);
    for (const char* early : {"1-2", "3-16"}) EXPECT_NEAR(row.effect(early)->mean, cell.early, 1e-9) << early;
    for (const char* late : {"17-256", "257-N", "N-4N"}) {
      const auto& e = *row.effect(late);
      EXPECT_NEAR(e.mean, cell.late, 1e-9) << late;
      EXPECT_NEAR(e.hi - e.mean, kHalfWidth3, 1e-6) << late << ": 95% Student t over the 3 seeds";
      EXPECT_NEAR(e.mean - e.lo, kHalfWidth3, 1e-6) << late;
      EXPECT_EQ(e.n, 3);
    }
    EXPECT_NEAR(row.effect("all")->mean, (kEarly * cell.early + (kEvalLen - kEarly) * cell.late) / kEvalLen, 1e-9);
  }
}

TEST(GatingEffectByVariant, ARowsNIsTheNumberOfSeedsThatPair) {
  auto runs = diagnosis_runs();
  // heads4: the baseline's seed 3 was not trained; a gated seed 4 has no baseline; seed 2 given twice.
  runs.erase(std::remove_if(runs.begin(), runs.end(), [](const figures::EffectRun& r) { return r.name == "diag-heads4-baseline-s3"; }),
             runs.end());
  runs.push_back(run_of(cell_config("diag-heads4-proteus-e16", 16, 4), 5, 5));
  runs.back().config.model.mixer.heads = 4;
  auto twice = run_of(cell_config("diag-heads4-proteus-e16", 16, 2), 9, 9);
  twice.config.model.mixer.heads = 4;
  runs.push_back(twice);
  const auto rows = figures::variant_effects(runs);
  const auto& row = row_named(rows, "diag-heads4-proteus-e16");
  EXPECT_EQ(row.seeds, (std::vector<uint64_t>{1, 2}));
  const auto& e = *row.effect("N-4N");
  EXPECT_EQ(e.n, 2);
  EXPECT_NEAR(e.mean, -0.03 - 0.02, 1e-9) << "seeds 1 and 2 only (offsets -0.04 and 0)";
  EXPECT_NEAR(e.hi - e.mean, 12.7062047 * 0.04 / std::sqrt(2.0) / std::sqrt(2.0), 1e-5) << "t(0.975, 1) sd / sqrt(2)";
  // One seed pairs: a mean and no interval (n = 1).
  runs.erase(std::remove_if(runs.begin(), runs.end(), [](const figures::EffectRun& r) { return r.name == "diag-heads4-baseline-s2"; }),
             runs.end());
  const auto one_seed = figures::variant_effects(runs);
  const auto& one = row_named(one_seed, "diag-heads4-proteus-e16");
  EXPECT_EQ(one.effect("all")->n, 1);
  EXPECT_FALSE(one.effect("all")->has_interval());
}

TEST(GatingEffectByVariant, SeedsPairWithTheSameSeedOfABaselineWithTheSameConfig) {
  auto runs = diagnosis_runs();
  std::reverse(runs.begin(), runs.end());  // baselines listed after, seeds descending
  // A baseline group with another model (d_model) pairs with nothing.
  for (uint64_t s = 1; s <= 3; ++s) {
    auto c = cell_config("wide-baseline", 1, s);
    c.model.d_model = 256;
    runs.push_back(run_of(c, 1, 1));
  }
  const auto rows = figures::variant_effects(runs);
  ASSERT_EQ(rows.size(), 3u);
  const auto& ref = row_named(rows, "regime-comba-proteus-e16");
  EXPECT_EQ(ref.baseline, "regime-comba-baseline");
  EXPECT_NEAR(ref.effect("N-4N")->mean, 0.15, 1e-9);
  EXPECT_NEAR(ref.effect("N-4N")->hi - ref.effect("N-4N")->mean, kHalfWidth3, 1e-6) << "seed s with seed s";
  EXPECT_EQ(row_named(rows, "diag-heads4-proteus-e16").baseline, "diag-heads4-baseline") << "4 heads pair with 4 heads";
}

TEST(GatingEffectByVariant, TheCsvHoldsEveryRowAndRangeAndTheFigureSetDrawsIt) {
  std::vector<figures::RunResults> results;
  for (const auto& r : diagnosis_runs()) results.push_back({.name = r.name, .config = r.config, .report = r.report});
  const auto figs = figures::figure_set(results);
  std::vector<std::string> names;
  for (const auto& f : figs)
    if (f.name.starts_with("gating_effect_by_variant")) names.push_back(f.name);
  EXPECT_EQ(names, (std::vector<std::string>{"gating_effect_by_variant", "gating_effect_by_variant_1-2", "gating_effect_by_variant_3-16",
                                             "gating_effect_by_variant_17-256", "gating_effect_by_variant_257-N",
                                             "gating_effect_by_variant_N-4N"}));
  const auto& all = std::find_if(figs.begin(), figs.end(), [](const figures::NamedFigure& f) { return f.name == "gating_effect_by_variant"; })->figure;
  const auto csv = figures::figure_csv(all);
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "variant,range,mean,lo,hi,n,unit");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 3 * 6) << "every row and range";
  const auto at = csv.find("\nregime-comba-proteus-e16,N-4N,");
  ASSERT_NE(at, std::string::npos);
  EXPECT_NEAR(std::stod(csv.substr(at + std::string("\nregime-comba-proteus-e16,N-4N,").size())), 0.15, 1e-9);
  EXPECT_NE(csv.find(",3,nats per byte\n"), std::string::npos);
  const auto one_range = figures::gating_effect_by_variant_csv(figures::variant_effects(diagnosis_runs()), "1-2");
  EXPECT_EQ(std::count(one_range.begin(), one_range.end(), '\n'), 1 + 3);
}

// The vertical guides: x of every unnamed two-point series that spans the rows.
std::vector<double> vertical_lines(const figures::Figure& f) {
  std::vector<double> xs;
  for (const auto& s : f.series)
    if (s.name.empty() && s.x.size() == 2 && s.x[0] == s.x[1] && s.lo.empty()) xs.push_back(s.x[0]);
  return xs;
}

bool has_note(const figures::Figure& f, const std::string& part) {
  return std::any_of(f.notes.begin(), f.notes.end(), [&](const std::string& n) { return n.find(part) != std::string::npos; });
}

TEST(GatingEffectByVariant, TheFigureDrawsZeroTheReferenceAndThePapersBandOnlyInItsUnit) {
  const auto rows = figures::variant_effects(diagnosis_runs());
  const auto f = figures::gating_effect_by_variant_figure(rows, "N-4N");
  const auto lines = vertical_lines(f);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], 0.0);
  EXPECT_NEAR(lines[1], 0.15, 1e-9) << "the reference: the first row";
  EXPECT_EQ(f.y.tick_labels.size(), 3u);
  EXPECT_EQ(f.y.tick_labels.back(), "regime-comba-proteus, n=3") << "the first row on top, the suffix all share aside";
  EXPECT_TRUE(has_note(f, "rows: *-e16"));
  // Per byte, with no word count: no band, and the figure says why.
  for (const auto& s : f.series) EXPECT_TRUE(s.lo.empty()) << "no shaded band";
  EXPECT_TRUE(has_note(f, "is per word")) << "the band's unit said";
  EXPECT_TRUE(has_note(f, "not drawn"));
  // None chosen, the reference is the row read as the defaults, not whichever comes first: with
  // the mask_then_normalize row on top it is still regime-comba's (0 readings changed, 3 seeds).
  auto reordered = rows;
  std::swap(reordered[0], reordered[1]);
  ASSERT_EQ(reordered.front().variant, "diag-normalize-mask-then-normalize-e16");
  EXPECT_EQ(reordered.front().readings_changed, 1);
  EXPECT_NEAR(vertical_lines(figures::gating_effect_by_variant_figure(reordered, "N-4N"))[1], 0.15, 1e-9);
  // A chosen reference; one that is not a row is refused naming the option.
  const auto g = figures::gating_effect_by_variant_figure(rows, "N-4N", "diag-heads4-proteus-e16");
  EXPECT_NEAR(vertical_lines(g)[1], -0.03, 1e-9);
  EXPECT_EQ(test_support::field_of([&] { figures::gating_effect_by_variant_figure(rows, "all", "regime-comba-baseline"); }), "reference");
  // With 5 bytes per word counted by the evaluation: the band in nats per byte behind every row.
  const auto per_word = figures::gating_effect_by_variant_figure(figures::variant_effects(diagnosis_runs(5.0)), "all");
  int bands = 0;
  for (const auto& s : per_word.series)
    if (!s.lo.empty()) {
      ++bands;
      EXPECT_NEAR(s.x[0], -0.042 / 5, 1e-12);
      EXPECT_NEAR(s.x[1], -0.023 / 5, 1e-12);
      EXPECT_NEAR(s.hi[0] - s.lo[0], 3 - 0.1, 1e-12) << "one stripe over the three rows";
    }
  EXPECT_EQ(bands, 1);
  EXPECT_TRUE(has_note(per_word, "the paper's -0.042 to -0.023 nats per word, in the row's unit"));
}

TEST(GatingEffectByVariant, EachRowsBarIsItsInterval) {
  const auto rows = figures::variant_effects(diagnosis_runs());
  const auto f = figures::gating_effect_by_variant_figure(rows, "17-256");
  const auto bars = std::find_if(f.series.begin(), f.series.end(), [](const figures::Series& s) {
    return s.name.empty() && s.x.size() > 2;
  });
  ASSERT_NE(bars, f.series.end());
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& e = *rows[i].effect("17-256");
    const double y = static_cast<double>(rows.size() - i);
    const auto at = std::find(bars->y.begin(), bars->y.end(), y) - bars->y.begin();
    ASSERT_LT(static_cast<size_t>(at) + 1, bars->x.size());
    EXPECT_DOUBLE_EQ(bars->x[at], e.lo) << rows[i].variant;
    EXPECT_DOUBLE_EQ(bars->x[at + 1], e.hi) << rows[i].variant;
  }
}

// A fixed-pitch font: every character half an em wide (as tests/figures/test_layout.cpp).
double fixed_pitch(const std::string& s, const figures::TextStyle& style) { return 0.5 * style.size * double(s.size()); }

// Every text of the layout on its page, every row labelled, every mark in the plot.
void expect_fits(const figures::Layout& L, size_t rows, const std::function<double(const figures::Text&)>& width) {
  int row_labels = 0;
  for (const auto& p : L.primitives) {
    if (const auto* t = std::get_if<figures::Text>(&p.shape)) {
      const double w = width(*t);
      const double along = t->vertical ? t->at.y : t->at.x;
      const double page = t->vertical ? L.height : L.width;
      EXPECT_GE(along - t->ax * w, -1e-9) << t->text;
      EXPECT_LE(along + (1 - t->ax) * w, page + 1e-9) << t->text;
      if (!t->vertical) {
        EXPECT_TRUE(t->at.y >= 0 && t->at.y <= L.height) << t->text;
      }
      row_labels += !t->vertical && t->ax == 1 && t->at.x < L.plot.x && t->style.size == figures::kTickLabelSize;
    }
    if (const auto* d = std::get_if<figures::Dots>(&p.shape)) {
      for (const auto& c : d->centres) EXPECT_TRUE(L.plot.contains(c)) << "a mean at " << c.x << ", " << c.y;
    }
  }
  EXPECT_EQ(row_labels, static_cast<int>(rows)) << "every row's label printed";
  EXPECT_GE(L.plot.w, 0.4 * L.width) << "the row labels leave the plot room";
  EXPECT_GE(L.plot.h, 30.0);
}

TEST(GatingEffectByVariant, FitsItsPanelAt1000Pixels) {
  auto rows = figures::variant_effects(diagnosis_runs());
  rows[0].notes.push_back("regime-comba-proteus-e16: left out seed 9: evaluated to another length than seed 1");
  for (const char* range : {"all", "N-4N"}) {
    const auto f = figures::gating_effect_by_variant_figure(rows, range);
    // The window's grid at 1000 pixels (test_layout's panel), and a paper column.
    for (const auto& [W, H] : {std::pair{200.0, 194.0}, {480.0, 320.0}}) {
      const auto L = figures::layout_figure(f, W, H, fixed_pitch);
      expect_fits(L, rows.size(), [](const figures::Text& t) { return fixed_pitch(t.text, t.style); });
    }
    // The file painter's own font.
    const auto L = figures::file_layout(f, 480, 320);
    EXPECT_GE(L.plot.w, 0.4 * 480);
  }
  // A name too long for a narrow panel is shortened, not run off the page.
  auto long_rows = rows;
  long_rows[1].variant = "diag-normalize-a-very-long-variant-name-that-no-narrow-panel-holds-e16";
  const auto L = figures::layout_figure(figures::gating_effect_by_variant_figure(long_rows, "all"), 200, 194, fixed_pitch);
  expect_fits(L, rows.size(), [](const figures::Text& t) { return fixed_pitch(t.text, t.style); });
}

}  // namespace
