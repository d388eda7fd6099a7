// Block occupancy: the norm of each of n_blocks contiguous element ranges of every state S_t,
// read from the forward's tape. One warp per (head, t, block), the squares summed in double in a
// fixed lane order; out (B, H, T, n_blocks).
#include <cuda_runtime.h>

#include <string>

#include "core/common/input_error.hpp"
#include "kernels/block_reduce.cuh"
#include "kernels/cuda_backend.hpp"
#include "kernels/cuda_check.hpp"
#include "kernels/device_scratch.cuh"
#include "kernels/memory_rule_chunked.hpp"
#include "kernels/memory_rule_state.hpp"

namespace proteus::cuda {
namespace {

__global__ void block_norms_kernel(float* out, const float* S, int T, int64_t D, int n_blocks, size_t outputs) {
  const size_t warps = static_cast<size_t>(gridDim.x) * (blockDim.x / 32);
  const int lane = threadIdx.x & 31;
  const int64_t size = D / n_blocks;
  for (size_t w = blockIdx.x * static_cast<size_t>(blockDim.x / 32) + threadIdx.x / 32; w < outputs; w += warps) {
    const int blk = static_cast<int>(w % n_blocks);
    const size_t ht = w / n_blocks;  // (head, t)
    const size_t head = ht / T, t = ht % T;
    const float* St = S + (head * (T + 1) + t + 1) * D;
    const int64_t e0 = blk * size, e1 = blk + 1 == n_blocks ? D : e0 + size;  // the last absorbs the rest
    double ss = 0.0;
    for (int64_t e = e0 + lane; e < e1; e += 32) ss += static_cast<double>(St[e]) * St[e];
    ss = warp_sum(ss);
    if (lane == 0) out[w] = static_cast<float>(sqrt(ss));
  }
}

}  // namespace

void CudaBackend::memory_block_norms(float* out, const backend::MemoryRuleArgs<float>& args,
                                     const backend::OpState& state, int n_blocks) {
  if (dynamic_cast<const CudaChunkedState*>(&state)) {
    // The chunked form keeps chunk-start states only: the recurrent kernel replays every S_t
    // (block occupancy is an evaluation, not a training step, so the tape is affordable here).
    backend::MemoryRuleArgs<float> recurrent = args;
    recurrent.form = memory::RuleForm::recurrent;
    DeviceScratch<float> o(static_cast<size_t>(args.B) * args.T * args.H * args.d_v, nullptr, "memory_block_norms (o)");
    const auto replay = memory_rule_forward(o.get(), recurrent);
    memory_block_norms(out, args, *replay, n_blocks);
    return;
  }
  const CudaRuleState& st = rule_state(state, args);
  const int64_t D = st.D();
  if (n_blocks < 1 || n_blocks > D)
    throw InputError("n_blocks", "must be in [1, " + std::to_string(D) + "], got " + std::to_string(n_blocks));
  const size_t outputs = static_cast<size_t>(st.B) * st.H * st.T * n_blocks;
  if (!outputs) return;
  const size_t warps_per_block = kThreads / 32;
  block_norms_kernel<<<blocks_for((outputs + warps_per_block - 1) / warps_per_block, 1), kThreads>>>(
      out, st.S, st.T, D, n_blocks, outputs);
  check_launch("memory_block_norms");
}

}  // namespace proteus::cuda
