// The points of a sweep, each a gated seed group paired seed by seed with its E = 1 baselines
// (math.md section 7): the gated runs that share every config field but the run's identity
// (config::run_identity_field: seeds of one config are one point), each with the baseline the one
// rule of baseline.hpp picks. The gating-effect maps (core/figures/gating_effect_figures) read
// their points here; what they draw of them stays there.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "core/eval/baseline.hpp"

namespace proteus::eval {

// One point: indices into the candidates, gated[i] paired with baseline[i], one run per seed.
struct PairedPoint {
  std::vector<size_t> gated, baseline;
};

// The gated candidates that pair with a baseline among the candidates, grouped into points in the
// order of each point's first gated run; within a point in the order given, a seed listed twice
// counted once (the first). Candidates that are not gated, or that no baseline pairs, are left out.
std::vector<PairedPoint> paired_points(const std::vector<BaselineCandidate>& candidates);

// What makes two runs one point: every config field (as given) but the run's identity.
std::string point_key(const config::RunConfig& c);

}  // namespace proteus::eval
