// Pieces every gated rule shares: the elements open at one step (the schedule's active prefix
// [0, end) of a row-major (d_k, d_v) state, cut to the step's open widths under block_axis
// value_rows / layer), and the gated read o_t = (G_t ⊙ S_t)^T q_t with its adjoint.
// Internal to core/memory.
#pragma once
#include <algorithm>
#include <cstdint>

#include "core/memory/active_prefix_bounds.hpp"
#include "core/memory/gated_rule.hpp"

namespace proteus::memory::detail {

// The bounds come from active_prefix_bounds.hpp, shared with the CUDA kernels; here in int64_t.
inline int64_t rows_touched(int64_t end, int64_t d_v) { return memory::rows_touched<int64_t>(end, d_v); }
inline int64_t active_cols(int64_t end, int64_t i, int64_t d_v) { return memory::active_cols<int64_t>(end, i, d_v); }

// The open elements of one step: (i, j) with i d_v + j < end, i < rows and j < cols.
struct ActiveSet {
  int64_t end = 0;   // the schedule's active prefix
  int64_t rows = 0;  // rows holding an open element
  int64_t cols = 0;  // the open value columns (d_v unless value_rows' widths cut them)
  int64_t cols_of(int64_t i, int64_t d_v) const { return std::min(active_cols(end, i, d_v), cols); }
};

// The open widths of step n, or none (every row and column).
template <class T>
inline int64_t open_width(const RuleInputs<T>& in, int64_t n, OpenWidths of) {
  if (!in.open_widths || in.open_widths_of != of) return of == OpenWidths::key_rows ? in.d_k : in.d_v;
  return in.open_widths[n * in.open_widths_stride];
}

template <class T>
inline ActiveSet active_set(const Schedule& s, const RuleInputs<T>& in, int64_t n) {
  ActiveSet a;
  a.end = s.active_elements(n + 1);
  a.rows = std::min(rows_touched(a.end, in.d_v), open_width(in, n, OpenWidths::key_rows));
  a.cols = open_width(in, n, OpenWidths::value_columns);
  return a;
}

// o (d_v) = (G ⊙ S)^T q over the open elements.
template <class T>
void gated_read(const T* S, const T* q, const ActiveSet& act, int64_t d_v, T* o) {
  std::fill(o, o + d_v, T(0));
  for (int64_t i = 0; i < act.rows; ++i) {
    const int64_t cols = act.cols_of(i, d_v);
    for (int64_t j = 0; j < cols; ++j) o[j] += S[i * d_v + j] * q[i];
  }
}

// The schedule's prefix alone (memory-op's key-row reads).
template <class T>
void gated_read(const T* S, const T* q, int64_t end, int64_t d_v, T* o) {
  gated_read(S, q, ActiveSet{end, rows_touched(end, d_v), d_v}, d_v, o);
}

// Adjoint of gated_read: dS += G ⊙ (q dO^T); dq (d_k) = (G ⊙ S) dO, zero on locked rows.
template <class T>
void gated_read_backward(const T* S, const T* q, const T* dO, const ActiveSet& act, int64_t d_k, int64_t d_v,
                         T* dS, T* dq) {
  std::fill(dq, dq + d_k, T(0));
  for (int64_t i = 0; i < act.rows; ++i) {
    const int64_t cols = act.cols_of(i, d_v);
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
void gated_predict(const T* S, const T* e, const ActiveSet& act, int64_t d_v, T* pred) {
  gated_read(S, e, act, d_v, pred);
}

}  // namespace proteus::memory::detail
