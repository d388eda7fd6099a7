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

using runs::BlockUseResult;

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
