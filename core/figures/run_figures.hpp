// Builders from run results to Figures (figure.hpp): the paper's plots, each comparing any number
// of runs on one set of axes (baseline vs Proteus). figure_set.hpp decides which of them a set of
// runs gets; the window and `proteus export` both draw that set, so what a user exports is what
// they saw.
#pragma once
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/eval/block_use.hpp"
#include "core/eval/niah_eval.hpp"
#include "core/eval/occupancy.hpp"
#include "core/eval/per_position.hpp"
#include "core/figures/figure.hpp"
#include "core/memory/schedule.hpp"

namespace proteus::figures {

// A figure with a file-friendly name ("loss", "occupancy_<run>_l0_h0").
struct NamedFigure {
  std::string name;
  Figure figure;
};

// One run's result under the name its series gets in the legend.
template <class T>
struct Named {
  std::string name;
  T value;
};

// One run's training curve: every logged step's loss and every evaluation's val_bpb.
struct LossCurve {
  std::string name;
  std::vector<double> step, loss;          // (logged steps)
  std::vector<double> val_step, val_bpb;   // (evaluations)
  std::vector<double> val_lo, val_hi;      // an interval around val_bpb (a seed group's); empty = none
};
// From metrics.jsonl records (RunReader::metrics); lines without a finite value are skipped.
LossCurve loss_curve(const std::string& name, const std::vector<nlohmann::json>& metrics);

// Step vs training loss, one solid line per run.
Figure loss_figure(const std::vector<LossCurve>& runs);
// Step vs held-out bits per byte, one dashed line with markers per run.
Figure val_bpb_figure(const std::vector<LossCurve>& runs);

// Position (log x) vs perplexity, one series per run, from the log-spaced buckets (each drawn at
// its geometric centre) or, with buckets = false, from every position. train_len > 0 adds a
// dashed vertical line at the training length.
Figure per_position_figure(const std::vector<Named<eval::PerPositionResult>>& runs, int train_len = 0,
                           bool buckets = true);
// Perplexity of run i over run 0 per bucket of run 0 (i >= 1), on the positions both cover; a
// dashed line at 1. Fewer than two runs: no series.
// nll_difference[i] (optional, i >= 1): run i minus run 0 per bucket of run 0 (a paired interval of
// the NLL difference), drawn as a band around the ratio (exp of it).
Figure perplexity_ratio_figure(const std::vector<Named<eval::PerPositionResult>>& runs, int train_len = 0,
                               const std::vector<std::vector<eval::Interval>>& nll_difference = {});

// One NIAH task of one run: depth rows (0% at the top) x context length (bytes) columns, 0..100,
// annotated.
Figure niah_heatmap_figure(const eval::NiahTaskGrid& grid, const std::string& run);

// Layer l, head h of a block occupancy: position x block, each cell the block's state norm.
// Throws InputError("layer" / "head", ...) when out of range.
Figure occupancy_figure(const eval::OccupancyResult& occupancy, int layer, int head, const std::string& run,
                        bool log_x = false);

// The schedule's mask over positions 1..horizon: block rows x position columns, 1 active, 0
// locked (the paper's picture); a dashed line at the horizon N when horizon > N.
Figure activation_map_figure(const memory::Schedule& schedule, int64_t horizon, const std::string& run = "");

// One run of an E sweep: its E and final held-out bits per byte; runs of one group (the rule,
// say) make one series.
// Block-use entropy (normalised over all E blocks, mean over layers and heads) at the measured
// positions, one series per run with its interval; a dashed grey guide per run at log k(t) / log E,
// the most the k(t) open blocks allow. Runs whose block use is not applicable (E = 1) are named in
// a note instead.
Figure block_use_figure(const std::vector<Named<eval::BlockUseResult>>& runs, const std::vector<std::string>& not_applicable = {});

struct EPoint {
  std::string group;
  int E = 1;
  double val_bpb = 0;
  double lo = std::nan(""), hi = std::nan("");  // its interval; NaN = none
};
// E on a log2 x axis (ticks at the E values) vs held-out bits per byte, one series per group,
// sorted by E, with error bars where the points carry intervals.
Figure e_ablation_figure(const std::vector<EPoint>& points);

// A name safe in a file name: letters, digits, '-', '_' and '.' kept, anything else '_'.
std::string file_name_part(const std::string& name);

}  // namespace proteus::figures
