#include "core/eval/paired_effect.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace proteus::eval {
namespace {

bool whole_run(const PositionRange& range, const PerPositionResult& r) { return range.lo <= 1 && range.hi >= r.seq_len; }

// Width weights of the buckets whose centre lies in the range (zero elsewhere).
std::vector<double> bucket_weights(const PerPositionResult& r, const PositionRange& range) {
  std::vector<double> w(r.bucket_lo.size(), 0.0);
  for (size_t k = 0; k < w.size(); ++k) {
    const double centre = 0.5 * (r.bucket_lo[k] + r.bucket_hi[k]);
    if (centre >= range.lo && centre <= range.hi) w[k] = r.bucket_hi[k] - r.bucket_lo[k] + 1;
  }
  return w;
}

double weighted_mean(const double* values, const std::vector<double>& w) {
  double s = 0, total = 0;
  for (size_t k = 0; k < w.size(); ++k)
    if (w[k] > 0 && !std::isnan(values[k])) s += w[k] * values[k], total += w[k];
  return total > 0 ? s / total : std::nan("");
}

// Each sequence's mean over the range (sequence_nll for the whole run); empty without per-sequence values.
std::vector<double> sequence_range_means(const PerPositionResult& r, const PositionRange& range) {
  if (whole_run(range, r)) return r.sequence_nll;
  const size_t K = r.bucket_lo.size();
  if (r.sequence_bucket_nll.size() != static_cast<size_t>(r.sequences) * K) return {};
  const auto w = bucket_weights(r, range);
  std::vector<double> out(r.sequences);
  for (int q = 0; q < r.sequences; ++q) out[q] = weighted_mean(r.sequence_bucket_nll.data() + q * K, w);
  return out;
}

}  // namespace

std::vector<PositionRange> effect_ranges(int train_len, int eval_len) {
  if (train_len < 16 || eval_len < 1)
    throw std::invalid_argument("effect ranges: need a training length of at least 16 and an evaluated length (got " +
                                std::to_string(train_len) + " and " + std::to_string(eval_len) + ")");
  const int n16 = train_len / 16;
  std::vector<PositionRange> out = {{"first-N16", 1, std::min(n16, eval_len)}};
  if (eval_len > n16) out.push_back({"N16-N", n16 + 1, std::min(train_len, eval_len)});
  if (eval_len > train_len) out.push_back({"N-4N", train_len + 1, std::min(4 * train_len, eval_len)});
  out.push_back({"all", 1, eval_len});
  return out;
}

std::vector<PositionRange> diagnosis_ranges(int train_len, int eval_len) {
  if (train_len < 1 || eval_len < 1)
    throw std::invalid_argument("diagnosis ranges: need a training length and an evaluated length of at least 1 (got " +
                                std::to_string(train_len) + " and " + std::to_string(eval_len) + ")");
  const std::vector<PositionRange> wanted = {{"1-2", 1, 2},
                                             {"3-16", 3, 16},
                                             {"17-256", 17, 256},
                                             {"257-N", 257, train_len},
                                             {"N-4N", train_len + 1, 4 * train_len}};
  std::vector<PositionRange> out;
  for (auto r : wanted) {
    r.hi = std::min(r.hi, eval_len);
    if (r.lo <= r.hi) out.push_back(r);
  }
  out.push_back({"all", 1, eval_len});
  return out;
}

double exact_range_mean_nll(const PerPositionResult& r, const PositionRange& range) {
  if (whole_run(range, r)) return r.mean_nll;
  if (r.nll.size() != static_cast<size_t>(r.seq_len) || r.nll.empty()) return range_mean_nll(r, range);
  double s = 0;
  int counted = 0;
  for (int t = std::max(range.lo, 1); t <= std::min(range.hi, r.seq_len); ++t)
    if (!std::isnan(r.nll[t - 1])) s += r.nll[t - 1], ++counted;
  return counted > 0 ? s / counted : std::nan("");
}

double range_mean_nll(const PerPositionResult& r, const PositionRange& range) {
  if (whole_run(range, r)) return r.mean_nll;
  return weighted_mean(r.bucket_nll.data(), bucket_weights(r, range));
}

Interval paired_range_effect(const std::vector<const PerPositionResult*>& gated,
                             const std::vector<const PerPositionResult*>& baseline, const PositionRange& range,
                             PositionReading reading) {
  const auto mean_of = [&](const PerPositionResult& r) {
    return reading == PositionReading::exact ? exact_range_mean_nll(r, range) : range_mean_nll(r, range);
  };
  if (gated.empty() || gated.size() != baseline.size())
    throw std::invalid_argument("paired effect: needs one baseline run per gated run (got " + std::to_string(gated.size()) +
                                " and " + std::to_string(baseline.size()) + ")");
  for (size_t i = 0; i < gated.size(); ++i)
    if (gated[i]->bucket_lo != baseline[i]->bucket_lo || gated[i]->bucket_hi != baseline[i]->bucket_hi)
      throw std::invalid_argument("paired effect: a run and its baseline have other position buckets (evaluated at other lengths?)");
  if (gated.size() >= 2) {
    std::vector<double> d;
    for (size_t i = 0; i < gated.size(); ++i) d.push_back(mean_of(*gated[i]) - mean_of(*baseline[i]));
    return t_interval(d);
  }
  const auto& a = *gated.front();
  const auto& b = *baseline.front();
  const bool per_sequence = reading == PositionReading::buckets || whole_run(range, a);
  const auto sa = per_sequence ? sequence_range_means(a, range) : std::vector<double>{};
  const auto sb = per_sequence ? sequence_range_means(b, range) : std::vector<double>{};
  const bool same_sequences = a.sequences_fingerprint == b.sequences_fingerprint && a.sequences == b.sequences;
  if (sa.empty() || sb.empty() || !same_sequences) {
    Interval none;  // one seed without shared sequences: a mean and no interval
    none.mean = none.lo = none.hi = mean_of(a) - mean_of(b);
    none.n = 1;
    return none;
  }
  return paired_difference(sa, sb, static_cast<int>(sa.size()), 1).front();
}

Interval paired_score_effect(const std::vector<std::vector<double>>& gated,
                             const std::vector<std::vector<double>>& baseline) {
  if (gated.empty() || gated.size() != baseline.size())
    throw std::invalid_argument("paired accuracy: needs one baseline run per gated run (got " + std::to_string(gated.size()) +
                                " and " + std::to_string(baseline.size()) + ")");
  for (size_t i = 0; i < gated.size(); ++i)
    if (gated[i].empty() || gated[i].size() != baseline[i].size())
      throw std::invalid_argument("paired accuracy: a run and its baseline were scored on other grids");
  const auto mean = [](const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return s / static_cast<double>(v.size());
  };
  if (gated.size() >= 2) {
    std::vector<double> d;
    for (size_t i = 0; i < gated.size(); ++i) d.push_back(mean(gated[i]) - mean(baseline[i]));
    return t_interval(d);
  }
  std::vector<double> d(gated.front().size());
  for (size_t c = 0; c < d.size(); ++c) d[c] = gated.front()[c] - baseline.front()[c];
  if (d.size() < 2) return t_interval(d);  // one value: no interval (n = 1)
  return bootstrap_mean(d);
}

}  // namespace proteus::eval
