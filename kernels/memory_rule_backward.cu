// The gated memory rules' backward, recurrent, one thread block per (batch, head), time in
// reverse; the CUDA twin of core/memory/{hebbian,delta,titans}_rule.cpp's backwards, step for
// step. The forward's tape gives S_{t-1}, S_t (and Z_{t-1}); the adjoints dS (and titans' dZ)
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
  float* dZ = nullptr;     // titans
};

template <Rule kRule>
__global__ void __launch_bounds__(kThreads) memory_rule_backward_kernel(RuleKernelArgs args, RuleGradArgs g) {
  extern __shared__ float shared[];
  __shared__ float scratch[32];
  const int T = args.T, H = args.H, d_k = args.d_k, d_v = args.d_v;
  const int D = d_k * d_v;
  float* pred = shared;             // (d_v) (G ⊙ S_{t-1})^T e
  float* corr = shared + d_v;       // (d_v) r = v - sigma pred, or titans' err = pred - v
  float* dcorr = shared + 2 * d_v;  // (d_v) dL/dr (delta, comba) or dL/derr (titans)
  const int bh = blockIdx.x, b = bh / H, h = bh % H;
  const float* S = args.S + static_cast<size_t>(bh) * (T + 1) * D;
  const float* Z = kRule == Rule::titans ? args.Z + static_cast<size_t>(bh) * (T + 1) * D : nullptr;
  float* dS = g.dS + static_cast<size_t>(bh) * D;
  float* dZ = kRule == Rule::titans ? g.dZ + static_cast<size_t>(bh) * D : nullptr;

  for (int n = T - 1; n >= 0; --n) {
    const int end = args.ends[n];
    const int rows = rows_touched(end, d_v);
    const size_t tok = token_index(b, n, h, T, H);
    const float a = args.a ? args.a[tok] : 1.0f;
    const float beta = kRule == Rule::swla ? 0.0f : args.beta[tok];
    const float* Sp = S + static_cast<size_t>(n) * D;
    const float* Sn = S + static_cast<size_t>(n + 1) * D;
    const float* kn = args.k + tok * d_k;
    const float* vn = args.v + tok * d_v;

    // The read o_t = (G ⊙ S_t)^T q_t: dq_t = (G ⊙ S_t) dO_t, dS += G ⊙ (q_t dO_t^T).
    if (g.dO) {
      const float* dOn = g.dO + tok * d_v;
      const float* qn = args.q + tok * d_k;
      if (g.q)
        for (int i = threadIdx.x; i < rows; i += blockDim.x) g.q[tok * d_k + i] = gated_row_dot(Sn, dOn, i, end, d_v);
      for (int x = threadIdx.x; x < end; x += blockDim.x) {
        const int i = x / d_v, j = x - i * d_v;
        dS[x] += qn[i] * dOn[j];
      }
    }
    if constexpr (uses_prediction(kRule)) {
      const float* e = kRule == Rule::comba ? args.p + tok * d_k : kn;
      const float sigma = kRule == Rule::delta ? a : 1.0f;
      for (int j = threadIdx.x; j < d_v; j += blockDim.x) {
        const float pj = gated_column_dot(Sp, e, j, end, d_v);
        pred[j] = pj;
        corr[j] = kRule == Rule::titans ? pj - vn[j] : vn[j] - sigma * pj;
      }
    }
    __syncthreads();

    if constexpr (kRule == Rule::linear || kRule == Rule::swla) {
      // S_t = a S + sum_w weight_w k_w v_w^T on active elements; W = G ⊙ dS.
      float da_part = 0.0f;
      for (int x = threadIdx.x; x < end; x += blockDim.x) da_part += dS[x] * Sp[x];
      const int terms = kRule == Rule::swla ? min(args.window, n + 1) : 1;
      for (int w = 0; w < terms; ++w) {
        const size_t tw = tok - static_cast<size_t>(w) * H;  // token n - w of this head
        const float weight = kRule == Rule::swla ? args.gamma[tok * args.window + w] : beta;
        const float* kw = args.k + tw * d_k;
        const float* vw = args.v + tw * d_v;
        float dweight_part = 0.0f;
        for (int i = threadIdx.x; i < rows; i += blockDim.x) {
          const float Wv = gated_row_dot(dS, vw, i, end, d_v);
          dweight_part += kw[i] * Wv;
          if (g.k) g.k[tw * d_k + i] += weight * Wv;
        }
        if (g.v)
          for (int j = threadIdx.x; j < d_v && j < end; j += blockDim.x)
            g.v[tw * d_v + j] += weight * gated_column_dot(dS, kw, j, end, d_v);
        const float dweight = block_sum(dweight_part, scratch);
        if (threadIdx.x == 0) {
          if (kRule == Rule::linear && g.beta) g.beta[tok] += dweight;
          if (kRule == Rule::swla && g.gamma) g.gamma[tok * args.window + w] += dweight;
        }
      }
      const float da = block_sum(da_part, scratch);  // its barriers also end every read of dS above
      if (threadIdx.x == 0 && g.a) g.a[tok] += da;
      for (int x = threadIdx.x; x < end; x += blockDim.x) dS[x] *= a;  // locked adjoints pass unchanged
      __syncthreads();
    } else if constexpr (kRule == Rule::delta || kRule == Rule::comba) {
      // S_t = a S + beta k r^T on active elements, r = v - sigma (G ⊙ S)^T e; W = G ⊙ dS.
      const float sigma = kRule == Rule::delta ? a : 1.0f;
      float dbeta_part = 0.0f, da_part = 0.0f;
      for (int i = threadIdx.x; i < rows; i += blockDim.x) {
        const float Wr = gated_row_dot(dS, corr, i, end, d_v);
        dbeta_part += kn[i] * Wr;
        if (g.k) g.k[tok * d_k + i] += beta * Wr;
      }
      for (int j = threadIdx.x; j < d_v; j += blockDim.x) dcorr[j] = gated_column_dot(dS, kn, j, end, d_v) * beta;
      for (int x = threadIdx.x; x < end; x += blockDim.x) da_part += dS[x] * Sp[x];
      __syncthreads();  // dcorr complete
      for (int j = threadIdx.x; j < d_v; j += blockDim.x) {
        if (g.v) g.v[tok * d_v + j] += dcorr[j];
        if (kRule == Rule::delta) da_part -= dcorr[j] * pred[j];  // sigma = a scales the prediction
      }
      const float dbeta = block_sum(dbeta_part, scratch);
      const float da = block_sum(da_part, scratch);  // its barriers also end every read of dS above
      if (threadIdx.x == 0) {
        if (g.beta) g.beta[tok] += dbeta;
        if (g.a) g.a[tok] += da;
      }
      // Through the prediction: dpred = -sigma dr; de = (G ⊙ S) dpred, dS = a dS + G ⊙ (e dpred^T).
      const float* e = kRule == Rule::comba ? args.p + tok * d_k : kn;
      float* ge = kRule == Rule::comba ? g.p : g.k;
      for (int i = threadIdx.x; i < rows; i += blockDim.x) {
        const int cols = active_cols(end, i, d_v);
        const float* row = Sp + static_cast<size_t>(i) * d_v;
        float acc = 0.0f;
        for (int j = 0; j < cols; ++j) acc += row[j] * (-sigma * dcorr[j]);
        if (ge) ge[tok * d_k + i] += acc;
      }
      for (int x = threadIdx.x; x < end; x += blockDim.x) {
        const int i = x / d_v, j = x - i * d_v;
        dS[x] = a * dS[x] + e[i] * (-sigma * dcorr[j]);
      }
      __syncthreads();
    } else {  // titans
      // Z_t = eta Z + G ⊙ (-beta k err^T), S_t = a S + Z_t on active elements; V = dZ_t + dS_t
      // is Z_t's total adjoint (it reaches the loss directly and through S_t).
      const float eta = args.eta ? args.eta[tok] : 0.0f;
      const float* Zp = Z + static_cast<size_t>(n) * D;
      float da_part = 0.0f, deta_part = 0.0f, dbeta_part = 0.0f;
      for (int x = threadIdx.x; x < end; x += blockDim.x) {
        const float V = dZ[x] + dS[x];
        da_part += dS[x] * Sp[x];
        deta_part += V * Zp[x];
      }
      for (int i = threadIdx.x; i < rows; i += blockDim.x) {
        const int cols = active_cols(end, i, d_v);
        const size_t row = static_cast<size_t>(i) * d_v;
        float Ve = 0.0f;
        for (int j = 0; j < cols; ++j) Ve += (dZ[row + j] + dS[row + j]) * corr[j];
        dbeta_part -= kn[i] * Ve;
        if (g.k) g.k[tok * d_k + i] -= beta * Ve;
      }
      for (int j = threadIdx.x; j < d_v; j += blockDim.x) {
        float acc = 0.0f;
        int i = 0;
        for (int x = j; x < end; x += d_v, ++i) acc += (dZ[x] + dS[x]) * kn[i];
        dcorr[j] = -beta * acc;
      }
      __syncthreads();  // dcorr complete, every read of the old dZ, dS done
      // Through err = (G ⊙ S_{t-1})^T k - v.
      if (g.v)
        for (int j = threadIdx.x; j < d_v; j += blockDim.x) g.v[tok * d_v + j] -= dcorr[j];
      for (int i = threadIdx.x; i < rows; i += blockDim.x) {
        const float acc = gated_row_dot(Sp, dcorr, i, end, d_v);
        if (g.k) g.k[tok * d_k + i] += acc;
      }
      for (int x = threadIdx.x; x < end; x += blockDim.x) {
        const int i = x / d_v, j = x - i * d_v;
        const float V = dZ[x] + dS[x];
        dZ[x] = eta * V;
        dS[x] = a * dS[x] + kn[i] * dcorr[j];
      }
      const float da = block_sum(da_part, scratch);
      const float deta = block_sum(deta_part, scratch);
      const float dbeta = block_sum(dbeta_part, scratch);  // its barriers also end this step's writes
      if (threadIdx.x == 0) {
        if (g.a) g.a[tok] += da;
        if (g.eta) g.eta[tok] += deta;
        if (g.beta) g.beta[tok] += dbeta;
      }
    }
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
  zero(g.a, n, what);
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
  DeviceScratch<float> dZ(rule == Rule::titans ? adjoints : 0, nullptr, "memory_rule_backward (dZ)");
  if (rule == Rule::titans) dZ.zero(adjoints, "memory_rule_backward (dZ)");
  g.dS = dS.get();
  g.dZ = rule == Rule::titans ? dZ.get() : nullptr;

  const auto ends = active_prefix_table(*args.schedule, args.T);
  DeviceScratch<int32_t> dends(ends.data(), ends.size(), nullptr, "memory_rule_backward (active prefix)");
  const RuleKernelArgs kargs = kernel_args(args, dends.get(), st.S, st.Z);
  switch (rule) {
    case Rule::linear: launch_backward<Rule::linear>(kargs, g, heads); break;
    case Rule::delta: launch_backward<Rule::delta>(kargs, g, heads); break;
    case Rule::comba: launch_backward<Rule::comba>(kargs, g, heads); break;
    case Rule::titans: launch_backward<Rule::titans>(kargs, g, heads); break;
    case Rule::swla: launch_backward<Rule::swla>(kargs, g, heads); break;
  }
  check_launch("memory_rule_backward");
}

}  // namespace proteus::cuda
