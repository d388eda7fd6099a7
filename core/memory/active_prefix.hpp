// Pieces every gated rule shares: walking the active prefix [0, end) of a row-major
// (d_k, d_v) state, and the gated read o_t = (G_t ⊙ S_t)^T q_t with its adjoint.
// Internal to core/memory.
#pragma once
#include <algorithm>
#include <cstdint>

#include "core/memory/active_prefix_bounds.hpp"

namespace proteus::memory::detail {

// The bounds come from active_prefix_bounds.hpp, shared with the CUDA kernels; here in int64_t.
inline int64_t rows_touched(int64_t end, int64_t d_v) { return memory::rows_touched<int64_t>(end, d_v); }
inline int64_t active_cols(int64_t end, int64_t i, int64_t d_v) { return memory::active_cols<int64_t>(end, i, d_v); }

// o (d_v) = (G ⊙ S)^T q over the active prefix.
template <class T>
void gated_read(const T* S, const T* q, int64_t end, int64_t d_v, T* o) {
  std::fill(o, o + d_v, T(0));
  const int64_t rows = rows_touched(end, d_v);
  for (int64_t i = 0; i < rows; ++i) {
    const int64_t cols = active_cols(end, i, d_v);
    for (int64_t j = 0; j < cols; ++j) o[j] += S[i * d_v + j] * q[i];
  }
}

// Adjoint of gated_read: dS += G ⊙ (q dO^T); dq (d_k) = (G ⊙ S) dO, zero on locked rows.
template <class T>
void gated_read_backward(const T* S, const T* q, const T* dO, int64_t end, int64_t d_k, int64_t d_v,
                         T* dS, T* dq) {
  std::fill(dq, dq + d_k, T(0));
  const int64_t rows = rows_touched(end, d_v);
  for (int64_t i = 0; i < rows; ++i) {
    const int64_t cols = active_cols(end, i, d_v);
    T acc = 0;
    for (int64_t j = 0; j < cols; ++j) {
      acc += S[i * d_v + j] * dO[j];
      dS[i * d_v + j] += q[i] * dO[j];
    }
    dq[i] = acc;
  }
}

// pred (d_v) = (G ⊙ S)^T e: what the active memory predicts for direction e.
template <class T>
void gated_predict(const T* S, const T* e, int64_t end, int64_t d_v, T* pred) {
  gated_read(S, e, end, d_v, pred);
}

}  // namespace proteus::memory::detail
