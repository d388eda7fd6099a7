// Explore's figures: a trained run's curves under its own schedule and under an edited one
// (per-position perplexity with bootstrap bands, their ratio with the paired interval over the
// shared sequences, the edited activation map, both occupancies), and an inference sweep over one
// model (N or E) as one figure. The window draws them and exports them with the same export, so a
// file looks like the view it came from.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/config/config.hpp"
#include "core/eval/evaluate.hpp"
#include "core/figures/run_figures.hpp"

namespace proteus::figures {

struct ExploreResults {
  std::string run;                                  // the run's name
  int train_len = 0;                                // data.seq_len: a dashed guide
  const eval::EvalReport* trained = nullptr;        // the trained schedule
  const eval::EvalReport* edited = nullptr;         // null before the first edit is evaluated
  std::optional<config::RunConfig> edited_config;   // its schedule, for the activation map
  std::string edit_label;                           // "N = 1024", the edited series' legend entry
};

// One sweep point: the value on the axis and its per-position result (null: not evaluated).
struct SweepCurve {
  double x = 0;
  const eval::PerPositionResult* per_position = nullptr;
};

// Position (log x) vs perplexity for the trained and the edited schedule, each bucket's mean with
// its bootstrap interval over sequences (math.md section 7).
Figure explore_curve_figure(const eval::PerPositionResult& trained, const eval::PerPositionResult* edited,
                            const std::string& edit_label, int train_len);
// Edited over trained perplexity per bucket: exp of the paired difference per sequence, with its
// bootstrap interval (both evaluated on the same sequences); a dashed line at 1.
Figure explore_ratio_figure(const eval::PerPositionResult& trained, const eval::PerPositionResult& edited,
                            const std::string& edit_label, int train_len);
// Mean perplexity over all positions against the sweep's axis ("N" or "E", log2 x at the swept
// values), with the bootstrap interval over sequences; the trained value as a dashed line.
Figure sweep_figure(const std::string& axis, const std::vector<SweepCurve>& points,
                    const eval::PerPositionResult* trained, int train_len);

// The figures of the Explore view, in order: explore_per_position, explore_ratio (with an edit),
// explore_activation_map (with an edit), explore_occupancy_trained, explore_occupancy_edited.
std::vector<NamedFigure> explore_figures(const ExploreResults& r);

}  // namespace proteus::figures
