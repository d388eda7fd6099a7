// The short causal depthwise convolution with SiLU, per channel over time. Forward and din are
// one thread per (row, channel); dw sums over rows deterministically (column_sums.cuh).
#include <cuda_runtime.h>

#include "core/backend/ops/activations.hpp"

#include "kernels/block_reduce.cuh"
#include "kernels/column_sums.cuh"
#include "kernels/cuda_backend.hpp"
#include "kernels/cuda_check.hpp"
#include "kernels/device_scratch.cuh"

namespace proteus::cuda {
namespace {

using backend::sigmoid;  // core/backend/ops/activations.hpp: the CPU's definitions
using backend::silu_grad;

// pre (B, T, Ch) = sum_j w[c, j] in[b, t - (K-1) + j, c]; taps before t = 0 read zeros.
__global__ void conv_silu_forward_kernel(float* out, float* pre, const float* in, const float* w, size_t n, int Tn,
                                         int Ch, int K) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const size_t row = i / Ch;
    const int c = static_cast<int>(i - row * Ch);
    const int t = static_cast<int>(row % Tn);
    float acc = 0.0f;
    for (int j = max(0, K - 1 - t); j < K; ++j)
      acc += w[static_cast<size_t>(c) * K + j] * in[i - static_cast<size_t>(K - 1 - j) * Ch];
    pre[i] = acc;
    out[i] = acc * sigmoid(acc);
  }
}

__global__ void conv_dpre_kernel(float* dpre, const float* dout, const float* pre, size_t n) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    dpre[i] = dout[i] * silu_grad(pre[i]);
}

// in[t] feeds pre[t + K-1-j] through tap j.
__global__ void conv_din_kernel(float* din, const float* dpre, const float* w, size_t n, int Tn, int Ch, int K) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const size_t row = i / Ch;
    const int c = static_cast<int>(i - row * Ch);
    const int t = static_cast<int>(row % Tn);
    float acc = 0.0f;
    for (int j = max(0, K - Tn + t); j < K; ++j)
      acc += w[static_cast<size_t>(c) * K + j] * dpre[i + static_cast<size_t>(K - 1 - j) * Ch];
    din[i] = acc;
  }
}

// Rows (b, t), columns c * K + j: dw[c, j] sums dpre[b, t, c] in[b, t - (K-1-j), c].
struct ConvWeightTerm {
  const float *dpre, *in;
  int Tn, Ch, K;
  __device__ double operator()(int row, int col) const {
    const int c = col / K, j = col - c * K;
    const int t = row % Tn;
    if (j < K - 1 - t) return 0.0;
    const size_t i = static_cast<size_t>(row) * Ch + c;
    return static_cast<double>(dpre[i]) * in[i - static_cast<size_t>(K - 1 - j) * Ch];
  }
};

}  // namespace

void CudaBackend::conv_silu_forward(float* out, float* pre, const float* in, const float* w, int B, int Tn, int Ch,
                                    int K) {
  const size_t n = static_cast<size_t>(B) * Tn * Ch;
  if (B <= 0 || Tn <= 0 || Ch <= 0) return;
  conv_silu_forward_kernel<<<blocks_for(n, kThreads), kThreads>>>(out, pre, in, w, n, Tn, Ch, K);
  check_launch("conv_silu_forward");
}

void CudaBackend::conv_silu_backward(float* din, float* dw, const float* dout, const float* in, const float* w,
                                     const float* pre, int B, int Tn, int Ch, int K) {
  if (B <= 0 || Tn <= 0 || Ch <= 0) return;
  const size_t n = static_cast<size_t>(B) * Tn * Ch;
  DeviceScratch<float> dpre(n, nullptr, "conv_silu_backward (scratch)");
  conv_dpre_kernel<<<blocks_for(n, kThreads), kThreads>>>(dpre.get(), dout, pre, n);
  check_launch("conv_silu_backward (dpre)");
  // dw before din: it reads `in`, which din may alias.
  if (dw) accumulate_column_sums(ConvWeightTerm{dpre.get(), in, Tn, Ch, K}, B * Tn, Ch * K, dw, "conv_silu_backward (dw)");
  if (din) {
    conv_din_kernel<<<blocks_for(n, kThreads), kThreads>>>(din, dpre.get(), w, n, Tn, Ch, K);
    check_launch("conv_silu_backward (din)");
  }
}

}  // namespace proteus::cuda
