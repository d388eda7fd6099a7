// What an interval on a figure means (math.md section 7): a percentile bootstrap over whole
// evaluation sequences within a run, the same bootstrap over paired per-sequence differences
// between two runs evaluated on the same sequences, and a Student t interval over the seeds of a
// seed group. Deterministic: the same values and seed give the same interval.
#pragma once
#include <cstdint>
#include <vector>

#include "core/runs/eval_records.hpp"

namespace proteus::eval {

// A summarised quantity: mean, lo, hi, n (the run directory's record, eval_records.hpp).
using runs::Interval;

struct BootstrapOptions {
  int resamples = 1000;
  uint64_t seed = 0x5eed5eedull;
  double level = 0.95;
};

// values (rows, cols) row-major, one row per sequence: for each column the mean over rows and its
// percentile interval from resampling whole rows (every column uses the same resampled rows).
// NaN entries are skipped in a column's mean (a sequence that does not reach that position).
std::vector<Interval> bootstrap_column_means(const std::vector<double>& values, int rows, int cols,
                                             const BootstrapOptions& options = {});

// One column: the mean of `values` (one per sequence) and its bootstrap interval.
Interval bootstrap_mean(const std::vector<double>& values, const BootstrapOptions& options = {});

// Two runs on the same sequences: per row a - b, then bootstrap_column_means. Throws
// std::invalid_argument when the shapes differ.
std::vector<Interval> paired_difference(const std::vector<double>& a, const std::vector<double>& b, int rows,
                                        int cols, const BootstrapOptions& options = {});

// The two-sided Student t quantile for a `level` interval with `df` degrees of freedom:
// t(0.5 + level / 2, df), 4.303 for level 0.95 and df 2. Throws std::invalid_argument when level is
// outside (0, 1) or df < 1.
double t_quantile(double level, int df);

// Across a seed group: mean of the per-seed values with a Student t interval, n - 1 degrees of
// freedom. With one value there is no interval (lo = hi = mean, n = 1).
Interval t_interval(const std::vector<double>& values, double level = 0.95);

// The smallest true mean a paired design of these differences detects (math.md section 7): with n
// non-NaN values of sample sd s, (t(1 - (1 - level) / 2, n - 1) + t(power, n - 1)) s / sqrt(n), the
// effect a two-sided t test at 1 - level rejects with probability `power` (the usual normal-shift
// approximation with t quantiles). NaN with fewer than two values. Throws std::invalid_argument
// when level or power is outside (0, 1).
double detectable_effect(const std::vector<double>& paired_differences, double power = 0.8, double level = 0.95);

// The two-sided p-value of the paired (one-sample) t test that the mean of these differences is
// 0: 2 P(T > |mean| / (s / sqrt(n))), n - 1 degrees of freedom, NaN left out. NaN with fewer than
// two values; with s = 0, 1 when the mean is 0, else 0.
double t_test_p(const std::vector<double>& paired_differences);

// Per column across runs (each a vector of the same length): t_interval of column j.
std::vector<Interval> t_intervals(const std::vector<std::vector<double>>& per_run, double level = 0.95);

}  // namespace proteus::eval
