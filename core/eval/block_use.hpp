// How evenly a trained memory uses its blocks: per layer and head, the share of the state's
// squared norm held by each of the model's E blocks at chosen positions (N/4, N/2, N, 2N by
// default), and its normalised entropy. 1 means every block holds the same energy, 0 that one
// block holds it all. Occupancy shows the picture; this is the number (issue: why trained Proteus
// models live in block 0). For E = 1 there is nothing to spread over: not applicable.
#pragma once
#include <string>
#include <vector>

#include "core/eval/statistics.hpp"
#include "core/model/model.hpp"

namespace proteus::eval {

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

// The default positions for a horizon N: N/4, N/2, N, 2N (at least 1, distinct, ascending).
std::vector<int> block_use_positions(int horizon);

// Normalised entropy of non-negative weights over n of them (0 when all weight is in one; n = 1
// gives 1: a single block is used evenly by definition). Zero total weight gives NaN.
double normalised_entropy(const double* weights, int n);

// tokens: (B, seq_len) with seq_len >= every position. A memory model with E = 1, or attention,
// gives applicable = false with the reason.
template <class T>
BlockUseResult block_use(model::Model<T>& model, const std::vector<int32_t>& tokens, int B, int seq_len,
                         const std::vector<int>& positions);

}  // namespace proteus::eval
