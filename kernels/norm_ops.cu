// Row norms: RMSNorm and L2 normalisation, one thread block per row, the row's sums in double
// as on the CPU; rmsnorm's dw is a deterministic column sum (column_sums.cuh).
#include <cuda_runtime.h>

#include "kernels/block_reduce.cuh"
#include "kernels/column_sums.cuh"
#include "kernels/cuda_backend.hpp"
#include "kernels/cuda_check.hpp"

namespace proteus::cuda {
namespace {

constexpr int kRowThreads = 128;

__global__ void rmsnorm_forward_kernel(float* out, float* rstd, const float* in, const float* w, int C, float eps) {
  __shared__ double scratch[32];
  const size_t off = static_cast<size_t>(blockIdx.x) * C;
  const float* x = in + off;
  double ss = 0.0;
  for (int c = threadIdx.x; c < C; c += blockDim.x) ss += static_cast<double>(x[c]) * x[c];
  ss = block_sum(ss, scratch);
  const float r = static_cast<float>(1.0 / sqrt(ss / C + static_cast<double>(eps)));
  if (threadIdx.x == 0) rstd[blockIdx.x] = r;
  for (int c = threadIdx.x; c < C; c += blockDim.x) out[off + c] = x[c] * r * w[c];
}

// dx = r w g - x r^3 (sum_c g w x) / C
__global__ void rmsnorm_backward_din_kernel(float* din, const float* dout, const float* in, const float* w,
                                            const float* rstd, int C) {
  __shared__ double scratch[32];
  const size_t off = static_cast<size_t>(blockIdx.x) * C;
  double dot = 0.0;
  for (int c = threadIdx.x; c < C; c += blockDim.x) dot += static_cast<double>(dout[off + c]) * w[c] * in[off + c];
  dot = block_sum(dot, scratch);  // every read of the row is done before any write (din may alias dout)
  const float rf = rstd[blockIdx.x];
  const double r = rf;
  const float coef = static_cast<float>(r * r * r * dot / C);
  for (int c = threadIdx.x; c < C; c += blockDim.x) din[off + c] = rf * (w[c] * dout[off + c]) - in[off + c] * coef;
}

struct RmsnormWeightTerm {
  const float *dout, *in, *rstd;
  int C;
  __device__ double operator()(int n, int c) const {
    const size_t i = static_cast<size_t>(n) * C + c;
    return static_cast<double>(dout[i]) * in[i] * rstd[n];
  }
};

__global__ void l2norm_forward_kernel(float* out, float* rnorm, const float* in, int d, float eps) {
  __shared__ double scratch[32];
  const size_t off = static_cast<size_t>(blockIdx.x) * d;
  double ss = 0.0;
  for (int i = threadIdx.x; i < d; i += blockDim.x) ss += static_cast<double>(in[off + i]) * in[off + i];
  ss = block_sum(ss, scratch);
  const float r = static_cast<float>(1.0 / sqrt(ss + static_cast<double>(eps)));
  if (threadIdx.x == 0) rnorm[blockIdx.x] = r;
  for (int i = threadIdx.x; i < d; i += blockDim.x) out[off + i] = in[off + i] * r;
}

// dx = r (g - y (g . y))
__global__ void l2norm_backward_kernel(float* din, const float* dout, const float* out, const float* rnorm, int d) {
  __shared__ double scratch[32];
  const size_t off = static_cast<size_t>(blockIdx.x) * d;
  double dot = 0.0;
  for (int i = threadIdx.x; i < d; i += blockDim.x) dot += static_cast<double>(dout[off + i]) * out[off + i];
  const float gy = static_cast<float>(block_sum(dot, scratch));
  const float r = rnorm[blockIdx.x];
  for (int i = threadIdx.x; i < d; i += blockDim.x) din[off + i] = r * (dout[off + i] - out[off + i] * gy);
}

// The open rows' norm floor: sqrt(r / d) (capped) or eps; the same double arithmetic as the CPU.
__device__ inline double renorm_floor(int r, int d, bool capped, double eps) {
  return capped ? sqrt(static_cast<double>(r) / d) : eps;
}

__global__ void prefix_renorm_forward_kernel(float* out, float* norm, const float* in, const int32_t* rows, int Tn,
                                             int H, int d, bool capped, float eps) {
  __shared__ double scratch[32];
  const size_t row = blockIdx.x, off = row * d;
  const int r = rows[(row / H) % Tn];
  if (r >= d) {  // every row open: a copy, bit for bit
    for (int i = threadIdx.x; i < d; i += blockDim.x) out[off + i] = in[off + i];
    if (threadIdx.x == 0) norm[row] = 0.0f;
    return;
  }
  double ss = 0.0;
  for (int i = threadIdx.x; i < r; i += blockDim.x) ss += static_cast<double>(in[off + i]) * in[off + i];
  ss = block_sum(ss, scratch);
  const double nr = sqrt(ss);
  if (threadIdx.x == 0) norm[row] = static_cast<float>(nr);
  const float s = static_cast<float>(1.0 / fmax(nr, renorm_floor(r, d, capped, static_cast<double>(eps))));
  for (int i = threadIdx.x; i < d; i += blockDim.x) out[off + i] = i < r ? in[off + i] * s : in[off + i];
}

__global__ void prefix_renorm_backward_kernel(float* din, const float* dout, const float* out, const float* norm,
                                              const int32_t* rows, int Tn, int H, int d, bool capped, float eps) {
  __shared__ double scratch[32];
  const size_t row = blockIdx.x, off = row * d;
  const int r = rows[(row / H) % Tn];
  if (r >= d) {
    for (int i = threadIdx.x; i < d; i += blockDim.x) din[off + i] = dout[off + i];
    return;
  }
  const double floor = renorm_floor(r, d, capped, static_cast<double>(eps));
  const double nr = static_cast<double>(norm[row]);
  // Every thread takes the same branch: the condition depends on the row alone.
  if (nr > floor) {
    double dot = 0.0;
    for (int i = threadIdx.x; i < r; i += blockDim.x) dot += static_cast<double>(dout[off + i]) * out[off + i];
    const float gy = static_cast<float>(block_sum(dot, scratch));  // reads done before din (may alias dout)
    const float s = static_cast<float>(1.0 / nr);
    for (int i = threadIdx.x; i < d; i += blockDim.x) din[off + i] = i < r ? s * (dout[off + i] - out[off + i] * gy) : dout[off + i];
  } else {
    const float s = static_cast<float>(1.0 / floor);
    for (int i = threadIdx.x; i < d; i += blockDim.x) din[off + i] = i < r ? dout[off + i] * s : dout[off + i];
  }
}

}  // namespace

void CudaBackend::prefix_renorm_forward(float* out, float* norm, const float* in, const int32_t* rows, int B, int Tn,
                                        int H, int d, bool capped, float eps) {
  const int64_t n = static_cast<int64_t>(B) * Tn * H;
  if (n <= 0) return;
  prefix_renorm_forward_kernel<<<static_cast<unsigned>(n), kRowThreads>>>(out, norm, in, rows, Tn, H, d, capped, eps);
  check_launch("prefix_renorm_forward");
}

void CudaBackend::prefix_renorm_backward(float* din, const float* dout, const float* out, const float* norm,
                                         const int32_t* rows, int B, int Tn, int H, int d, bool capped, float eps) {
  const int64_t n = static_cast<int64_t>(B) * Tn * H;
  if (n <= 0) return;
  prefix_renorm_backward_kernel<<<static_cast<unsigned>(n), kRowThreads>>>(din, dout, out, norm, rows, Tn, H, d, capped,
                                                                         eps);
  check_launch("prefix_renorm_backward");
}

void CudaBackend::rmsnorm_forward(float* out, float* rstd, const float* in, const float* w, int N, int C, float eps) {
  if (N <= 0) return;
  rmsnorm_forward_kernel<<<N, kRowThreads>>>(out, rstd, in, w, C, eps);
  check_launch("rmsnorm_forward");
}

void CudaBackend::rmsnorm_backward(float* din, float* dw, const float* dout, const float* in, const float* w,
                                   const float* rstd, int N, int C) {
  if (N <= 0 || C <= 0) return;
  if (din) {
    rmsnorm_backward_din_kernel<<<N, kRowThreads>>>(din, dout, in, w, rstd, C);
    check_launch("rmsnorm_backward (din)");
  }
  if (dw) accumulate_column_sums(RmsnormWeightTerm{dout, in, rstd, C}, N, C, dw, "rmsnorm_backward (dw)");
}

void CudaBackend::l2norm_forward(float* out, float* rnorm, const float* in, int N, int d, float eps) {
  if (N <= 0) return;
  l2norm_forward_kernel<<<N, kRowThreads>>>(out, rnorm, in, d, eps);
  check_launch("l2norm_forward");
}

void CudaBackend::l2norm_backward(float* din, const float* dout, const float* out, const float* rnorm, int N, int d) {
  if (N <= 0) return;
  l2norm_backward_kernel<<<N, kRowThreads>>>(din, dout, out, rnorm, d);
  check_launch("l2norm_backward");
}

}  // namespace proteus::cuda
