// Block-wide reductions for the backend's kernels: a fixed tree (warp shuffles, then one warp
// over the warps' partials), so a sum has the same bits on every run. Every thread of the block
// must call them; blockDim.x must be a multiple of 32 (all launches here use kThreads).
#pragma once
#include <cfloat>

namespace proteus::cuda {

constexpr int kThreads = 256;  // threads per block for every kernel of the backend

template <class V>
__device__ inline V warp_sum(V x) {
  for (int offset = 16; offset > 0; offset >>= 1) x += __shfl_xor_sync(0xffffffffu, x, offset);
  return x;
}

__device__ inline float warp_max(float x) {
  for (int offset = 16; offset > 0; offset >>= 1) x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, offset));
  return x;
}

// The sum of x over the block, returned to every thread. scratch: 32 values of shared memory.
template <class V>
__device__ inline V block_sum(V x, V* scratch) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  x = warp_sum(x);
  if (lane == 0) scratch[warp] = x;
  __syncthreads();
  if (warp == 0) {
    V y = lane < warps ? scratch[lane] : V(0);
    y = warp_sum(y);
    if (lane == 0) scratch[0] = y;
  }
  __syncthreads();
  const V total = scratch[0];
  __syncthreads();  // scratch may be reused at once
  return total;
}

__device__ inline float block_max(float x, float* scratch) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  x = warp_max(x);
  if (lane == 0) scratch[warp] = x;
  __syncthreads();
  if (warp == 0) {
    float y = lane < warps ? scratch[lane] : -FLT_MAX;
    y = warp_max(y);
    if (lane == 0) scratch[0] = y;
  }
  __syncthreads();
  const float total = scratch[0];
  __syncthreads();
  return total;
}

}  // namespace proteus::cuda
