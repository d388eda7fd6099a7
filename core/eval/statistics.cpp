#include "core/eval/statistics.hpp"

#include <gsl/gsl_cdf.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

namespace proteus::eval {
namespace {

// numpy's default (type 7) quantile of sorted values: linear between order statistics.
double quantile_sorted(const std::vector<double>& sorted, double p) {
  const double h = (static_cast<double>(sorted.size()) - 1) * p;
  const auto i = static_cast<size_t>(std::floor(h));
  const size_t j = std::min(i + 1, sorted.size() - 1);
  return sorted[i] + (h - static_cast<double>(i)) * (sorted[j] - sorted[i]);
}

double column_mean(const std::vector<double>& values, const std::vector<int>& rows, int cols, int c, int* count) {
  double s = 0;
  int n = 0;
  for (int r : rows) {
    const double x = values[static_cast<size_t>(r) * cols + c];
    if (std::isnan(x)) continue;
    s += x;
    ++n;
  }
  if (count) *count = n;
  return n > 0 ? s / n : std::nan("");
}

// The non-NaN values: how many, their mean and sample sd (NaN below two).
struct Sample {
  int n = 0;
  double mean = 0, sd = 0;
};
Sample sample_of(const std::vector<double>& values) {
  std::vector<double> x;
  for (double v : values)
    if (!std::isnan(v)) x.push_back(v);
  Sample s{static_cast<int>(x.size()), 0, std::nan("")};
  if (s.n < 2) return s;
  double ss = 0;
  for (double v : x) s.mean += v / s.n;
  for (double v : x) ss += (v - s.mean) * (v - s.mean);
  s.sd = std::sqrt(ss / (s.n - 1));
  return s;
}

}  // namespace

std::vector<Interval> bootstrap_column_means(const std::vector<double>& values, int rows, int cols,
                                             const BootstrapOptions& o) {
  if (rows < 0 || cols < 0 || values.size() != static_cast<size_t>(rows) * cols)
    throw std::invalid_argument("bootstrap_column_means: values do not hold rows x cols numbers");
  if (o.resamples < 1 || !(o.level > 0 && o.level < 1))
    throw std::invalid_argument("bootstrap_column_means: needs resamples >= 1 and level in (0, 1)");
  std::vector<int> all(rows);
  for (int r = 0; r < rows; ++r) all[r] = r;
  std::vector<Interval> out(cols);
  for (int c = 0; c < cols; ++c) {
    out[c].mean = column_mean(values, all, cols, c, &out[c].n);
    out[c].lo = out[c].hi = out[c].mean;
  }
  if (rows < 2) return out;

  // Resample whole rows; modulo keeps the draw the same on every standard library.
  std::mt19937_64 rng(o.seed);
  std::vector<int> pick(rows);
  std::vector<std::vector<double>> means(cols, std::vector<double>());
  for (auto& m : means) m.reserve(o.resamples);
  for (int b = 0; b < o.resamples; ++b) {
    for (int r = 0; r < rows; ++r) pick[r] = static_cast<int>(rng() % static_cast<uint64_t>(rows));
    for (int c = 0; c < cols; ++c) {
      const double m = column_mean(values, pick, cols, c, nullptr);
      if (!std::isnan(m)) means[c].push_back(m);
    }
  }
  const double alpha = 1 - o.level;
  for (int c = 0; c < cols; ++c) {
    auto& m = means[c];
    if (out[c].n < 2 || m.empty()) continue;
    std::sort(m.begin(), m.end());
    out[c].lo = quantile_sorted(m, alpha / 2);
    out[c].hi = quantile_sorted(m, 1 - alpha / 2);
  }
  return out;
}

Interval bootstrap_mean(const std::vector<double>& values, const BootstrapOptions& options) {
  return bootstrap_column_means(values, static_cast<int>(values.size()), 1, options).front();
}

std::vector<Interval> paired_difference(const std::vector<double>& a, const std::vector<double>& b, int rows,
                                        int cols, const BootstrapOptions& options) {
  if (a.size() != b.size() || a.size() != static_cast<size_t>(rows) * cols)
    throw std::invalid_argument("paired_difference: the two runs were not evaluated on the same sequences");
  std::vector<double> d(a.size());
  for (size_t i = 0; i < a.size(); ++i) d[i] = a[i] - b[i];
  return bootstrap_column_means(d, rows, cols, options);
}

double t_quantile(double level, int df) {
  if (!(level > 0 && level < 1)) throw std::invalid_argument("t_quantile: level must be in (0, 1)");
  if (df < 1) throw std::invalid_argument("t_quantile: needs at least one degree of freedom");
  return gsl_cdf_tdist_Pinv(0.5 + level / 2, df);
}

Interval t_interval(const std::vector<double>& values, double level) {
  if (!(level > 0 && level < 1)) throw std::invalid_argument("t_interval: level must be in (0, 1)");
  Interval out;
  std::vector<double> x;
  for (double v : values)
    if (!std::isnan(v)) x.push_back(v);
  out.n = static_cast<int>(x.size());
  if (x.empty()) {
    out.mean = out.lo = out.hi = std::nan("");
    return out;
  }
  double s = 0;
  for (double v : x) s += v;
  out.mean = s / out.n;
  out.lo = out.hi = out.mean;
  if (out.n < 2) return out;
  double ss = 0;
  for (double v : x) ss += (v - out.mean) * (v - out.mean);
  const double se = std::sqrt(ss / (out.n - 1)) / std::sqrt(static_cast<double>(out.n));
  const double t = t_quantile(level, out.n - 1);
  out.lo = out.mean - t * se;
  out.hi = out.mean + t * se;
  return out;
}

double detectable_effect(const std::vector<double>& paired_differences, double power, double level) {
  if (!(level > 0 && level < 1)) throw std::invalid_argument("detectable_effect: level must be in (0, 1)");
  if (!(power > 0 && power < 1)) throw std::invalid_argument("detectable_effect: power must be in (0, 1)");
  const auto [n, mean, sd] = sample_of(paired_differences);
  if (n < 2) return std::nan("");
  return (t_quantile(level, n - 1) + gsl_cdf_tdist_Pinv(power, n - 1)) * sd / std::sqrt(static_cast<double>(n));
}

double t_test_p(const std::vector<double>& paired_differences) {
  const auto [n, mean, sd] = sample_of(paired_differences);
  if (n < 2) return std::nan("");
  if (sd == 0) return mean == 0 ? 1.0 : 0.0;
  const double t = mean / (sd / std::sqrt(static_cast<double>(n)));
  return 2 * gsl_cdf_tdist_Q(std::abs(t), n - 1);
}

std::vector<Interval> t_intervals(const std::vector<std::vector<double>>& per_run, double level) {
  if (per_run.empty()) return {};
  const size_t cols = per_run.front().size();
  for (const auto& r : per_run)
    if (r.size() != cols) throw std::invalid_argument("t_intervals: runs hold different numbers of values");
  std::vector<Interval> out(cols);
  std::vector<double> column(per_run.size());
  for (size_t c = 0; c < cols; ++c) {
    for (size_t r = 0; r < per_run.size(); ++r) column[r] = per_run[r][c];
    out[c] = t_interval(column, level);
  }
  return out;
}

}  // namespace proteus::eval
