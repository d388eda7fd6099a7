// The scalar functions the elementwise ops share, written as the CPU writes them
// (cpu_backend.cpp) so the two agree to rounding.
#pragma once

namespace proteus::cuda {

__device__ inline float sigmoid(float x) {
  if (x >= 0.0f) return 1.0f / (1.0f + expf(-x));
  const float e = expf(x);
  return e / (1.0f + e);
}

// log(1 + e^x), exact-enough past 20 where e^x would dwarf the 1.
__device__ inline float softplus(float x) { return x > 20.0f ? x : log1pf(expf(x)); }
__device__ inline float softplus_grad(float x) { return x > 20.0f ? 1.0f : sigmoid(x); }

// silu'(x) = s (1 + x (1 - s)) with s = sigmoid(x).
__device__ inline float silu_grad(float x) {
  const float s = sigmoid(x);
  return s * (1.0f + x * (1.0f - s));
}

}  // namespace proteus::cuda
