// Causal softmax attention, per head, the simple way: one thread block per query row (forward
// and dq), per key row (dk, dv); the (T, T) probabilities are saved as the op list asks, and the
// backward's dS goes to a scratch of the same shape. Correct for any T and d; not a flash kernel.
#include <cuda_runtime.h>

#include <cmath>

#include "kernels/block_reduce.cuh"
#include "kernels/cuda_backend.hpp"
#include "kernels/cuda_check.hpp"
#include "kernels/device_scratch.cuh"

namespace proteus::cuda {
namespace {

constexpr int kRowThreads = 128;

// Row (b, t, h) of a (B, T, H, d) tensor.
__device__ inline size_t head_row(int b, int t, int h, int Tn, int H, int d) {
  return ((static_cast<size_t>(b) * Tn + t) * H + h) * d;
}

// Block (bh, i): probs row i of head bh, then out row i = P_i V.
__global__ void attention_forward_kernel(float* out, float* probs, const float* q, const float* k, const float* v,
                                         int Tn, int H, int d, float scale) {
  __shared__ float max_scratch[32];
  __shared__ double sum_scratch[32];
  const int bh = blockIdx.y, i = blockIdx.x, b = bh / H, h = bh % H;
  float* row = probs + (static_cast<size_t>(bh) * Tn + i) * Tn;
  const float* qi = q + head_row(b, i, h, Tn, H, d);
  float mx = -FLT_MAX;
  for (int j = threadIdx.x; j <= i; j += blockDim.x) {
    const float* kj = k + head_row(b, j, h, Tn, H, d);
    float s = 0.0f;
    for (int c = 0; c < d; ++c) s += qi[c] * kj[c];
    row[j] = s;
    mx = fmaxf(mx, s * scale);
  }
  mx = block_max(mx, max_scratch);
  double se = 0.0;
  for (int j = threadIdx.x; j <= i; j += blockDim.x) {
    const float e = expf(row[j] * scale - mx);
    row[j] = e;
    se += e;
  }
  se = block_sum(se, sum_scratch);
  const float inv = static_cast<float>(1.0 / se);
  for (int j = threadIdx.x; j < Tn; j += blockDim.x) row[j] = j <= i ? row[j] * inv : 0.0f;  // the future is masked
  __syncthreads();  // the row is read whole below
  float* oi = out + head_row(b, i, h, Tn, H, d);
  for (int c = threadIdx.x; c < d; c += blockDim.x) {
    float acc = 0.0f;
    for (int j = 0; j <= i; ++j) acc += row[j] * v[head_row(b, j, h, Tn, H, d) + c];
    oi[c] = acc;
  }
}

// Block (bh, i): dS row i = P_i ⊙ (dP_i - P_i . dP_i) * scale with dP_i = dO_i V^T.
__global__ void attention_dscores_kernel(float* dscores, const float* probs, const float* dout, const float* v,
                                         int Tn, int H, int d, float scale) {
  __shared__ double sum_scratch[32];
  const int bh = blockIdx.y, i = blockIdx.x, b = bh / H, h = bh % H;
  const float* p = probs + (static_cast<size_t>(bh) * Tn + i) * Tn;
  float* ds = dscores + (static_cast<size_t>(bh) * Tn + i) * Tn;
  const float* doi = dout + head_row(b, i, h, Tn, H, d);
  double dot = 0.0;
  for (int j = threadIdx.x; j <= i; j += blockDim.x) {
    const float* vj = v + head_row(b, j, h, Tn, H, d);
    float dp = 0.0f;
    for (int c = 0; c < d; ++c) dp += doi[c] * vj[c];
    ds[j] = dp;
    dot += static_cast<double>(p[j]) * dp;
  }
  const float pd = static_cast<float>(block_sum(dot, sum_scratch));
  for (int j = threadIdx.x; j < Tn; j += blockDim.x) ds[j] = j <= i ? p[j] * (ds[j] - pd) * scale : 0.0f;
}

// Block (bh, i): dq_i = sum_{j <= i} dS[i, j] k_j.
__global__ void attention_dq_kernel(float* dq, const float* dscores, const float* k, int Tn, int H, int d) {
  const int bh = blockIdx.y, i = blockIdx.x, b = bh / H, h = bh % H;
  const float* ds = dscores + (static_cast<size_t>(bh) * Tn + i) * Tn;
  for (int c = threadIdx.x; c < d; c += blockDim.x) {
    float acc = 0.0f;
    for (int j = 0; j <= i; ++j) acc += ds[j] * k[head_row(b, j, h, Tn, H, d) + c];
    dq[head_row(b, i, h, Tn, H, d) + c] = acc;
  }
}

// Block (bh, j): dk_j = sum_{i >= j} dS[i, j] q_i and dv_j = sum_{i >= j} P[i, j] dO_i.
__global__ void attention_dkv_kernel(float* dk, float* dv, const float* dscores, const float* probs, const float* q,
                                     const float* dout, int Tn, int H, int d) {
  const int bh = blockIdx.y, j = blockIdx.x, b = bh / H, h = bh % H;
  const size_t head = static_cast<size_t>(bh) * Tn * Tn;
  for (int c = threadIdx.x; c < d; c += blockDim.x) {
    float acc_k = 0.0f, acc_v = 0.0f;
    for (int i = j; i < Tn; ++i) {
      const size_t ij = head + static_cast<size_t>(i) * Tn + j;
      const size_t row = head_row(b, i, h, Tn, H, d) + c;
      acc_k += dscores[ij] * q[row];
      acc_v += probs[ij] * dout[row];
    }
    dk[head_row(b, j, h, Tn, H, d) + c] = acc_k;
    dv[head_row(b, j, h, Tn, H, d) + c] = acc_v;
  }
}

float attention_scale(int d) { return static_cast<float>(1.0 / std::sqrt(static_cast<double>(d))); }

}  // namespace

void CudaBackend::attention_forward(float* out, float* probs, const float* q, const float* k, const float* v, int B,
                                    int Tn, int H, int d) {
  if (B <= 0 || Tn <= 0 || H <= 0 || d <= 0) return;
  const dim3 grid(Tn, B * H);
  attention_forward_kernel<<<grid, kRowThreads>>>(out, probs, q, k, v, Tn, H, d, attention_scale(d));
  check_launch("attention_forward");
}

void CudaBackend::attention_backward(float* dq, float* dk, float* dv, const float* dout, const float* probs,
                                     const float* q, const float* k, const float* v, int B, int Tn, int H, int d) {
  if (B <= 0 || Tn <= 0 || H <= 0 || d <= 0) return;
  const dim3 grid(Tn, B * H);
  DeviceScratch<float> dscores(static_cast<size_t>(B) * H * Tn * Tn, nullptr, "attention_backward (scratch)");
  attention_dscores_kernel<<<grid, kRowThreads>>>(dscores.get(), probs, dout, v, Tn, H, d, attention_scale(d));
  check_launch("attention_backward (dS)");
  attention_dq_kernel<<<grid, kRowThreads>>>(dq, dscores.get(), k, Tn, H, d);
  check_launch("attention_backward (dq)");
  attention_dkv_kernel<<<grid, kRowThreads>>>(dk, dv, dscores.get(), probs, q, dout, Tn, H, d);
  check_launch("attention_backward (dk, dv)");
}

}  // namespace proteus::cuda
