// The gated memory rules' forward (math.md section 3), recurrent, one thread block per (batch, head),
// time in order; the CUDA twin of the CPU families' forwards (core/memory/rule_family.hpp).
// Templated on the rule, it branches on the rule's traits (core/memory/rule_traits.hpp) only.
// Each step n (0-based, t = n + 1), with end = end(k(t)) the active prefix:
//   1. the erasing and momentum rules: the prediction (G ⊙ S_{t-1})^T e per value column (column
//      threads, rows ascending as on the CPU), giving the correction r = v - sigma pred or the surprise.
//   2. every element: locked ones (x >= end) are copied bit for bit, active ones take the
//      ungated update; S_t (and Z_t) go straight to the tape, which is the working state.
//   3. the read o_t = (G ⊙ S_t)^T q_t per value column.
// The state lives in global memory (the tape must be written anyway; one head's state is small
// enough for L1/L2). Locked elements are never computed on, so E = 1 and a schedule that opens
// every block at t = 1 run the same instructions on the same data: the same bits.
#include <cuda_runtime.h>

#include <string>

#include "core/common/input_error.hpp"
#include "kernels/block_reduce.cuh"
#include "kernels/cuda_backend.hpp"
#include "kernels/cuda_check.hpp"
#include "kernels/device.hpp"
#include "kernels/device_scratch.cuh"
#include "kernels/memory_rule_kernels.cuh"
#include "kernels/memory_rule_chunked.hpp"
#include "kernels/memory_rule_state.hpp"

namespace proteus::cuda {
namespace {

using memory::Rule;

template <Rule kRule>
__global__ void __launch_bounds__(kThreads) memory_rule_forward_kernel(RuleKernelArgs args, float* o) {
  constexpr memory::RuleTraits kTraits = memory::rule_traits(kRule);
  constexpr bool kMomentum = memory::rule_has_momentum(kRule);
  constexpr bool kWindow = kTraits.uses_gamma;
  extern __shared__ float shared[];
  float* corr = shared;  // (d_v): r = v - sigma pred (erasing) or err = pred - v (momentum)
  const int T = args.T, H = args.H, d_k = args.d_k, d_v = args.d_v;
  const int D = d_k * d_v;
  const int bh = blockIdx.x, b = bh / H, h = bh % H;
  float* S = args.S + static_cast<size_t>(bh) * (T + 1) * D;
  float* Z = kMomentum ? args.Z + static_cast<size_t>(bh) * (T + 1) * D : nullptr;

  for (int n = 0; n < T; ++n) {
    const int end = args.ends[n];
    const size_t tok = token_index(b, n, h, T, H);
    const float a = args.a && !kTraits.per_key_retention ? args.a[tok] : 1.0f;  // else a row: row_retention
    const float* Sp = S + static_cast<size_t>(n) * D;
    float* Sn = S + static_cast<size_t>(n + 1) * D;
    const float* kn = args.k + tok * d_k;
    const float* vn = args.v + tok * d_v;

    if constexpr (memory::rule_predicts(kRule)) {
      const float* e = kTraits.uses_p ? args.p + tok * d_k : kn;
      const float sigma = kTraits.decayed_prediction ? a : 1.0f;
      for (int j = threadIdx.x; j < d_v; j += blockDim.x) {
        const float pred = gated_column_dot(Sp, e, j, end, d_v);
        corr[j] = kMomentum ? pred - vn[j] : vn[j] - sigma * pred;
      }
      __syncthreads();
    }

    const float beta = kTraits.uses_beta ? args.beta[tok] : 0.0f;
    const float eta = kMomentum && args.eta ? args.eta[tok] : 0.0f;
    const int terms = kWindow ? min(args.window, n + 1) : 1;  // window terms before t = 1 are left out
    const float* Zp = kMomentum ? Z + static_cast<size_t>(n) * D : nullptr;
    float* Zn = kMomentum ? Z + static_cast<size_t>(n + 1) * D : nullptr;
    for (int x = threadIdx.x; x < D; x += blockDim.x) {
      if (x >= end) {  // locked: keeps its bits, decay and momentum included
        Sn[x] = Sp[x];
        if constexpr (kMomentum) Zn[x] = Zp[x];
        continue;
      }
      const int i = x / d_v, j = x - i * d_v;
      if constexpr (kTraits.family == memory::RuleFamily::hebbian && !kWindow) {
        Sn[x] = row_retention<kTraits.per_key_retention>(args, tok, i, a) * Sp[x] + (beta * kn[i]) * vn[j];
      } else if constexpr (kWindow) {
        float acc = a * Sp[x];
        for (int w = 0; w < terms; ++w) {
          const size_t tw = tok - static_cast<size_t>(w) * H;  // token n - w of this head
          acc += (args.gamma[tok * args.window + w] * args.k[tw * d_k + i]) * args.v[tw * d_v + j];
        }
        Sn[x] = acc;
      } else if constexpr (kMomentum) {
        const float z = eta * Zp[x] - (beta * kn[i]) * corr[j];
        Zn[x] = z;
        Sn[x] = a * Sp[x] + z;
      } else {  // erasing
        Sn[x] = a * Sp[x] + (beta * kn[i]) * corr[j];
      }
    }
    __syncthreads();  // S_t complete before it is read, and corr free for the next step

    const float* qn = args.q + tok * d_k;
    for (int j = threadIdx.x; j < d_v; j += blockDim.x) o[tok * d_v + j] = gated_column_dot(Sn, qn, j, end, d_v);
  }
}

template <Rule kRule>
void launch_forward(const RuleKernelArgs& args, float* o, int heads) {
  const size_t shared = static_cast<size_t>(args.d_v) * sizeof(float);
  memory_rule_forward_kernel<kRule><<<heads, kThreads, shared>>>(args, o);
}

}  // namespace

// The chunked kernels where the form resolves to chunked (and the self-check has not refused
// them for this rule) and they cover the shape; the recurrent kernel otherwise: the same rule.
memory::RuleForm CudaBackend::form_to_run(const backend::MemoryRuleArgs<float>& args) const {
  const memory::RuleForm form = Backend<float>::form_to_run(args);
  if (form == memory::RuleForm::chunked && !chunked_kernels_cover(args.rule, args.d_k, chunk_to_run(args)))
    return memory::RuleForm::recurrent;
  return form;
}

int CudaBackend::chunk_to_run(const backend::MemoryRuleArgs<float>& args) const { return chunked_chunk_size(args); }

std::unique_ptr<backend::OpState> CudaBackend::memory_rule_forward(float* o,
                                                                   const backend::MemoryRuleArgs<float>& args) {
  check_rule_args(args);
  if (form_to_run(args) == memory::RuleForm::chunked) return chunked_memory_rule_forward(cublas_, o, args);
  auto state = std::make_unique<CudaRuleState>();
  state->rule = args.rule;
  state->B = args.B;
  state->T = args.T;
  state->H = args.H;
  state->d_k = args.d_k;
  state->d_v = args.d_v;
  state->window = memory::rule_uses_gamma(args.rule) ? args.window : 0;
  const size_t tape = state->tape_size();
  // S_0 = 0 (and Z_0 = 0): the tapes start zeroed; every later state is written by the kernel.
  check(cudaMalloc(reinterpret_cast<void**>(&state->S), tape * sizeof(float)), "memory_rule_forward (tape S)");
  check(cudaMemsetAsync(state->S, 0, tape * sizeof(float)), "memory_rule_forward (tape S)");
  if (memory::rule_has_momentum(args.rule)) {
    check(cudaMalloc(reinterpret_cast<void**>(&state->Z), tape * sizeof(float)), "memory_rule_forward (tape Z)");
    check(cudaMemsetAsync(state->Z, 0, tape * sizeof(float)), "memory_rule_forward (tape Z)");
  }
  const int heads = args.B * args.H;
  if (heads == 0 || args.T == 0) return state;
  check_rule_shared_memory(args.d_v, 1);

  const auto ends = active_prefix_table(*args.schedule, args.T);
  DeviceScratch<int32_t> dends(ends.data(), ends.size(), nullptr, "memory_rule_forward (active prefix)");
  const RuleKernelArgs kargs = kernel_args(args, dends.get(), state->S, state->Z);
  memory::visit_rule(args.rule, [&](auto rule) {  // no instance for a rule the kernels refuse (check_rule_args)
    if constexpr (kernels_read_retention_of(decltype(rule)::value)) launch_forward<decltype(rule)::value>(kargs, o, heads);
  });
  check_launch("memory_rule_forward");
  return state;
}

}  // namespace proteus::cuda
