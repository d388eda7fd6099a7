// Token embedding. Tokens arrive on the host (the op list's convention), so the backward groups
// rows by token there: one thread block per distinct token adds its rows in ascending order,
// exactly the CPU's order, with no atomics.
#include <cuda_runtime.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "core/common/input_error.hpp"
#include "kernels/block_reduce.cuh"
#include "kernels/cuda_backend.hpp"
#include "kernels/cuda_check.hpp"
#include "kernels/device_scratch.cuh"

namespace proteus::cuda {
namespace {

__global__ void embedding_forward_kernel(float* out, const int32_t* tokens, const float* wte, int C) {
  const size_t n = blockIdx.x;
  const float* row = wte + static_cast<size_t>(tokens[n]) * C;
  for (int c = threadIdx.x; c < C; c += blockDim.x) out[n * C + c] = row[c];
}

// Block g owns token tokens[g]; its rows are rows[starts[g] .. starts[g+1]), ascending.
__global__ void embedding_backward_kernel(float* dwte, const float* dout, const int32_t* distinct,
                                          const int32_t* starts, const int32_t* rows, int C) {
  const int g = blockIdx.x;
  float* dst = dwte + static_cast<size_t>(distinct[g]) * C;
  for (int c = threadIdx.x; c < C; c += blockDim.x) {
    float acc = dst[c];
    for (int r = starts[g]; r < starts[g + 1]; ++r) acc += dout[static_cast<size_t>(rows[r]) * C + c];
    dst[c] = acc;
  }
}

void check_tokens(const int32_t* tokens, int N) {
  for (int n = 0; n < N; ++n)
    if (tokens[n] < 0)
      throw InputError("tokens", "token " + std::to_string(tokens[n]) + " at row " + std::to_string(n) +
                                     " is negative");
}

}  // namespace

void CudaBackend::embedding_forward(float* out, const int32_t* tokens, const float* wte, int N, int C) {
  if (N <= 0 || C <= 0) return;
  check_tokens(tokens, N);
  DeviceScratch<int32_t> dtokens(tokens, N, nullptr, "embedding_forward (tokens)");
  embedding_forward_kernel<<<N, 128>>>(out, dtokens.get(), wte, C);
  check_launch("embedding_forward");
}

void CudaBackend::embedding_backward(float* dwte, const float* dout, const int32_t* tokens, int N, int C) {
  if (N <= 0 || C <= 0) return;
  check_tokens(tokens, N);
  std::vector<int32_t> rows(N);
  std::iota(rows.begin(), rows.end(), 0);
  std::stable_sort(rows.begin(), rows.end(), [&](int32_t x, int32_t y) { return tokens[x] < tokens[y]; });
  std::vector<int32_t> distinct, starts;
  for (int r = 0; r < N; ++r)
    if (r == 0 || tokens[rows[r]] != tokens[rows[r - 1]]) {
      distinct.push_back(tokens[rows[r]]);
      starts.push_back(r);
    }
  starts.push_back(N);
  DeviceScratch<int32_t> drows(rows.data(), rows.size(), nullptr, "embedding_backward (rows)");
  DeviceScratch<int32_t> ddistinct(distinct.data(), distinct.size(), nullptr, "embedding_backward (tokens)");
  DeviceScratch<int32_t> dstarts(starts.data(), starts.size(), nullptr, "embedding_backward (starts)");
  embedding_backward_kernel<<<static_cast<int>(distinct.size()), 128>>>(dwte, dout, ddistinct.get(), dstarts.get(),
                                                                        drows.get(), C);
  check_launch("embedding_backward");
}

}  // namespace proteus::cuda
