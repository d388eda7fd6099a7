// Where gating helps: the paired effect of gating (a gated run minus the E = 1 baseline beside it,
// eval/paired_effect.hpp) against a swept field, one line per value of the other swept fields.
// Each gated run pairs with its baseline by the one rule of core/eval/baseline.hpp (same seed,
// every config field but the schedule's own); the fields that differ between the gated points are
// the swept ones. The window's training and runs views and `proteus export` draw these through
// figure_set, so what a user exports is what they saw. No drawing here.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/common/name_table.hpp"
#include "core/config/config.hpp"
#include "core/eval/evaluate.hpp"
#include "core/eval/line_fit.hpp"
#include "core/eval/paired_effect.hpp"
#include "core/figures/run_figures.hpp"

namespace proteus::figures {

// A run with its resolved config and its evaluations (a run directory's, or a finished job's).
struct EffectRun {
  std::string name;
  config::RunConfig config;
  std::shared_ptr<const eval::EvalReport> report;
};

// One point of the map: the swept value, its line, the range (or "all" for accuracy) and the effect.
struct EffectPoint {
  double x = 0;
  std::string line;   // "d_head=32, rule=delta"; empty when the map has one line
  std::string range;  // eval::PositionRange::name, or "all"
  eval::Interval effect;
};

// Which position ranges the nll map draws: the regime map's (eval::effect_ranges: first N/16, N/16
// to N, N to 4N, all; by whole buckets) or the diagnosis's (eval::diagnosis_ranges: 1-2, 3-16,
// 17-256, 257-N, N-4N, all; position by position, as its tables read them).
enum class EffectRanges { regime_map, diagnosis };
const std::vector<common::Named<EffectRanges>>& name_table(EffectRanges);

// One metric's map: "nll" (nats, per position range), "needle" or "mqar" (accuracy points), or
// "needle_length" (accuracy points against the context length: needle_effect_by_length).
struct GatingEffectMap {
  std::string metric;
  std::string x_field;                  // the dotted config path along x (kTrainingTokensX; "context length (tokens)" for needle_length)
  std::vector<std::string> line_fields; // the other swept fields (their values name the lines)
  std::vector<std::string> lines;       // in order of first appearance
  std::vector<eval::PositionRange> ranges;  // nll: of the first point (names shared by every point); else {"all"}
  std::vector<EffectPoint> points;      // sorted by line, then range, then x
  std::vector<std::string> notes;
  bool lengths_differ = false;  // the points' training lengths N differ: ranges are in units of each one's N
  EffectRanges ranges_read = EffectRanges::regime_map;  // nll: which ranges, and how they were read
  std::string unit;            // of the effect: nll_unit of the runs ("nats per byte"), "points" for accuracy
  std::string x_unit = "tokens";  // x = kTrainingTokensX: "bytes" when every run trained on byte text alone
};

// The x axis a budget sweep is read against: the tokens each run trained on, train.steps x
// data.batch x data.seq_len (not a config field: derived from the three).
inline constexpr const char* kTrainingTokensX = "train.tokens";

// The unit of a run's per-position loss, which is evaluated on its text: "nats per byte" with the
// byte tokenizer, else "nats per token".
std::string nll_unit(const config::RunConfig& c);

struct GatingEffectOptions {
  // A numeric swept field, or kTrainingTokensX when the gated runs differ in one of its three
  // factors; empty: the first numeric swept field other than model.mixer.E, else E.
  std::string x_field;
  EffectRanges ranges = EffectRanges::regime_map;
};

// The maps these runs have data for (nll when runs are evaluated per position, needle, mqar), each
// only with two or more distinct x values. The swept fields are the config fields whose values
// differ between the gated points (seeds, names, folders and devices aside); fields that move in
// lockstep (data.seq_len and the horizons resolve() derives from it) count once, under the field
// a user sets. With x = kTrainingTokensX the budget's factors (train.steps, data.batch,
// data.seq_len) are the axis, not lines. Throws InputError("x", ...) when options.x_field is not
// a swept numeric field, or is kTrainingTokensX while every gated run trained on as many tokens.
std::vector<GatingEffectMap> gating_effect_maps(const std::vector<EffectRun>& runs, const GatingEffectOptions& options = {});

// Where a line's mean crosses zero between two neighbouring x values (linear in the axis'
// coordinates: log2 x on a log axis), or touches it at a point.
struct ZeroCrossing {
  std::string line, range;
  double x = 0;
};
std::vector<ZeroCrossing> zero_crossings(const GatingEffectMap& map);

// A line's trend over one range: the ordinary least-squares line through its points' means
// against the axis coordinate u (log2 x on a log axis, else x), mean = intercept + slope * u
// (eval::fit_line: points, intercept, slope, its 95% t interval, log_x, zero_x, zero_inside).
struct TrendFit : eval::LineFit {
  std::string line, range;
};
// Every line and range with three or more distinct x values, in the map's order of lines, then ranges.
std::vector<TrendFit> trend_fits(const GatingEffectMap& map);

// The map's effect over one range against x: one series per line with its 95% interval as error
// bars, a dashed zero line, and notes saying what the intervals are over and where lines cross zero.
// Each line with a trend_fits entry also gets its fitted line (unnamed, dashed, in the line's
// colour, after the zero line) and a note with the slope, its interval and where it crosses zero;
// the fits' table (gating_effect_trend_csv) rides along as the figure's extra "trend" CSV.
Figure gating_effect_figure(const GatingEffectMap& map, const std::string& range);

// Its data: columns x, range, mean, lo, hi, n (and a last column "line" when the map has two or more lines).
std::string gating_effect_csv(const GatingEffectMap& map, const std::string& range);

// The range's trend fits: columns line, range, points, slope, slope_lo, slope_hi, intercept,
// zero_x, zero_inside, axis ("log2": slope per doubling of x, or "linear"); a header alone when
// no line has three x values.
std::string gating_effect_trend_csv(const GatingEffectMap& map, const std::string& range);

// Claim (c)'s map: the token needle effect (gated minus its E = 1 baseline, accuracy points) at each
// context length the grids were asked at, metric "needle_length", x = the length in tokens, range
// "all", a line per form ("single", or "single, E=8" when several gated points are given). With two
// or more seeds: t over the seeds' mean over depths; one seed: bootstrap over the paired depth cells.
// nullopt when no paired run has a needle grid of two or more lengths. Its trend (trend_fits) is the
// growth of the effect per doubling of the context, the slope the paper's claim is about.
std::optional<GatingEffectMap> needle_effect_by_length(const std::vector<EffectRun>& runs);

// Every map's figure: "gating_effect_needle_by_length" (needle_effect_by_length), "gating_effect_nll_<range>" per range, "gating_effect_needle",
// "gating_effect_mqar"; each figure's CSV is gating_effect_csv, and NAME_trend.csv beside it
// gating_effect_trend_csv when a line has a trend.
std::vector<NamedFigure> gating_effect_figures(const std::vector<EffectRun>& runs, const GatingEffectOptions& options = {});

}  // namespace proteus::figures
