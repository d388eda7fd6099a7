// The evaluation results a run directory holds, as records (math.md section 6): core/eval fills them,
// eval_files.hpp writes and reads them (per_position.json, niah.json, needle.json, mqar.json,
// occupancy.json, block_use.json and their CSV twins), the figures and the window draw them.
#pragma once
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

namespace proteus::runs {

// A summarised quantity as its CSV columns say: mean, lo, hi, n. With n < 2 (or a zero spread
// that leaves nothing to resample) lo and hi still bracket the mean; `has_interval` tells a
// figure whether there is a band to draw.
struct Interval {
  double mean = 0, lo = 0, hi = 0;
  int n = 0;  // sequences or seeds the interval is over
  bool has_interval() const { return n >= 2; }
  bool excludes(double x) const { return has_interval() && (x < lo || x > hi); }
};

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
  double mean_nll = 0;             // over every position: nats per token
  // The units of math.md section 8. Positions are tokens; the scored targets' decoded text holds
  // bytes_per_token UTF-8 bytes per token (1 for a byte run) and bytes_per_word bytes per
  // whitespace-separated word (0: not counted, e.g. a run evaluated before the count existed).
  double bytes_per_token = 1;
  double bytes_per_word = 0;
  double nll_per_byte() const { return mean_nll / bytes_per_token; }
  double nll_per_word() const { return nll_per_byte() * bytes_per_word; }
  double bits_per_byte() const { return nll_per_byte() / std::numbers::ln2; }

  // What the intervals are computed from (math.md section 7), kept so that two runs evaluated on the
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
  // train_interval in bits per byte (nats per token / bytes_per_token / ln 2).
  Interval heldout_bits_per_byte() const {
    const double k = 1.0 / (std::numbers::ln2 * bytes_per_token);
    return {train_interval.mean * k, train_interval.lo * k, train_interval.hi * k, train_interval.n};
  }
};

struct NiahSampleRecord {
  std::string task;
  int length = 0;
  int depth = 0;                   // requested depth, percent: the first asked needle's
  std::vector<int> needle_depths;  // every asked needle's depth, percent, in expected's order
  std::string expected;    // values joined by ", "
  std::string prediction;
  double score = 0;        // 0..100
};

struct NiahTaskGrid {
  std::string task;
  std::vector<int> lengths;  // columns
  std::vector<int> depths;   // rows, percent
  std::vector<double> score; // (depths, lengths), 0..100
  double mean = 0;
  double at(size_t depth_index, size_t length_index) const { return score[depth_index * lengths.size() + length_index]; }
};

struct NiahResult {
  std::vector<NiahTaskGrid> tasks;
  std::vector<NiahSampleRecord> samples;  // written to niah_samples.csv, not read back
};

struct NeedleResult {
  int vocab = 0;
  int distractors = 0;
  int samples = 0;                   // per cell
  std::vector<NiahTaskGrid> forms;   // task = the form ("single", "multikey"); lengths in tokens
};

struct MqarResult {
  int samples = 0;
  int answers = 0;
  double accuracy = 0;  // 0..1
  std::string layout = "pairs-first";  // data.mqar.layout
  std::string note;                    // what the layout means for a gated memory, written beside the numbers
};

struct OccupancyResult {
  int layers = 0, heads = 0, seq_len = 0, blocks = 0;
  std::vector<float> norms;  // (layers, heads, seq_len, blocks)
  float at(int l, int h, int t, int b) const {
    return norms[((static_cast<size_t>(l) * heads + h) * seq_len + t) * blocks + b];
  }
};

struct BlockUseResult {
  bool applicable = false;
  std::string reason;           // why not, when not applicable
  int layers = 0, heads = 0, blocks = 0, sequences = 0;
  std::vector<int> positions;   // 1-based
  std::vector<int> open_blocks; // k(t) at each position
  // (layers, heads, positions, blocks): mean over sequences of each block's share of ||S_t||^2.
  std::vector<double> share;
  // (layers, heads, positions): entropy of the share over all E blocks / log E, mean over sequences.
  std::vector<Interval> entropy;
  // (layers, heads, positions): the same over the k(t) open blocks / log k(t) (1 when k(t) = 1).
  std::vector<Interval> entropy_open;
  // (positions): the entropy averaged over layers and heads, the figure's headline.
  std::vector<Interval> mean_entropy;

  double share_at(int l, int h, int p, int b) const {
    return share[((static_cast<size_t>(l) * heads + h) * positions.size() + p) * blocks + b];
  }
  const Interval& entropy_at(int l, int h, int p) const {
    return entropy[(static_cast<size_t>(l) * heads + h) * positions.size() + p];
  }
};

// Every evaluation of one run; each is there when it ran (or its file was found).
struct EvalReport {
  std::optional<PerPositionResult> per_position;
  std::optional<NiahResult> niah;
  std::optional<NeedleResult> needle;
  std::optional<MqarResult> mqar;
  std::optional<OccupancyResult> occupancy;
  std::optional<BlockUseResult> block_use;  // with occupancy, for every memory model
};

}  // namespace proteus::runs
