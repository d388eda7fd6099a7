// Block occupancy: the norm of each block of every head's memory state over position, per
// layer and head, averaged over a few held-out sequences. It shows where the memory is written:
// with Proteus the early positions fill only the first blocks; without it, all of them.
// The display partition (`blocks`) is independent of the model's E, so both models are drawn
// on the same grid.
#pragma once
#include <cstdint>
#include <vector>

#include "core/model/model.hpp"
#include "core/runs/eval_records.hpp"

namespace proteus::eval {

using runs::OccupancyResult;

// tokens: (B, seq_len). Empty result for an attention model (it has no memory state).
template <class T>
OccupancyResult block_occupancy(model::Model<T>& model, const std::vector<int32_t>& tokens, int B, int seq_len,
                                int blocks);

}  // namespace proteus::eval
