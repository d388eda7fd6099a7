// The set of figures for a list of runs, built once whoever asks: `proteus export` and the runs
// browser feed it run directories (read_run_results), the window's training view feeds it the
// latest live snapshot (app/gui). Each figure is made when the runs have its data, in one order,
// with run i drawn in palette(i) in every figure, so what a user exports is what they saw.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/config/config.hpp"
#include "core/eval/evaluate.hpp"
#include "core/figures/gating_effect_figures.hpp"
#include "core/figures/run_figures.hpp"

namespace proteus::runs {
class RunReader;
}

namespace proteus::figures {

// One run's results as far as they go: a run directory's files, or a training job's snapshot.
struct RunResults {
  std::string name;
  std::optional<config::RunConfig> config;              // E, lengths and the schedule
  LossCurve curve;                                      // every logged step so far
  std::shared_ptr<const eval::EvalReport> report;       // the final evaluations; null before them
  // Per-position loss on the validation rows at the latest evaluation step, drawn until the
  // final evaluation replaces it; null when there is none (a run directory keeps no such curve).
  std::shared_ptr<const eval::PerPositionResult> live_per_position;
  int live_per_position_step = 0;
  // Block use on the validation rows while training (drawn until the final evaluation's); null if none.
  std::shared_ptr<const eval::BlockUseResult> live_block_use;
  // A seed group drawn as one run (figure_set merges the runs of one config.group): its members'
  // per-position results and seeds, from which the paired intervals against another group come.
  std::vector<eval::PerPositionResult> seed_runs;
  std::vector<uint64_t> seeds;
  // Anything to show: a logged step or an evaluation.
  bool has_results() const;
};

// A run directory's results under `name`. Throws InputError when its files do not parse.
RunResults read_run_results(const runs::RunReader& run, const std::string& name);

struct FigureSetOptions {
  // The loss axes before any run has logged a step: the window shows where the curves will come.
  bool loss_before_data = false;
  // The gating-effect maps' x axis (a dotted config path, or kTrainingTokensX); empty: chosen from
  // the swept fields.
  std::string effect_x;
  // The gating-effect maps' position ranges: the regime map's or the diagnosis's.
  EffectRanges effect_ranges = EffectRanges::regime_map;
  // The reference row of gating_effect_by_variant (a gated seed group); empty: its first row.
  std::string effect_reference;
};

// Every figure the runs have data for, in this order: "loss", "val_bpb", "per_position" (the
// final evaluation, else the live validation curve, said in a note), "ppl_ratio" (two or more
// runs), "niah_<task>_<run>", "needle_<form>_<run>", "occupancy_<run>_l0_h0", "block_use" (memory models with E > 1; E = 1 named as not applicable), "activation_map_<run>" (memory mixers
// with results), "e_ablation" (two or more distinct E with held-out bits per byte),
// "gating_effect_nll_<range>", "gating_effect_needle", "gating_effect_mqar" (a sweep whose gated
// runs have E = 1 baselines beside them at two or more values: gating_effect_figures.hpp),
// "gating_effect_by_variant" and "gating_effect_by_variant_<range>" (gated seed groups with E = 1
// baseline groups: gating_effect_by_variant.hpp). Runs sharing a
// name (two "tiny" runs from different folders) get -2, -3, ... The evaluated runs of one seed
// group (config.group, two or more) are drawn as one entry "GROUP (n seeds)": means over seeds with
// 95% t intervals, where the first member stands for the group.

std::vector<NamedFigure> figure_set(std::vector<RunResults> runs, const FigureSetOptions& options = {});

// figure_set of run directories, in the order given. Throws InputError for a run whose files
// do not parse.
std::vector<NamedFigure> standard_figures(const std::vector<runs::RunReader>& runs, const FigureSetOptions& options = {});

}  // namespace proteus::figures
