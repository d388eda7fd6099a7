// The query q - d_h p of a rule with its own erase direction (rule_uses_p), per head h, over
// (N, H, d) rows; the CUDA twin of the CPU backend's comba_query_forward/backward. Elementwise in
// grid-stride loops, written as axpy is (the form the model used before this op existed); the
// per-head parameter gradient is a deterministic column sum in double (rows in a fixed order, no
// atomics).
#include <cuda_runtime.h>

#include "kernels/block_reduce.cuh"
#include "kernels/column_sums.cuh"
#include "kernels/cuda_backend.hpp"
#include "kernels/cuda_check.hpp"
#include "kernels/device_scratch.cuh"

namespace proteus::cuda {
namespace {

// out = q - d_h p. out may alias q (each element reads only its own inputs).
__global__ void comba_query_forward_kernel(float* out, const float* q, const float* p, const float* dh, size_t n,
                                           int H, int d) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const int h = static_cast<int>((i / d) % H);
    out[i] = q[i] + -dh[h] * p[i];
  }
}

// dp += -d_h dout: p (the model's normalised k) gathers other gradient terms, so this adds.
__global__ void comba_query_dp_kernel(float* dp, const float* dout, const float* dh, size_t n, int H, int d) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const int h = static_cast<int>((i / d) % H);
    dp[i] += -dh[h] * dout[i];
  }
}

// Row n, column h of ddh's sum: -dout . p over the head's d elements, in double.
struct CombaHeadTerm {
  const float *dout, *p;
  int H, d;
  __device__ double operator()(int n, int h) const {
    const size_t off = (static_cast<size_t>(n) * H + h) * d;
    double acc = 0.0;
    for (int i = 0; i < d; ++i) acc -= static_cast<double>(dout[off + i]) * p[off + i];
    return acc;
  }
};

}  // namespace

void CudaBackend::comba_query_forward(float* out, const float* q, const float* p, const float* dh, int N, int H,
                                      int d) {
  if (N <= 0 || H <= 0 || d <= 0) return;
  const size_t n = static_cast<size_t>(N) * H * d;
  comba_query_forward_kernel<<<blocks_for(n, kThreads), kThreads>>>(out, q, p, dh, n, H, d);
  check_launch("comba_query_forward");
}

void CudaBackend::comba_query_backward(float* dp, float* ddh, const float* dout, const float* p, const float* dh,
                                       int N, int H, int d) {
  if (N <= 0 || H <= 0 || d <= 0) return;
  const size_t n = static_cast<size_t>(N) * H * d;
  if (dp) {
    comba_query_dp_kernel<<<blocks_for(n, kThreads), kThreads>>>(dp, dout, dh, n, H, d);
    check_launch("comba_query_backward (dp)");
  }
  if (ddh) accumulate_column_sums(CombaHeadTerm{dout, p, H, d}, N, H, ddh, "comba_query_backward (ddh)");
}

}  // namespace proteus::cuda
