// The gated memory rules' backward, recurrent, one thread block per (batch, head), time in
// reverse; the CUDA twin of the CPU families' backwards (core/memory/rule_family.hpp), step for
// step, branching on the rule's traits only. The forward's tape gives S_{t-1}, S_t (and Z_{t-1});
// the adjoints dS (and the momentum's dZ)
// of the running state live in a per-head scratch, starting at dS_T = 0.
// Gradient outputs are zeroed first and accumulated into, which is the CPU's overwrite: every
// element either receives its sum here or stays 0 (rows past the active prefix, say). Within a
// step a row is written by one thread and a column by one thread; steps are separated by
// barriers, so nothing races and nothing needs atomics.
// Active adjoints follow the ungated backward; locked adjoints pass through unchanged, as the
// locked elements did in the forward.
#include <cuda_runtime.h>

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

struct RuleGradArgs {
  const float* dO = nullptr;  // (B, T, H, d_v), null = 0
  float *q = nullptr, *k = nullptr, *v = nullptr, *beta = nullptr, *a = nullptr, *p = nullptr, *eta = nullptr,
        *gamma = nullptr;  // zeroed; null = not wanted
  float* dS = nullptr;     // (B, H, d_k, d_v) scratch, zeroed
  float* dZ = nullptr;     // the momentum's
};

// One step's inputs and the block's workspace, shared by the step functions below.
struct BackwardStep {
  int n = 0, end = 0, rows = 0;
  size_t tok = 0;
  float a = 1.0f, beta = 0.0f;
  const float *Sp = nullptr, *Sn = nullptr, *kn = nullptr, *vn = nullptr;  // S_{t-1}, S_t, k_t, v_t
};
struct BackwardWork {
  float *pred, *corr, *dcorr, *scratch;  // shared: (d_v) each, and block_sum's
  float *dS, *dZ;                        // this head's adjoints (dZ: momentum)
  const float* Z;                        // this head's tape of Z (momentum)
};

// The read o_t = (G ⊙ S_t)^T q_t: dq_t = (G ⊙ S_t) dO_t, dS += G ⊙ (q_t dO_t^T); then the
// prediction (G ⊙ S_{t-1})^T e and the error the rule writes with. Ends on a barrier.
template <Rule kRule>
__device__ void read_and_predict_backward(const RuleKernelArgs& args, const RuleGradArgs& g, const BackwardStep& s,
                                          const BackwardWork& w) {
  const int d_k = args.d_k, d_v = args.d_v;
  if (g.dO) {
    const float* dOn = g.dO + s.tok * d_v;
    const float* qn = args.q + s.tok * d_k;
    if (g.q)
      for (int i = threadIdx.x; i < s.rows; i += blockDim.x) g.q[s.tok * d_k + i] = gated_row_dot(s.Sn, dOn, i, s.end, d_v);
    for (int x = threadIdx.x; x < s.end; x += blockDim.x) {
      const int i = x / d_v, j = x - i * d_v;
      w.dS[x] += qn[i] * dOn[j];
    }
  }
  if constexpr (memory::rule_predicts(kRule)) {
    constexpr memory::RuleTraits kTraits = memory::rule_traits(kRule);
    const float* e = kTraits.uses_p ? args.p + s.tok * d_k : s.kn;
    const float sigma = kTraits.decayed_prediction ? s.a : 1.0f;
    for (int j = threadIdx.x; j < d_v; j += blockDim.x) {
      const float pj = gated_column_dot(s.Sp, e, j, s.end, d_v);
      w.pred[j] = pj;
      w.corr[j] = memory::rule_has_momentum(kRule) ? pj - s.vn[j] : s.vn[j] - sigma * pj;
    }
  }
  __syncthreads();
}

// hebbian: S_t = a S + sum_w weight_w k_w v_w^T on active elements; W = G ⊙ dS. With a retention
// per key row (diag(a_t) S), da_t[i] is row i's sum, one thread a row, columns ascending (the CPU's order).
template <Rule kRule>
__device__ void hebbian_step_backward(const RuleKernelArgs& args, const RuleGradArgs& g, const BackwardStep& s,
                                      const BackwardWork& w) {
  const int H = args.H, d_k = args.d_k, d_v = args.d_v;
  constexpr bool kPerKey = memory::rule_traits(kRule).per_key_retention;
  float da_part = 0.0f;
  if constexpr (kPerKey) {
    if (g.a)
      for (int i = threadIdx.x; i < s.rows; i += blockDim.x) {
        const int cols = active_cols(s.end, i, d_v);
        const size_t row = static_cast<size_t>(i) * d_v;
        float acc = 0.0f;
        for (int j = 0; j < cols; ++j) acc += w.dS[row + j] * s.Sp[row + j];
        g.a[s.tok * d_k + i] += acc;
      }
  } else {
    for (int x = threadIdx.x; x < s.end; x += blockDim.x) da_part += w.dS[x] * s.Sp[x];
  }
  constexpr bool kWindow = memory::rule_uses_gamma(kRule);
  const int terms = kWindow ? min(args.window, s.n + 1) : 1;
  for (int l = 0; l < terms; ++l) {
    const size_t tw = s.tok - static_cast<size_t>(l) * H;  // token n - l of this head
    const float weight = kWindow ? args.gamma[s.tok * args.window + l] : s.beta;
    const float* kw = args.k + tw * d_k;
    const float* vw = args.v + tw * d_v;
    float dweight_part = 0.0f;
    for (int i = threadIdx.x; i < s.rows; i += blockDim.x) {
      const float Wv = gated_row_dot(w.dS, vw, i, s.end, d_v);
      dweight_part += kw[i] * Wv;
      if (g.k) g.k[tw * d_k + i] += weight * Wv;
    }
    if (g.v)
      for (int j = threadIdx.x; j < d_v && j < s.end; j += blockDim.x)
        g.v[tw * d_v + j] += weight * gated_column_dot(w.dS, kw, j, s.end, d_v);
    const float dweight = block_sum(dweight_part, w.scratch);
    if (threadIdx.x == 0) {
      if (!kWindow && g.beta) g.beta[s.tok] += dweight;
      if (kWindow && g.gamma) g.gamma[s.tok * args.window + l] += dweight;
    }
  }
  const float da = block_sum(da_part, w.scratch);  // its barriers also end every read of dS above
  if (threadIdx.x == 0 && g.a && !kPerKey) g.a[s.tok] += da;
  for (int x = threadIdx.x; x < s.end; x += blockDim.x)  // locked adjoints pass unchanged
    w.dS[x] *= row_retention<kPerKey>(args, s.tok, x / d_v, s.a);
  __syncthreads();
}

// erasing: S_t = a S + beta k r^T on active elements, r = v - sigma (G ⊙ S)^T e; W = G ⊙ dS.
template <Rule kRule>
__device__ void erasing_step_backward(const RuleKernelArgs& args, const RuleGradArgs& g, const BackwardStep& s,
                                      const BackwardWork& w) {
  constexpr memory::RuleTraits kTraits = memory::rule_traits(kRule);
  const int d_k = args.d_k, d_v = args.d_v;
  const float sigma = kTraits.decayed_prediction ? s.a : 1.0f;
  float dbeta_part = 0.0f, da_part = 0.0f;
  for (int i = threadIdx.x; i < s.rows; i += blockDim.x) {
    const float Wr = gated_row_dot(w.dS, w.corr, i, s.end, d_v);
    dbeta_part += s.kn[i] * Wr;
    if (g.k) g.k[s.tok * d_k + i] += s.beta * Wr;
  }
  for (int j = threadIdx.x; j < d_v; j += blockDim.x) w.dcorr[j] = gated_column_dot(w.dS, s.kn, j, s.end, d_v) * s.beta;
  for (int x = threadIdx.x; x < s.end; x += blockDim.x) da_part += w.dS[x] * s.Sp[x];
  __syncthreads();  // dcorr complete
  for (int j = threadIdx.x; j < d_v; j += blockDim.x) {
    if (g.v) g.v[s.tok * d_v + j] += w.dcorr[j];
    if (kTraits.decayed_prediction) da_part -= w.dcorr[j] * w.pred[j];  // sigma = a scales the prediction
  }
  const float dbeta = block_sum(dbeta_part, w.scratch);
  const float da = block_sum(da_part, w.scratch);  // its barriers also end every read of dS above
  if (threadIdx.x == 0) {
    if (g.beta) g.beta[s.tok] += dbeta;
    if (g.a) g.a[s.tok] += da;
  }
  // Through the prediction: dpred = -sigma dr; de = (G ⊙ S) dpred, dS = a dS + G ⊙ (e dpred^T).
  const float* e = kTraits.uses_p ? args.p + s.tok * d_k : s.kn;
  float* ge = kTraits.uses_p ? g.p : g.k;
  for (int i = threadIdx.x; i < s.rows; i += blockDim.x) {
    const int cols = active_cols(s.end, i, d_v);
    const float* row = s.Sp + static_cast<size_t>(i) * d_v;
    float acc = 0.0f;
    for (int j = 0; j < cols; ++j) acc += row[j] * (-sigma * w.dcorr[j]);
    if (ge) ge[s.tok * d_k + i] += acc;
  }
  for (int x = threadIdx.x; x < s.end; x += blockDim.x) {
    const int i = x / d_v, j = x - i * d_v;
    w.dS[x] = s.a * w.dS[x] + e[i] * (-sigma * w.dcorr[j]);
  }
  __syncthreads();
}

// momentum: Z_t = eta Z + G ⊙ (-beta k err^T), S_t = a S + Z_t on active elements; V = dZ_t + dS_t
// is Z_t's total adjoint (it reaches the loss directly and through S_t).
__device__ void momentum_step_backward(const RuleKernelArgs& args, const RuleGradArgs& g, const BackwardStep& s,
                                     const BackwardWork& w) {
  const int d_k = args.d_k, d_v = args.d_v, D = d_k * d_v;
  const float eta = args.eta ? args.eta[s.tok] : 0.0f;
  const float* Zp = w.Z + static_cast<size_t>(s.n) * D;
  float *dS = w.dS, *dZ = w.dZ;
  float da_part = 0.0f, deta_part = 0.0f, dbeta_part = 0.0f;
  for (int x = threadIdx.x; x < s.end; x += blockDim.x) {
    const float V = dZ[x] + dS[x];
    da_part += dS[x] * s.Sp[x];
    deta_part += V * Zp[x];
  }
  for (int i = threadIdx.x; i < s.rows; i += blockDim.x) {
    const int cols = active_cols(s.end, i, d_v);
    const size_t row = static_cast<size_t>(i) * d_v;
    float Ve = 0.0f;
    for (int j = 0; j < cols; ++j) Ve += (dZ[row + j] + dS[row + j]) * w.corr[j];
    dbeta_part -= s.kn[i] * Ve;
    if (g.k) g.k[s.tok * d_k + i] -= s.beta * Ve;
  }
  for (int j = threadIdx.x; j < d_v; j += blockDim.x) {
    float acc = 0.0f;
    int i = 0;
    for (int x = j; x < s.end; x += d_v, ++i) acc += (dZ[x] + dS[x]) * s.kn[i];
    w.dcorr[j] = -s.beta * acc;
  }
  __syncthreads();  // dcorr complete, every read of the old dZ, dS done
  // Through err = (G ⊙ S_{t-1})^T k - v.
  if (g.v)
    for (int j = threadIdx.x; j < d_v; j += blockDim.x) g.v[s.tok * d_v + j] -= w.dcorr[j];
  for (int i = threadIdx.x; i < s.rows; i += blockDim.x) {
    const float acc = gated_row_dot(s.Sp, w.dcorr, i, s.end, d_v);
    if (g.k) g.k[s.tok * d_k + i] += acc;
  }
  for (int x = threadIdx.x; x < s.end; x += blockDim.x) {
    const int i = x / d_v, j = x - i * d_v;
    const float V = dZ[x] + dS[x];
    dZ[x] = eta * V;
    dS[x] = s.a * dS[x] + s.kn[i] * w.dcorr[j];
  }
  const float da = block_sum(da_part, w.scratch);
  const float deta = block_sum(deta_part, w.scratch);
  const float dbeta = block_sum(dbeta_part, w.scratch);  // its barriers also end this step's writes
  if (threadIdx.x == 0) {
    if (g.a) g.a[s.tok] += da;
    if (g.eta) g.eta[s.tok] += deta;
    if (g.beta) g.beta[s.tok] += dbeta;
  }
}

template <Rule kRule>
__global__ void __launch_bounds__(kThreads) memory_rule_backward_kernel(RuleKernelArgs args, RuleGradArgs g) {
  extern __shared__ float shared[];
  __shared__ float scratch[32];
  const int T = args.T, H = args.H, d_k = args.d_k, d_v = args.d_v;
  const int D = d_k * d_v;
  const int bh = blockIdx.x, b = bh / H, h = bh % H;
  const float* S = args.S + static_cast<size_t>(bh) * (T + 1) * D;
  constexpr memory::RuleFamily kFamily = memory::rule_traits(kRule).family;
  constexpr bool kMomentum = kFamily == memory::RuleFamily::momentum;
  // pred: (G ⊙ S_{t-1})^T e; corr: r = v - sigma pred, or the surprise err = pred - v; dcorr: dL/dr or dL/derr.
  BackwardWork w{shared, shared + d_v, shared + 2 * d_v, scratch, g.dS + static_cast<size_t>(bh) * D,
                 kMomentum ? g.dZ + static_cast<size_t>(bh) * D : nullptr,
                 kMomentum ? args.Z + static_cast<size_t>(bh) * (T + 1) * D : nullptr};
  for (int n = T - 1; n >= 0; --n) {
    BackwardStep s;
    s.n = n;
    s.end = args.ends[n];
    s.rows = rows_touched(s.end, d_v);
    s.tok = token_index(b, n, h, T, H);
    s.a = args.a && !memory::rule_traits(kRule).per_key_retention ? args.a[s.tok] : 1.0f;  // else row_retention
    s.beta = memory::rule_uses_beta(kRule) ? args.beta[s.tok] : 0.0f;
    s.Sp = S + static_cast<size_t>(n) * D;
    s.Sn = S + static_cast<size_t>(n + 1) * D;
    s.kn = args.k + s.tok * d_k;
    s.vn = args.v + s.tok * d_v;
    read_and_predict_backward<kRule>(args, g, s, w);
    if constexpr (kFamily == memory::RuleFamily::hebbian) hebbian_step_backward<kRule>(args, g, s, w);
    else if constexpr (kFamily == memory::RuleFamily::erasing) erasing_step_backward<kRule>(args, g, s, w);
    else momentum_step_backward(args, g, s, w);
  }
}

template <Rule kRule>
void launch_backward(const RuleKernelArgs& args, const RuleGradArgs& g, int heads) {
  const size_t shared = static_cast<size_t>(kRuleBackwardVectors) * args.d_v * sizeof(float);
  memory_rule_backward_kernel<kRule><<<heads, kThreads, shared>>>(args, g);
}

void zero(float* p, size_t n, const char* what) {
  if (p && n) check(cudaMemsetAsync(p, 0, n * sizeof(float)), what);
}

}  // namespace

void CudaBackend::memory_rule_backward(const backend::MemoryRuleGrads<float>& grads, const float* dO,
                                       const backend::MemoryRuleArgs<float>& args, const backend::OpState& state) {
  check_rule_args(args);
  if (const auto* chunked = dynamic_cast<const CudaChunkedState*>(&state)) {
    if (chunked->rule != args.rule || chunked->B != args.B || chunked->T != args.T || chunked->H != args.H ||
        chunked->d_k != args.d_k || chunked->d_v != args.d_v)
      throw InputError("state", "comes from a forward of another rule or other shapes");
    chunked_memory_rule_backward(cublas_, grads, dO, args, *chunked);
    return;
  }
  const CudaRuleState& st = rule_state(state, args);
  const Rule rule = args.rule;
  const size_t n = static_cast<size_t>(args.B) * args.T * args.H;
  RuleGradArgs g;
  g.dO = dO;
  // The gradients the CPU writes: q, k, v, a always; the rest for the rules that take them.
  g.q = grads.q;
  g.k = grads.k;
  g.v = grads.v;
  g.a = grads.a;
  g.beta = memory::rule_uses_beta(rule) ? grads.beta : nullptr;
  g.p = memory::rule_uses_p(rule) ? grads.p : nullptr;
  g.eta = memory::rule_uses_eta(rule) ? grads.eta : nullptr;
  g.gamma = memory::rule_uses_gamma(rule) ? grads.gamma : nullptr;
  const char* what = "memory_rule_backward (zero gradients)";
  zero(g.q, n * args.d_k, what);
  zero(g.k, n * args.d_k, what);
  zero(g.v, n * args.d_v, what);
  zero(g.a, n * memory::retention_width(rule, args.d_k), what);
  zero(g.beta, n, what);
  zero(g.p, n * args.d_k, what);
  zero(g.eta, n, what);
  zero(g.gamma, n * st.window, what);
  const int heads = args.B * args.H;
  if (heads == 0 || args.T == 0) return;
  check_rule_shared_memory(args.d_v, kRuleBackwardVectors);

  const size_t adjoints = static_cast<size_t>(heads) * st.D();
  DeviceScratch<float> dS(adjoints, nullptr, "memory_rule_backward (dS)");
  dS.zero(adjoints, "memory_rule_backward (dS)");
  const bool momentum = memory::rule_has_momentum(rule);
  DeviceScratch<float> dZ(momentum ? adjoints : 0, nullptr, "memory_rule_backward (dZ)");
  if (momentum) dZ.zero(adjoints, "memory_rule_backward (dZ)");
  g.dS = dS.get();
  g.dZ = momentum ? dZ.get() : nullptr;

  const auto ends = active_prefix_table(*args.schedule, args.T);
  DeviceScratch<int32_t> dends(ends.data(), ends.size(), nullptr, "memory_rule_backward (active prefix)");
  const RuleKernelArgs kargs = kernel_args(args, dends.get(), st.S, st.Z);
  memory::visit_rule(rule, [&](auto r) {  // no instance for a rule the kernels refuse (check_rule_args)
    if constexpr (kernels_read_retention_of(decltype(r)::value)) launch_backward<decltype(r)::value>(kargs, g, heads);
  });
  check_launch("memory_rule_backward");
}

}  // namespace proteus::cuda
