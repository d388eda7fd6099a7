// Fused AdamW with the parameter schedule (math.md section 5): one thread per parameter. Where
// update_mask is 0 nothing is read or written, so a locked parameter and both its moments keep
// every bit. The bias corrections are computed on the host in double, as on the CPU.
#include <cuda_runtime.h>

#include <cmath>
#include <string>

#include "core/common/input_error.hpp"
#include "kernels/block_reduce.cuh"
#include "kernels/cuda_backend.hpp"
#include "kernels/cuda_check.hpp"
#include "kernels/device_scratch.cuh"

namespace proteus::cuda {
namespace {

struct AdamWStep {
  float lr, beta1, beta2, eps, weight_decay, bc1, bc2;
};

__global__ void adamw_kernel(float* params, const float* grads, float* m, float* v, const float* update_mask,
                             const float* decay_mask, size_t n, AdamWStep s) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    if (update_mask && update_mask[i] == 0.0f) continue;  // locked: every bit stays
    const float g = grads[i];
    const float mi = s.beta1 * m[i] + (1.0f - s.beta1) * g;
    const float vi = s.beta2 * v[i] + (1.0f - s.beta2) * g * g;
    m[i] = mi;
    v[i] = vi;
    const float m_hat = mi / s.bc1, v_hat = vi / s.bc2;
    const float wd = decay_mask ? s.weight_decay * decay_mask[i] : s.weight_decay;
    const float p = params[i];
    params[i] = p - s.lr * (m_hat / (sqrtf(v_hat) + s.eps) + wd * p);
  }
}

}  // namespace

void CudaBackend::adamw_update(float* params, const float* grads, float* m, float* v, const float* update_mask,
                               const float* decay_mask, size_t n, float lr, float beta1, float beta2, float eps,
                               float weight_decay, int step) {
  if (step < 1) throw InputError("step", "AdamW steps are 1-based, got " + std::to_string(step));
  if (!n) return;
  AdamWStep s{lr, beta1, beta2, eps, weight_decay,
              static_cast<float>(1.0 - std::pow(static_cast<double>(beta1), step)),
              static_cast<float>(1.0 - std::pow(static_cast<double>(beta2), step))};
  adamw_kernel<<<blocks_for(n, kThreads), kThreads>>>(params, grads, m, v, update_mask, decay_mask, n, s);
  check_launch("adamw_update");
}

}  // namespace proteus::cuda
