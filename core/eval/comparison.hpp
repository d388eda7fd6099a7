// Comparisons across runs (math.md section 7): the paired per-bucket difference between two runs
// evaluated on the same sequences, and the summary of a seed group (the same variant trained with
// several seeds): per-bucket mean NLL, held-out bits per byte and block-use entropy, each a mean
// over seeds with a Student t interval, and the group's paired difference against a baseline
// group (per seed, then t over seeds). Pure functions over evaluation results; the engine and
// `proteus` write their tables.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/eval/block_use.hpp"
#include "core/eval/per_position.hpp"
#include "core/eval/statistics.hpp"

namespace proteus::eval {

struct BucketTable {
  std::vector<int> bucket_lo, bucket_hi;
  std::vector<Interval> value;  // one per bucket
  Interval overall;             // over every position (the run's mean NLL, or its difference)
};

// a - b per bucket (Proteus minus baseline): bootstrap over the shared sequences, and the mean
// NLL difference over every position. Throws std::invalid_argument naming the problem when the
// runs were not evaluated on the same sequences.
BucketTable paired_comparison(const PerPositionResult& a, const PerPositionResult& b);

struct GroupSummary {
  int seeds = 0;
  BucketTable nll;                     // per bucket: t over the seeds' bucket means
  Interval bits_per_byte;              // t over the seeds' held-out bits per byte (within the training length)
  std::vector<int> block_use_positions;
  std::vector<Interval> block_use_entropy;  // t over the seeds' mean entropy; empty when not applicable
};

// runs: one evaluation per seed, on the same buckets. block_use: the same runs' block use (null
// entries or not-applicable ones leave the entropy out). The overall NLL and the bits per byte are
// the group's summary over its seeds (summarise_seed_group, seed_group_summary.hpp).
GroupSummary summarise_group(const std::vector<PerPositionResult>& runs,
                             const std::vector<const BlockUseResult*>& block_use = {});

// A variant's seed group against the baseline's, seed by seed (runs[i] against baseline[i], the
// same seed): per bucket the t interval over seeds of the per-seed mean differences.
BucketTable paired_group_comparison(const std::vector<PerPositionResult>& runs,
                                    const std::vector<PerPositionResult>& baseline);

// As CSV: position_lo, position_hi, mean, lo, hi, n (n = sequences or seeds), then one row
// "all" (position_lo = 1, position_hi = seq_len) for the overall value.
std::vector<std::string> bucket_table_header();
std::vector<std::vector<double>> bucket_table_rows(const BucketTable& table, int seq_len);

}  // namespace proteus::eval
