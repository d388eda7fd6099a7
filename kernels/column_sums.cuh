// Deterministic column reductions (parameter gradients summed over rows: rmsnorm's dw, the
// convolution's taps, the decay's per-head parameters): rows are cut into fixed chunks, each
// chunk is summed in double in row order, then the chunks in order. No atomics, so the bits do
// not depend on scheduling. Term: a functor with `__device__ double operator()(int row, int col)`.
#pragma once
#include <cuda_runtime.h>

#include "kernels/cuda_check.hpp"
#include "kernels/device_scratch.cuh"

namespace proteus::cuda {

constexpr int kRowsPerChunk = 256;
constexpr int kColumnThreads = 128;

template <class Term>
__global__ void column_chunk_sums_kernel(Term term, int rows, int cols, double* partials) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  const int r0 = blockIdx.y * kRowsPerChunk, r1 = min(rows, r0 + kRowsPerChunk);
  double acc = 0.0;
  for (int r = r0; r < r1; ++r) acc += term(r, c);
  partials[static_cast<size_t>(blockIdx.y) * cols + c] = acc;
}

static __global__ void column_chunks_finish_kernel(const double* partials, int chunks, int cols, float* out) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  double acc = 0.0;
  for (int ch = 0; ch < chunks; ++ch) acc += partials[static_cast<size_t>(ch) * cols + c];
  out[c] += static_cast<float>(acc);  // parameter gradients accumulate
}

// out[c] += sum over rows r of term(r, c), for c in [0, cols).
template <class Term>
void accumulate_column_sums(const Term& term, int rows, int cols, float* out, const char* what) {
  if (cols <= 0 || rows <= 0) return;
  const int chunks = (rows + kRowsPerChunk - 1) / kRowsPerChunk;
  DeviceScratch<double> partials(static_cast<size_t>(chunks) * cols, nullptr, what);
  const dim3 grid((cols + kColumnThreads - 1) / kColumnThreads, chunks);
  column_chunk_sums_kernel<<<grid, kColumnThreads>>>(term, rows, cols, partials.get());
  check_launch(what);
  column_chunks_finish_kernel<<<(cols + kColumnThreads - 1) / kColumnThreads, kColumnThreads>>>(partials.get(), chunks,
                                                                                               cols, out);
  check_launch(what);
}

}  // namespace proteus::cuda
