// Per-position loss (SPEC section 6): mean next-token NLL at each position over held-out
// sequences, perplexity exp(NLL), and log-spaced buckets for plotting. Positions may run past
// the training length: the schedule keeps the whole memory active there.
#pragma once
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "core/eval/statistics.hpp"
#include "core/model/model.hpp"

namespace proteus::eval {

struct PerPositionResult {
  int seq_len = 0;
  int sequences = 0;
  // A partial result (an evaluation still running) covers the first `sequences` of a set of
  // sequences_total; 0 (or equal) when complete. Every field below is over those sequences only.
  int sequences_total = 0;
  bool partial() const { return sequences_total > sequences; }
  std::vector<double> nll;         // (seq_len) mean NLL in nats at positions 1..seq_len
  std::vector<int> bucket_lo;      // 1-based inclusive position ranges of the buckets
  std::vector<int> bucket_hi;
  std::vector<double> bucket_nll;  // mean NLL over each bucket's positions
  double mean_nll = 0;             // over every position
  double bits_per_byte() const;

  // What the intervals are computed from (SPEC section 7), kept so that two runs evaluated on the
  // same sequences can be compared pairwise later. The live curve while training has them over its
  // validation rows (no fingerprint: those are not the held-out sequences of the evaluation).
  std::vector<double> sequence_bucket_nll;  // (sequences, buckets) each sequence's mean over a bucket
  std::vector<double> sequence_nll;         // (sequences) each sequence's mean over every position
  uint64_t sequences_fingerprint = 0;       // of the token ids: equal only for the same sequences
  std::vector<Interval> bucket_interval;    // (buckets) bootstrap over sequences
  Interval mean_interval;                   // mean NLL over every position, bootstrap over sequences
  // Held-out loss within the training length (positions 1..train_len), the number the E ablation
  // and the held-out bits per byte are read from: per sequence, and bootstrapped over sequences.
  // train_len 0 (and the rest empty) when no training length was given or it exceeds seq_len.
  int train_len = 0;
  std::vector<double> sequence_train_nll;   // (sequences)
  Interval train_interval;                  // mean NLL over positions 1..train_len
  Interval heldout_bits_per_byte() const;   // train_interval in bits (nats / ln 2)
};

// Fills sequence_bucket_nll (from per-position losses (sequences, seq_len)), bucket_interval and
// mean_interval for the buckets already in r; a NaN loss (a position that does not count in its
// row) is left out of that row's means. Used by per_position_loss, the live curve from the
// validation rows while training, and tests.
void summarise_sequences(PerPositionResult& r, const std::vector<double>& losses, int train_len = 0);

// The paired difference a - b per bucket (Proteus minus baseline), bootstrapped over the shared
// sequences (the first min(a, b) of them when one is partial). Throws std::invalid_argument when
// a and b were not evaluated on the same sequences (fingerprints, buckets or counts differ) or
// carry no per-sequence values.
std::vector<Interval> paired_bucket_difference(const PerPositionResult& a, const PerPositionResult& b);

// n log-spaced buckets over 1..T (fewer when T is small; every position in exactly one).
std::vector<std::pair<int, int>> log_buckets(int T, int n);

// After each batch of forwards: sequences done so far and in all; false stops the evaluation.
using BatchProgress = std::function<bool(int done, int total)>;
// A partial result over the sequences done so far (partial() is true), for a caller that draws
// the curve as it arrives.
using PartialResult = std::function<void(const PerPositionResult& so_far)>;

struct PerPositionProgress {
  BatchProgress on_batch;  // after every batch; false stops the evaluation
  PartialResult on_partial;  // after every batch but the last, when set
  // > 0: the first forward takes only this many sequences, so the first partial comes soon.
  // Rows are independent, so the full result is the same whatever the batches are.
  int first_batch = 0;
};

// sequences: each holds seq_len + 1 tokens (inputs and the next-token targets).
// Runs `batch` sequences per forward. train_len > 0 also fills the held-out loss within the
// training length. When on_batch stops it, the result is empty (sequences = 0).
template <class T>
PerPositionResult per_position_loss(model::Model<T>& model, const std::vector<std::vector<int32_t>>& sequences,
                                    int buckets, int batch, int train_len, const PerPositionProgress& progress);

template <class T>
PerPositionResult per_position_loss(model::Model<T>& model, const std::vector<std::vector<int32_t>>& sequences,
                                    int buckets, int batch, int train_len = 0, const BatchProgress& on_batch = {}) {
  return per_position_loss(model, sequences, buckets, batch, train_len, PerPositionProgress{on_batch, {}, 0});
}

}  // namespace proteus::eval
