// The paired effect of gating at one point of a sweep (math.md section 7): a gated run minus the
// E = 1 baseline trained beside it with the same seed, in mean NLL over a range of positions or in
// accuracy points. With two or more seeds: the per-seed differences, t over seeds; with one seed:
// the bootstrap over the shared evaluation sequences (or grid cells), so an interval always says
// what it is over (`n`). Pure functions over evaluation results; core/figures draws them.
#pragma once
#include <string>
#include <vector>

#include "core/eval/per_position.hpp"
#include "core/eval/statistics.hpp"

namespace proteus::eval {

// Positions lo..hi (1-based, inclusive) under a short name used in files ("N16-N").
struct PositionRange {
  std::string name;
  int lo = 1, hi = 1;
};

// The ranges the regime map compares, for training length N and evaluated length L: the first
// N/16, N/16..N, N..4N (clipped to L; left out when L <= N) and all of 1..L.
// Throws std::invalid_argument when N < 16 or L < 1.
std::vector<PositionRange> effect_ranges(int train_len, int eval_len);

// The ranges of fixed positions the diagnosis compares (experiments/results/diagnosis.md,
// scripts/paired_seeds.py), for training length N and evaluated length L: "1-2", "3-16", "17-256"
// (each clipped to L), "257-N" (when N > 256), "N-4N" (N + 1 to 4N clipped to L; when L > N) and
// "all" of 1..L; a range left empty by the clipping is left out. Throws std::invalid_argument when
// N < 1 or L < 1.
std::vector<PositionRange> diagnosis_ranges(int train_len, int eval_len);

// One run's mean NLL over exactly the positions of a range (its per-position means, NaN left out),
// as scripts/paired_seeds.py reads them; "all" of 1..seq_len is the run's mean_nll. Without
// per-position means, range_mean_nll (by whole buckets). NaN when no position of the range counts.
double exact_range_mean_nll(const PerPositionResult& r, const PositionRange& range);

// One run's mean NLL over a range, read from its buckets: every bucket whose centre lies in the
// range, weighted by its width (the mean over those buckets' positions). "all" of 1..seq_len is the
// run's mean_nll. NaN when no bucket falls in the range.
double range_mean_nll(const PerPositionResult& r, const PositionRange& range);

// How a run's mean over a range is read: by whole buckets (range_mean_nll; the regime map's wide
// ranges) or position by position (exact_range_mean_nll; the diagnosis's narrow ones, 1-2 or 17-256,
// which no bucket edge need match).
enum class PositionReading { buckets, exact };

// gated[i] minus baseline[i] (the same seed i) over a range. Two or more pairs: t over the pairs.
// One pair: the bootstrap over the sequences both were evaluated on (n = sequences), by buckets
// (a run keeps each sequence's loss per bucket, not per position: read exactly, one pair has that
// interval over the whole run only); without per-sequence values there is no interval (n = 1).
// Throws std::invalid_argument naming the problem when the lists differ in length, are empty, or
// a pair was evaluated on other buckets.
Interval paired_range_effect(const std::vector<const PerPositionResult*>& gated,
                             const std::vector<const PerPositionResult*>& baseline, const PositionRange& range,
                             PositionReading reading = PositionReading::buckets);

// Accuracy in points (0..100), one vector of cells per seed (a needle grid's cells, or one value
// for MQAR): gated minus baseline. Two or more seeds: t over the seeds' mean differences; one seed
// with two or more cells: the bootstrap over the paired cells (n = cells); else no interval.
// Throws std::invalid_argument when the seeds or their cells do not pair.
Interval paired_score_effect(const std::vector<std::vector<double>>& gated,
                             const std::vector<std::vector<double>>& baseline);

}  // namespace proteus::eval
