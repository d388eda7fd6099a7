// The row-aligned mask of math.md section 3's fast path, as ops over (B, T, H, d_k) tensors:
// q, k and p are multiplied by the prefix mask m_t over key dimensions, and the retention
// becomes a per-key log-decay m_t log a_t (exactly 0 on locked rows, so they never move).
// The CUDA kernels in kernels/row_mask.cu are checked against these.
#pragma once
#include <cstdint>
#include <vector>

#include "core/memory/schedule.hpp"

namespace proteus::memory {

// (T): active key rows at each position t = n + 1. Throws InputError("E") when the schedule's
// blocks do not fall on row boundaries of a (d_k, d_v) state.
std::vector<int32_t> active_rows_table(const Schedule& schedule, int64_t T, int64_t d_v);

// out = m_t ⊙ x; x, out: (B, T, H, d_k); rows: (T). Its backward is the same op on the gradient.
template <class T>
void row_mask_forward(const T* x, const int32_t* rows, int64_t B, int64_t Tn, int64_t H, int64_t d_k, T* out);

// out[b, t, h, i] = i < rows[t] ? log(a[b, t, h]) : 0; a: (B, T, H), out: (B, T, H, d_k).
template <class T>
void masked_log_decay(const T* a, const int32_t* rows, int64_t B, int64_t Tn, int64_t H, int64_t d_k, T* out);

}  // namespace proteus::memory
