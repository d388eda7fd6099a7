#include "kernels/row_mask.cuh"

#include "kernels/cuda_backend.hpp"
#include "kernels/cuda_check.hpp"

namespace proteus::cuda {
namespace {

// One thread per element; the position index selects the row prefix from the table.
__global__ void row_mask_kernel(const float* __restrict__ x, const int32_t* __restrict__ rows, int64_t n,
                                int64_t T, int64_t H, int64_t d_k, float* __restrict__ out) {
  const int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= n) return;
  const int64_t i = idx % d_k;
  const int64_t t = (idx / (d_k * H)) % T;
  out[idx] = i < rows[t] ? x[idx] : 0.0f;
}

__global__ void masked_log_decay_kernel(const float* __restrict__ a, const int32_t* __restrict__ rows, int64_t n,
                                        int64_t T, int64_t H, int64_t d_k, float* __restrict__ out) {
  const int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= n) return;
  const int64_t i = idx % d_k;
  const int64_t bth = idx / d_k;
  const int64_t t = (bth / H) % T;
  out[idx] = i < rows[t] ? logf(a[bth]) : 0.0f;
}

// The backend's prefix_mask: the same selection with a row count per (position, head).
// No restrict: the model masks gradients in place (out = x).
__global__ void prefix_mask_kernel(const float* x, const int32_t* rows, int64_t n, int64_t TH, int64_t d, float* out) {
  const int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= n) return;
  out[idx] = idx % d < rows[(idx / d) % TH] ? x[idx] : 0.0f;
}

constexpr int kThreads = 256;

int blocks_for(int64_t n) { return static_cast<int>((n + kThreads - 1) / kThreads); }

}  // namespace

void row_mask_forward(const float* x, const int32_t* rows, int64_t B, int64_t T, int64_t H, int64_t d_k,
                      float* out, cudaStream_t stream) {
  const int64_t n = B * T * H * d_k;
  if (n == 0) return;
  row_mask_kernel<<<blocks_for(n), kThreads, 0, stream>>>(x, rows, n, T, H, d_k, out);
}

void masked_log_decay(const float* a, const int32_t* rows, int64_t B, int64_t T, int64_t H, int64_t d_k,
                      float* out, cudaStream_t stream) {
  const int64_t n = B * T * H * d_k;
  if (n == 0) return;
  masked_log_decay_kernel<<<blocks_for(n), kThreads, 0, stream>>>(a, rows, n, T, H, d_k, out);
}

void CudaBackend::prefix_mask(float* out, const float* x, const int32_t* rows, int B, int Tn, int H, int d) {
  const int64_t n = static_cast<int64_t>(B) * Tn * H * d;
  if (n == 0) return;
  prefix_mask_kernel<<<blocks_for(n), kThreads>>>(x, rows, n, static_cast<int64_t>(Tn) * H, d, out);
  check_launch("prefix_mask");
}

}  // namespace proteus::cuda
