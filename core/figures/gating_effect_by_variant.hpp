// The gating effect by variant (issue 37): a forest plot with one row per cell, each a gated seed
// group paired seed by seed with its E = 1 baseline seed group, the paired effect (gated minus
// baseline, mean NLL) with its 95% Student t interval over the paired seeds, a line at 0, a line at
// the reference cell's effect and the paper's effect band in the row's unit. One figure over every
// position and one per diagnosis range (eval::diagnosis_ranges). Runs pair by the one rule the
// gating-effect maps, the seed-group summaries and the runs table pair by (core/eval/baseline.hpp);
// `proteus export` and the window draw these through figure_set. No drawing here.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/eval/paired_effect.hpp"
#include "core/figures/gating_effect_figures.hpp"
#include "core/figures/run_figures.hpp"

namespace proteus::figures {

// The paper's Wikitext effect of gating (math.md section 8), in nats per word.
inline constexpr double kPaperEffectLo = -0.042, kPaperEffectHi = -0.023;

// One row: a gated seed group against the E = 1 seed group its seeds pair with.
struct VariantEffect {
  std::string variant;              // the gated seed group (config.group)
  std::string baseline;             // its E = 1 seed group (of most of its seeds' baselines)
  std::vector<uint64_t> seeds;      // the paired seeds, ascending
  std::string unit;                 // "nats per byte" (a byte model) or "nats per token"
  double bytes_per_word = 0;        // of the evaluated text (per_position.json); 0: not counted
  int train_len = 0, eval_len = 0;  // N and the evaluated length of the first paired seed
  std::vector<eval::PositionRange> ranges;  // eval::diagnosis_ranges(train_len, eval_len)
  std::vector<eval::Interval> effects;      // per range: t over the paired seeds, n = seeds.size()
  std::vector<std::string> notes;           // seeds left out, and why
  int readings_changed = 0;  // of the readings (config::reading_field: block axis, normalisation, output gate,
                             // tokenizer): how many differ from the default
  const eval::Interval* effect(const std::string& range) const;  // null when the row lacks the range
};

// Every gated seed group (config.group, E > 1, evaluated per position) with a baseline: its members
// (config::choose_seed_group_members: a seed given twice counts once), each paired with its baseline
// among the E = 1 seed groups' members by eval::Baselines (same seed and config but the schedule's
// own fields; of several, the longest shared name prefix: diag-normalize-proteus-e16 with
// diag-normalize-baseline, not regime-other-baseline); `baseline` names the group most of them
// belong to. Rows in order of first appearance; a pair evaluated to other lengths than the row's
// first is left out, noted.
std::vector<VariantEffect> variant_effects(const std::vector<EffectRun>& runs);

// The paper's band in the row's unit: as is in nats per word, divided by bytes_per_word in nats
// per byte where the evaluation counted words; false otherwise (the figure then says so in a note).
bool paper_band_in_unit(const VariantEffect& row, double* lo, double* hi);

// The forest plot of one range ("all", "1-2", ...): rows top to bottom in the given order, each
// labelled with its n and drawn as its mean with its interval as a bar, a dashed vertical line at 0, a vertical line at the
// reference row's mean (`reference` names its variant; empty: the row with the fewest readings changed
// from the defaults, then the most seeds, then the first), the paper's band
// shaded behind the rows that can carry it. Throws InputError("reference", ...) when `reference`
// names no row.
Figure gating_effect_by_variant_figure(const std::vector<VariantEffect>& rows, const std::string& range,
                                       const std::string& reference = "");

// Columns variant, range, mean, lo, hi, n, unit: one row per variant and range (every range when
// `range` is empty), lo = hi = mean where n = 1.
std::string gating_effect_by_variant_csv(const std::vector<VariantEffect>& rows, const std::string& range = "");

// "gating_effect_by_variant" (every position; its CSV holds every range) and
// "gating_effect_by_variant_<range>" for each other range some row has; none without a row.
std::vector<NamedFigure> gating_effect_by_variant_figures(const std::vector<EffectRun>& runs, const std::string& reference = "");

}  // namespace proteus::figures
