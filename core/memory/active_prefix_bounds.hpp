// The active prefix [0, end) of a row-major (d_k, d_v) state, in rows and columns: one definition
// for the CPU rules (active_prefix.hpp) and the CUDA kernels (kernels/memory_rule_kernels.cuh).
// (C++17: the CUDA backend includes this header.)
#pragma once
#include "core/common/host_device.hpp"

namespace proteus::memory {

// Rows that hold at least one active element.
template <class I>
PROTEUS_HOST_DEVICE inline I rows_touched(I end, I d_v) {
  return (end + d_v - 1) / d_v;
}

// Active columns of row i: d_v for whole rows, the remainder for the row the prefix ends in.
template <class I>
PROTEUS_HOST_DEVICE inline I active_cols(I end, I i, I d_v) {
  const I left = end - i * d_v;
  return left < I(0) ? I(0) : (left > d_v ? d_v : left);
}

}  // namespace proteus::memory
