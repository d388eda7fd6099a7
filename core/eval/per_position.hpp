// Per-position loss (math.md section 6): mean next-token NLL at each position over held-out
// sequences, perplexity exp(NLL), and log-spaced buckets for plotting. Positions may run past
// the training length: the schedule keeps the whole memory active there.
#pragma once
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "core/data/tokenizer.hpp"
#include "core/eval/statistics.hpp"
#include "core/model/model.hpp"
#include "core/runs/eval_records.hpp"

namespace proteus::eval {

using runs::PerPositionResult;

// The result over `rows` sequences from their per-position losses (rows, L) in order: the mean
// NLL at each position, log buckets, and their intervals over the rows (summarise_sequences).
// A NaN loss (a position that does not count in its row, as in masked validation rows) is left
// out: a position no row counts is NaN in nll and left out of mean_nll and of the buckets, and a
// bucket with no counted position is dropped.
// Scored byte targets (every id but each sequence's first) per whitespace-separated word: the
// factor from NLL per byte to NLL per word; 0 when an id is not a byte or there is no word.
double bytes_per_word(const std::vector<std::vector<int32_t>>& sequences);

// The scored targets of each sequence (every id but its first) decoded by the tokenizer: how many
// tokens, UTF-8 bytes and whitespace-separated words they hold (math.md section 8's units).
struct ScoredText {
  int64_t tokens = 0, bytes = 0, words = 0;
};
ScoredText scored_text(const std::vector<std::vector<int32_t>>& sequences, const data::Tokenizer& tokenizer);
// Sets r.bytes_per_token and r.bytes_per_word from the evaluated sequences' scored text.
void set_text_units(PerPositionResult& r, const std::vector<std::vector<int32_t>>& sequences,
                    const data::Tokenizer& tokenizer);

PerPositionResult summarise_losses(const std::vector<double>& losses, int rows, int L, int buckets, int train_len = 0);

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
