// Softmax cross-entropy over V classes, one thread block per row; the row's exp-sum in double as
// on the CPU. Targets are a device int32 buffer (the op list's convention).
#include <cuda_runtime.h>

#include "kernels/block_reduce.cuh"
#include "kernels/cuda_backend.hpp"
#include "kernels/cuda_check.hpp"

namespace proteus::cuda {
namespace {

constexpr int kRowThreads = 256;

__global__ void xent_forward_kernel(float* losses, float* probs, const float* logits, const int32_t* targets,
                                    const float* weight, int V) {
  __shared__ float max_scratch[32];
  __shared__ double sum_scratch[32];
  const size_t n = blockIdx.x;
  const float* l = logits + n * V;
  float* p = probs + n * V;
  float mx = -FLT_MAX;
  for (int v = threadIdx.x; v < V; v += blockDim.x) mx = fmaxf(mx, l[v]);
  mx = block_max(mx, max_scratch);
  double se = 0.0;
  for (int v = threadIdx.x; v < V; v += blockDim.x) {
    const float e = expf(l[v] - mx);
    p[v] = e;
    se += e;
  }
  se = block_sum(se, sum_scratch);
  const float inv = static_cast<float>(1.0 / se);
  for (int v = threadIdx.x; v < V; v += blockDim.x) p[v] *= inv;
  if (threadIdx.x == 0) {
    const float wt = weight ? weight[n] : 1.0f;
    // -log softmax[target] = log(sum e^(l - mx)) - (l[target] - mx); a weight-0 row never reads its
    // target, and a counted row whose target is no class gets NaN (the CPU would read out of bounds).
    const int target = targets[n];
    if (wt == 0.0f) losses[n] = 0.0f;
    else if (target < 0 || target >= V) losses[n] = __int_as_float(0x7fc00000);
    else losses[n] = static_cast<float>((log(se) - (l[target] - mx)) * wt);
  }
}

// dlogits (N, V) = (probs - onehot) * weight * dloss_scale
__global__ void xent_backward_kernel(float* dlogits, const float* probs, const int32_t* targets, const float* weight,
                                     float dloss_scale, int V) {
  const size_t n = blockIdx.x;
  const float wt = weight ? weight[n] : 1.0f;
  const float* p = probs + n * V;
  float* d = dlogits + n * V;
  if (wt == 0.0f) {
    for (int v = threadIdx.x; v < V; v += blockDim.x) d[v] = 0.0f;
    return;
  }
  const float s = wt * dloss_scale;
  const int target = targets[n];
  for (int v = threadIdx.x; v < V; v += blockDim.x) d[v] = v == target ? (p[v] - 1.0f) * s : p[v] * s;
}

}  // namespace

void CudaBackend::xent_forward(float* losses, float* probs, const float* logits, const int32_t* targets,
                               const float* weight, int N, int V) {
  if (N <= 0 || V <= 0) return;
  xent_forward_kernel<<<N, kRowThreads>>>(losses, probs, logits, targets, weight, V);
  check_launch("xent_forward");
}

void CudaBackend::xent_backward(float* dlogits, const float* probs, const int32_t* targets, const float* weight,
                                float dloss_scale, int N, int V) {
  if (N <= 0 || V <= 0) return;
  xent_backward_kernel<<<N, kRowThreads>>>(dlogits, probs, targets, weight, dloss_scale, V);
  check_launch("xent_backward");
}

}  // namespace proteus::cuda
