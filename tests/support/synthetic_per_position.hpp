// A per-position evaluation with known losses, for tests that need exact means: every position's
// loss is 2 + shift (early_shift at positions 1..early, late_shift after) + N(0, noise_sd) noise
// from noise_seed, summarised as per_position_loss summarises a model's losses.
#pragma once
#include <random>
#include <vector>

#include "core/eval/per_position.hpp"

namespace proteus::test_support {

inline eval::PerPositionResult synthetic_per_position(int seq_len, int sequences, int train_len, int early,
                                                      double early_shift, double late_shift, uint64_t noise_seed,
                                                      double noise_sd = 0.05) {
  std::mt19937_64 rng(noise_seed);
  std::normal_distribution<double> noise(0, noise_sd);
  std::vector<double> losses(static_cast<size_t>(sequences) * seq_len);
  for (int q = 0; q < sequences; ++q)
    for (int t = 1; t <= seq_len; ++t)
      losses[static_cast<size_t>(q) * seq_len + t - 1] = 2.0 + (t <= early ? early_shift : late_shift) + noise(rng);
  eval::PerPositionResult r;
  r.seq_len = seq_len;
  r.sequences = sequences;
  r.nll.assign(seq_len, 0.0);
  for (int q = 0; q < sequences; ++q)
    for (int t = 0; t < seq_len; ++t) r.nll[t] += losses[static_cast<size_t>(q) * seq_len + t] / sequences;
  for (double x : r.nll) r.mean_nll += x / seq_len;
  for (auto [lo, hi] : eval::log_buckets(seq_len, 24)) {
    double s = 0;
    for (int t = lo; t <= hi; ++t) s += r.nll[t - 1];
    r.bucket_lo.push_back(lo);
    r.bucket_hi.push_back(hi);
    r.bucket_nll.push_back(s / (hi - lo + 1));
  }
  eval::summarise_sequences(r, losses, train_len);
  r.sequences_fingerprint = 42;  // every run evaluated on the same (synthetic) sequences
  return r;
}

}  // namespace proteus::test_support
