// What the memory rule's forward and backward kernels share: their arguments, the (B, T, H, .)
// indexing, and the walks over the active prefix [0, end) of a row-major (d_k, d_v) state,
// in the CPU's summation order (core/memory/active_prefix.hpp): column j's active rows are the
// i with i * d_v + j < end, row i's active columns the first clamp(end - i d_v, 0, d_v).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "core/backend/ops/backend.hpp"
#include "core/common/input_error.hpp"
#include "core/memory/active_prefix_bounds.hpp"
#include "kernels/rule_limits.hpp"

namespace proteus::cuda {

struct RuleKernelArgs {
  int T = 0, H = 0, d_k = 0, d_v = 0, window = 0;
  const float *q = nullptr, *k = nullptr, *v = nullptr, *beta = nullptr, *a = nullptr, *p = nullptr,
              *eta = nullptr, *gamma = nullptr;
  const int32_t* ends = nullptr;  // (T) end(k(t)) on the device
  float* S = nullptr;             // (B, H, T+1, d_k, d_v) tape
  float* Z = nullptr;             // the momentum's tape (rule_has_momentum)
};

inline RuleKernelArgs kernel_args(const backend::MemoryRuleArgs<float>& args, const int32_t* ends, float* S,
                                  float* Z) {
  RuleKernelArgs k;
  k.T = args.T;
  k.H = args.H;
  k.d_k = args.d_k;
  k.d_v = args.d_v;
  k.window = memory::rule_uses_gamma(args.rule) ? args.window : 0;
  k.q = args.q;
  k.k = args.k;
  k.v = args.v;
  k.beta = memory::rule_uses_beta(args.rule) ? args.beta : nullptr;
  k.a = args.a;
  k.p = memory::rule_uses_p(args.rule) ? args.p : nullptr;
  k.eta = memory::rule_uses_eta(args.rule) ? args.eta : nullptr;
  k.gamma = memory::rule_uses_gamma(args.rule) ? args.gamma : nullptr;
  k.ends = ends;
  k.S = S;
  k.Z = Z;
  return k;
}

// The kernels keep `vectors` value-width vectors in shared memory (rule_limits.hpp); d_v that
// wide is far outside any model here.
inline void check_rule_shared_memory(int d_v, int vectors) {
  const size_t bytes = static_cast<size_t>(d_v) * vectors * sizeof(float) + kRuleStaticSharedBytes;
  if (bytes > kRuleSharedBytes)
    throw InputError("d_v", "value width " + std::to_string(d_v) + " is too wide for the CUDA memory-rule kernels");
}

// The row of token n of head (b, h) in a (B, T, H, width) tensor, in units of width.
__device__ inline size_t token_index(int b, int n, int h, int T, int H) {
  return (static_cast<size_t>(b) * T + n) * H + h;
}


// The retention of key row i at token `tok`: a row of d_k a step for a rule with per_key_retention
// (diag(a_t) S), else the step's one `a`.
template <bool kPerKey>
__device__ inline float row_retention(const RuleKernelArgs& args, size_t tok, int i, float a) {
  if constexpr (kPerKey) return args.a ? args.a[tok * args.d_k + i] : 1.0f;
  return a;
}

// sum over active rows i of column j: M[i, j] e[i], rows ascending.
__device__ inline float gated_column_dot(const float* M, const float* e, int j, int end, int d_v) {
  float acc = 0.0f;
  int i = 0;
  for (int x = j; x < end; x += d_v, ++i) acc += M[x] * e[i];
  return acc;
}

// Active rows and each row's active columns (core/memory/active_prefix_bounds.hpp, the CPU's too), in int.
__device__ inline int rows_touched(int end, int d_v) { return memory::rows_touched<int>(end, d_v); }
__device__ inline int active_cols(int end, int i, int d_v) { return memory::active_cols<int>(end, i, d_v); }

// sum over active columns j of row i: M[i, j] f[j], columns ascending.
__device__ inline float gated_row_dot(const float* M, const float* f, int i, int end, int d_v) {
  const int cols = active_cols(end, i, d_v);
  const float* row = M + static_cast<size_t>(i) * d_v;
  float acc = 0.0f;
  for (int j = 0; j < cols; ++j) acc += row[j] * f[j];
  return acc;
}

}  // namespace proteus::cuda
