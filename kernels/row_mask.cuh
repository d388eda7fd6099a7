// CUDA twins of core/memory/row_mask.hpp: the prefix mask over key dimensions and the per-key
// log-decay of the row-aligned form. Device pointers; shapes as on the CPU.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

namespace proteus::cuda {

// out = m_t ⊙ x; x, out: (B, T, H, d_k); rows: (T) on the device.
void row_mask_forward(const float* x, const int32_t* rows, int64_t B, int64_t T, int64_t H, int64_t d_k,
                      float* out, cudaStream_t stream = nullptr);

// out[b, t, h, i] = i < rows[t] ? log(a[b, t, h]) : 0; a: (B, T, H), out: (B, T, H, d_k).
void masked_log_decay(const float* a, const int32_t* rows, int64_t B, int64_t T, int64_t H, int64_t d_k,
                      float* out, cudaStream_t stream = nullptr);

}  // namespace proteus::cuda
