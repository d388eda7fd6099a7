// The summary of a seed group (math.md section 7): its members, the mean of their values over the
// seeds with a Student t interval, and against its baseline the paired effect with its t interval,
// the seeds where gating wins and the smallest effect the design detects. `proteus groups`
// (core/engine/seed_groups), the figures' group entries (core/figures/figure_set) and the runs
// table's group rows (app/gui/state/runs_table) all read it; per-bucket tables build on it
// (comparison.hpp's summarise_group).
#pragma once
#include <cstdint>
#include <limits>
#include <vector>

#include "core/eval/statistics.hpp"

namespace proteus::eval {

// One member as the summary reads it: a value (held-out bits per byte, mean NLL, ...) and its paired
// difference against its baseline's run of the same seed; NaN where it has none.
struct SeedGroupValue {
  uint64_t seed = 0;
  double value = std::numeric_limits<double>::quiet_NaN();
  double effect = std::numeric_limits<double>::quiet_NaN();
};

struct SeedGroupSummary {
  std::vector<uint64_t> seeds;  // the members', in the order given
  Interval mean;                // t over the members' values; NaN with n = 0 when none has one
  Interval effect;              // t over the paired differences; NaN with n = 0 when none pairs
  double detectable_effect = std::numeric_limits<double>::quiet_NaN();  // of those differences; NaN below two
  int seeds_better = 0;  // paired differences below 0: the seeds where the group beats its baseline
};

SeedGroupSummary summarise_seed_group(const std::vector<SeedGroupValue>& members);

}  // namespace proteus::eval
