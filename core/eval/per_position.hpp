// Per-position loss (SPEC section 6): mean next-token NLL at each position over held-out
// sequences, perplexity exp(NLL), and log-spaced buckets for plotting. Positions may run past
// the training length: the schedule keeps the whole memory active there.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "core/model/model.hpp"

namespace proteus::eval {

struct PerPositionResult {
  int seq_len = 0;
  int sequences = 0;
  std::vector<double> nll;         // (seq_len) mean NLL in nats at positions 1..seq_len
  std::vector<int> bucket_lo;      // 1-based inclusive position ranges of the buckets
  std::vector<int> bucket_hi;
  std::vector<double> bucket_nll;  // mean NLL over each bucket's positions
  double mean_nll = 0;             // over every position
  double bits_per_byte() const;
};

// n log-spaced buckets over 1..T (fewer when T is small; every position in exactly one).
std::vector<std::pair<int, int>> log_buckets(int T, int n);

// sequences: each holds seq_len + 1 tokens (inputs and the next-token targets).
// Runs `batch` sequences per forward.
template <class T>
PerPositionResult per_position_loss(model::Model<T>& model, const std::vector<std::vector<int32_t>>& sequences,
                                    int buckets, int batch);

}  // namespace proteus::eval
