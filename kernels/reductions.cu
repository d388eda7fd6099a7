// Reductions to the host (sum, sum of squares) in two passes with a grid fixed by n alone: each
// block sums its strided share in double, then one block sums the partials in order. The same
// input gives the same bits on every run, whatever the GPU's scheduling.
#include <cuda_runtime.h>

#include "kernels/block_reduce.cuh"
#include "kernels/cuda_backend.hpp"
#include "kernels/cuda_check.hpp"
#include "kernels/device.hpp"
#include "kernels/device_scratch.cuh"

namespace proteus::cuda {
namespace {

constexpr int kMaxPartials = 1024;

template <bool kSquares>
__global__ void partial_sums_kernel(const float* x, size_t n, double* partials) {
  __shared__ double scratch[32];
  double acc = 0.0;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const double v = x[i];
    acc += kSquares ? v * v : v;
  }
  acc = block_sum(acc, scratch);
  if (threadIdx.x == 0) partials[blockIdx.x] = acc;
}

__global__ void finish_sum_kernel(const double* partials, int count, double* out) {
  __shared__ double scratch[32];
  double acc = 0.0;
  for (int i = threadIdx.x; i < count; i += blockDim.x) acc += partials[i];
  acc = block_sum(acc, scratch);
  if (threadIdx.x == 0) *out = acc;
}

template <bool kSquares>
double reduce_to_host(const float* x, size_t n, const char* what) {
  if (n == 0) return 0.0;
  const size_t wanted = (n + kThreads * 4 - 1) / (kThreads * 4);  // about 4 elements per thread
  const int blocks = static_cast<int>(wanted < kMaxPartials ? wanted : kMaxPartials);
  DeviceScratch<double> partials(blocks + 1, nullptr, what);
  partial_sums_kernel<kSquares><<<blocks, kThreads>>>(x, n, partials.get());
  check_launch(what);
  finish_sum_kernel<<<1, kThreads>>>(partials.get(), blocks, partials.get() + blocks);
  check_launch(what);
  double result = 0.0;
  check(cudaMemcpy(&result, partials.get() + blocks, sizeof(double), cudaMemcpyDeviceToHost), what);
  return result;
}

}  // namespace

double CudaBackend::sum(const float* x, size_t n) { return reduce_to_host<false>(x, n, "sum"); }

double CudaBackend::sum_squares(const float* x, size_t n) { return reduce_to_host<true>(x, n, "sum_squares"); }

}  // namespace proteus::cuda
