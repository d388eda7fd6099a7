// Token embedding over device token ids. The backward adds the rows of each token in ascending
// row order, exactly the CPU's order and so the CPU's bits, with no atomics: a stable radix sort
// (CUB's, which ships with the toolkit) groups the rows by token on the device, then one thread
// block per distinct token walks its run of rows.
// Ids must lie in [0, V): the model checks them on the host before it uploads them.
#include <cuda_runtime.h>

#include <cub/device/device_radix_sort.cuh>

#include "core/common/input_error.hpp"
#include "kernels/block_reduce.cuh"
#include "kernels/cuda_backend.hpp"
#include "kernels/cuda_check.hpp"
#include "kernels/device_scratch.cuh"

namespace proteus::cuda {
namespace {

constexpr int kEmbeddingThreads = 128;

__global__ void embedding_forward_kernel(float* out, const int32_t* tokens, const float* wte, int C) {
  const size_t n = blockIdx.x;
  const float* row = wte + static_cast<size_t>(tokens[n]) * C;
  for (int c = threadIdx.x; c < C; c += blockDim.x) out[n * C + c] = row[c];
}

__global__ void iota_kernel(int32_t* rows, int N) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += gridDim.x * blockDim.x) rows[i] = i;
}

// sorted_tokens: the ids in ascending order; sorted_rows: their rows, ascending within a token
// (the sort is stable). Block r0 owns the token whose run starts at r0; other blocks exit.
__global__ void embedding_backward_kernel(float* dwte, const float* dout, const int32_t* sorted_tokens,
                                          const int32_t* sorted_rows, int N, int C) {
  for (int r0 = blockIdx.x; r0 < N; r0 += gridDim.x) {
    const int32_t token = sorted_tokens[r0];
    if (r0 > 0 && sorted_tokens[r0 - 1] == token) continue;  // the same for the whole block
    float* dst = dwte + static_cast<size_t>(token) * C;
    for (int c = threadIdx.x; c < C; c += blockDim.x) {
      float acc = dst[c];
      for (int r = r0; r < N && sorted_tokens[r] == token; ++r) acc += dout[static_cast<size_t>(sorted_rows[r]) * C + c];
      dst[c] = acc;
    }
  }
}

}  // namespace

void CudaBackend::embedding_forward(float* out, const int32_t* tokens, const float* wte, int N, int C) {
  if (N <= 0 || C <= 0) return;
  embedding_forward_kernel<<<N, kEmbeddingThreads>>>(out, tokens, wte, C);
  check_launch("embedding_forward");
}

void CudaBackend::embedding_backward(float* dwte, const float* dout, const int32_t* tokens, int N, int C) {
  if (N <= 0 || C <= 0) return;
  DeviceScratch<int32_t> rows(N, nullptr, "embedding_backward (rows)");
  DeviceScratch<int32_t> sorted_rows(N, nullptr, "embedding_backward (sorted rows)");
  DeviceScratch<int32_t> sorted_tokens(N, nullptr, "embedding_backward (sorted tokens)");
  iota_kernel<<<blocks_for(N, kThreads), kThreads>>>(rows.get(), N);
  check_launch("embedding_backward (rows)");
  size_t temp_bytes = 0;
  check(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, tokens, sorted_tokens.get(), rows.get(),
                                        sorted_rows.get(), N),
        "embedding_backward (sort size)");
  DeviceScratch<unsigned char> temp(temp_bytes, nullptr, "embedding_backward (sort scratch)");
  check(cub::DeviceRadixSort::SortPairs(temp.get(), temp_bytes, tokens, sorted_tokens.get(), rows.get(),
                                        sorted_rows.get(), N),
        "embedding_backward (sort)");
  embedding_backward_kernel<<<blocks_for(N, 1), kEmbeddingThreads>>>(dwte, dout, sorted_tokens.get(),
                                                                     sorted_rows.get(), N, C);
  check_launch("embedding_backward");
}

}  // namespace proteus::cuda
