// Elementwise ops: sigmoid, the retention decay, SwiGLU, the product, and the residual helpers (add, axpy,
// scale). Grid-stride loops; no restrict qualifiers, since callers may alias an output with an
// input (add(out = x, ...)) and each element reads only its own inputs.
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
using backend::softplus;
using backend::softplus_grad;

#define PROTEUS_GRID_STRIDE(i, n)                                                          \
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < (n); \
       i += static_cast<size_t>(gridDim.x) * blockDim.x)

__global__ void sigmoid_forward_kernel(float* out, const float* in, size_t n) {
  PROTEUS_GRID_STRIDE(i, n) out[i] = sigmoid(in[i]);
}

__global__ void sigmoid_backward_kernel(float* din, const float* dout, const float* out, size_t n) {
  PROTEUS_GRID_STRIDE(i, n) din[i] = dout[i] * out[i] * (1.0f - out[i]);
}

__global__ void decay_forward_kernel(float* a, const float* in, const float* A_log, const float* dt_bias, size_t n,
                                     int H) {
  PROTEUS_GRID_STRIDE(i, n) {
    const int h = static_cast<int>(i % H);
    a[i] = expf(-expf(A_log[h]) * softplus(in[i] + dt_bias[h]));
  }
}

// dz = da/dz = -da a A sp'(z): din, and the terms of ddt_bias.
__global__ void decay_dz_kernel(float* dz, const float* da, const float* a, const float* in, const float* A_log,
                                const float* dt_bias, size_t n, int H) {
  PROTEUS_GRID_STRIDE(i, n) {
    const int h = static_cast<int>(i % H);
    dz[i] = -da[i] * a[i] * expf(A_log[h]) * softplus_grad(in[i] + dt_bias[h]);
  }
}

// Rows are positions n, columns heads h: ddt_bias[h] sums dz.
struct DecayBiasTerm {
  const float* dz;
  int H;
  __device__ double operator()(int n, int h) const { return dz[static_cast<size_t>(n) * H + h]; }
};

// dA_log[h] sums -da a A sp(z), in double as on the CPU.
struct DecayLogTerm {
  const float *da, *a, *in, *A_log, *dt_bias;
  int H;
  __device__ double operator()(int n, int h) const {
    const size_t i = static_cast<size_t>(n) * H + h;
    const float A = expf(A_log[h]);
    return -static_cast<double>(da[i]) * a[i] * A * softplus(in[i] + dt_bias[h]);
  }
};

__global__ void swiglu_forward_kernel(float* out, const float* gate, const float* up, size_t n) {
  PROTEUS_GRID_STRIDE(i, n) out[i] = gate[i] * sigmoid(gate[i]) * up[i];
}

__global__ void swiglu_backward_kernel(float* dgate, float* dup, const float* dout, const float* gate,
                                       const float* up, size_t n) {
  PROTEUS_GRID_STRIDE(i, n) {
    const float g = gate[i], u = up[i], d = dout[i];  // read before writing: dgate may alias an input
    dgate[i] = d * u * silu_grad(g);
    dup[i] = d * g * sigmoid(g);
  }
}

__global__ void multiply_kernel(float* out, const float* x, const float* y, size_t n) {
  PROTEUS_GRID_STRIDE(i, n) out[i] = x[i] * y[i];
}

__global__ void add_kernel(float* out, const float* x, const float* y, size_t n) {
  PROTEUS_GRID_STRIDE(i, n) out[i] = x[i] + y[i];
}

__global__ void axpy_kernel(float* y, float alpha, const float* x, size_t n) {
  PROTEUS_GRID_STRIDE(i, n) y[i] += alpha * x[i];
}

__global__ void scale_kernel(float* x, float alpha, size_t n) {
  PROTEUS_GRID_STRIDE(i, n) x[i] *= alpha;
}

#undef PROTEUS_GRID_STRIDE

int grid(size_t n) { return blocks_for(n, kThreads); }

}  // namespace

void CudaBackend::sigmoid_forward(float* out, const float* in, size_t n) {
  if (!n) return;
  sigmoid_forward_kernel<<<grid(n), kThreads>>>(out, in, n);
  check_launch("sigmoid_forward");
}

void CudaBackend::sigmoid_backward(float* din, const float* dout, const float* out, size_t n) {
  if (!n) return;
  sigmoid_backward_kernel<<<grid(n), kThreads>>>(din, dout, out, n);
  check_launch("sigmoid_backward");
}

void CudaBackend::decay_forward(float* a, const float* in, const float* A_log, const float* dt_bias, int N, int H) {
  const size_t n = static_cast<size_t>(N) * H;
  if (!n || N < 0) return;
  decay_forward_kernel<<<grid(n), kThreads>>>(a, in, A_log, dt_bias, n, H);
  check_launch("decay_forward");
}

void CudaBackend::decay_backward(float* din, float* dA_log, float* ddt_bias, const float* da, const float* a,
                                 const float* in, const float* A_log, const float* dt_bias, int N, int H) {
  if (N <= 0 || H <= 0) return;
  const size_t n = static_cast<size_t>(N) * H;
  // dz goes to a scratch first and to din last, after the sums have read da, a and in (din may alias one).
  DeviceScratch<float> dz(n, nullptr, "decay_backward (scratch)");
  decay_dz_kernel<<<grid(n), kThreads>>>(dz.get(), da, a, in, A_log, dt_bias, n, H);
  check_launch("decay_backward (dz)");
  if (ddt_bias) accumulate_column_sums(DecayBiasTerm{dz.get(), H}, N, H, ddt_bias, "decay_backward (ddt_bias)");
  if (dA_log) accumulate_column_sums(DecayLogTerm{da, a, in, A_log, dt_bias, H}, N, H, dA_log, "decay_backward (dA_log)");
  if (din) copy(din, dz.get(), n);
}

void CudaBackend::swiglu_forward(float* out, const float* gate, const float* up, size_t n) {
  if (!n) return;
  swiglu_forward_kernel<<<grid(n), kThreads>>>(out, gate, up, n);
  check_launch("swiglu_forward");
}

void CudaBackend::swiglu_backward(float* dgate, float* dup, const float* dout, const float* gate, const float* up,
                                  size_t n) {
  if (!n) return;
  swiglu_backward_kernel<<<grid(n), kThreads>>>(dgate, dup, dout, gate, up, n);
  check_launch("swiglu_backward");
}

void CudaBackend::multiply(float* out, const float* x, const float* y, size_t n) {
  if (!n) return;
  multiply_kernel<<<grid(n), kThreads>>>(out, x, y, n);
  check_launch("multiply");
}

void CudaBackend::add(float* out, const float* x, const float* y, size_t n) {
  if (!n) return;
  add_kernel<<<grid(n), kThreads>>>(out, x, y, n);
  check_launch("add");
}

void CudaBackend::axpy(float* y, float alpha, const float* x, size_t n) {
  if (!n) return;
  axpy_kernel<<<grid(n), kThreads>>>(y, alpha, x, n);
  check_launch("axpy");
}

void CudaBackend::scale(float* x, float alpha, size_t n) {
  if (!n) return;
  scale_kernel<<<grid(n), kThreads>>>(x, alpha, n);
  check_launch("scale");
}

}  // namespace proteus::cuda
