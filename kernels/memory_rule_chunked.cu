// The chunked hebbian and erasing rules on the GPU (memory_rule_chunked.hpp): which calls they take,
// and the chunk work the forward (memory_rule_chunked_forward.cu) and the backward
// (memory_rule_chunked_backward.cu) both recompute from the inputs (memory_rule_chunked_work.cuh);
// the CUDA twin of core/memory/chunked_rule.cpp, whose names (MB, MA, IA, U, Kt, dHe, ...) it keeps.
// Chunks are packed into (B H chunks, C, width) so every chunk product is one strided-batched
// FP32 GEMM; a ragged last chunk is padded with zero keys, values and write strengths and a log
// retention of 0, which changes nothing (a zero write, no decay). A chunk makes Cw = W C writes,
// write w = j C + t at step t: W = 1 (k_t v_t^T weighted by beta_t) but for window writes, which make
// W = c per step (gamma_t[j] k_{t-j} v_{t-j}^T, the key masked by m_t); K, V, bt, Kd, U are over writes.
// With Tinv = (I + diag(beta) MA)^-1 (the erasing rules, W = 1):
//   forward, parallel over chunks: MB = (Q K^T) ⊙ GB, MA = (E K^T) ⊙ GA, Tinv,
//            Ub = Tinv diag(beta) V, Wk = Tinv diag(beta e^gh) E            (hebbian: Ub = diag(bt) V)
// where E is the erase direction (K, or P) and gh its log-decay (g, or g_{t-1} for an undecayed prediction).
//   state pass, in order, parallel over heads and value tiles: U = Ub - Wk H, H' = e^{g_L} H + Kt^T U
//   output, parallel: O = diag(e^g) Q H + MB U
// The backward recomputes all of that from the chunk-start states, walks chunks in reverse for the
// state adjoint (dU = MB^T dO + Kt dHe, dH = e^{g_L} dHe + (diag(e^g) Q)^T dO - Wk^T dU), then
// forms every gradient per chunk with GEMMs and one kernel for the masks and per-step sums. A window
// write may read a token of an earlier chunk, so each token's dk and dv are gathered from the
// writes that read it (in a fixed order: no atomics), not scattered.
#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/memory/log_retention.hpp"
#include "kernels/block_reduce.cuh"
#include "kernels/cublas_library.hpp"
#include "kernels/cuda_check.hpp"
#include "kernels/device.hpp"
#include "kernels/device_scratch.cuh"
#include "kernels/memory_rule_chunked.hpp"
#include "kernels/memory_rule_chunked_work.cuh"

namespace proteus::cuda {

CudaChunkedState::~CudaChunkedState() {
  if (checkpoints) cudaFree(checkpoints);
}

bool chunked_kernels_cover(memory::Rule rule, int d_k, int chunk, std::string* why_not) {
  auto no = [&](const std::string& why) {
    if (why_not) *why_not = why;
    return false;
  };
  if (!memory::rule_has_chunked_form(rule))
    return no("the GPU's chunked kernels cover " + memory::rules_where(memory::rule_has_chunked_form) + " (" +
              std::string(memory::rule_name(rule)) + " has no chunked form)");
  const memory::RuleTraits t = memory::rule_traits(rule);
  if (t.per_key_retention)  // the recurrent kernel runs it
    return no("the GPU's chunked kernels take one retention a step (" + std::string(memory::rule_name(rule)) +
              " decays each key row at its own rate)");
  if (t.family == memory::RuleFamily::erasing && t.uses_p == t.decayed_prediction)  // one flag serves both here
    return no("the GPU's chunked kernels erase along p only from the undecayed state, and along k only from the decayed one");
  if (d_k > kChunkedMaxKeyWidth)
    return no("key width " + std::to_string(d_k) + " > " + std::to_string(kChunkedMaxKeyWidth));
  if (chunk < 1 || chunk > kChunkedMaxChunk) return no("chunk " + std::to_string(chunk) + " outside [1, " + std::to_string(kChunkedMaxChunk) + "]");
  return true;
}

int chunked_chunk_size(const backend::MemoryRuleArgs<float>& args) {
  return args.chunk > 0 ? args.chunk : kChunkedDefaultChunk;
}

namespace chunked {

void gemm(cublasContext* h, bool ta, bool tb, int m, int n, int k, float alpha, const float* A, int lda,
          long long sA, const float* B, int ldb, long long sB, float beta, float* C, int ldc, long long sC, int batch,
          const char* what) {
  if (m <= 0 || n <= 0 || batch <= 0) return;
  check_cublas(cublas().sgemm_strided_batched(h, tb ? CUBLAS_OP_T : CUBLAS_OP_N, ta ? CUBLAS_OP_T : CUBLAS_OP_N, n, m, k,
                                         &alpha, B, ldb, sB, A, lda, sA, &beta, C, ldc, sC, batch),
               what);
}

namespace {

using memory::Rule;

struct PackArgs {
  Dims d;
  const float *q, *k, *v, *beta, *a, *p, *gamma;  // gamma: (B, T, H, W) window weights, else null
  const int32_t* rows;  // (T) open key rows per step
  float *Q, *K, *V, *Qg, *Kd, *Kb, *Vb, *g, *bt;  // K, V, Kd, Vb, bt over writes; Kb null unless erasing
  float *E, *gh;  // the erase direction p (masked) and its log-decay; null otherwise (K and g serve)
};

// The token write w = j C + t of chunk c reads (j back from step t), or -1: the step is padding, or
// the term reads before the first token (left out).
__device__ inline int write_source(const Dims& d, int c, int w) {
  const int j = w / d.C, tok = c * d.C + (w - j * d.C);
  return tok < d.T && tok >= j ? tok - j : -1;
}

// One block per chunk: the cumulative log-decay, then the masked inputs (selection) and their
// decayed and weighted copies. Only non-positive numbers are exponentiated.
__global__ void pack_chunks_kernel(PackArgs p) {
  __shared__ float g[kChunkedMaxChunk], gh[kChunkedMaxChunk], beta[kChunkedMaxChunk];
  const Dims d = p.d;
  const int n = blockIdx.x, bh = n / d.NC, c = n % d.NC, b = bh / d.H, h = bh % d.H, Cw = d.Cw();
  if (threadIdx.x == 0) {
    float acc = 0.0f;
    for (int t = 0; t < d.C; ++t) {
      const int tok = c * d.C + t;
      const bool real = tok < d.T;
      const size_t r = real ? token_row(b, tok, h, d.T, d.H) : 0;
      gh[t] = p.gh ? acc : 0.0f;  // an undecayed erase reads S_{t-1}: the decay up to the step before
      acc += real && p.a ? memory::clamped_log_retention(p.a[r]) : 0.0f;
      g[t] = acc;
      if (!p.gh) gh[t] = acc;
      beta[t] = real && p.beta ? p.beta[r] : 0.0f;
    }
  }
  __syncthreads();
  const float gL = g[d.C - 1];
  for (int t = threadIdx.x; t < d.C; t += blockDim.x) {
    p.g[static_cast<size_t>(n) * d.C + t] = g[t];
    if (p.gh) p.gh[static_cast<size_t>(n) * d.C + t] = gh[t];
  }
  // Write weights: beta_t, or the window's gamma_t[j]; 0 for a write that is left out.
  const size_t base_w = static_cast<size_t>(n) * Cw;
  for (int w = threadIdx.x; w < Cw; w += blockDim.x) {
    const int j = w / d.C, t = w - j * d.C, tok = c * d.C + t;
    float weight = 0.0f;
    if (write_source(d, c, w) >= 0) weight = p.gamma ? p.gamma[token_row(b, tok, h, d.T, d.H) * d.W + j] : beta[t];
    p.bt[base_w + w] = weight;
  }
  __syncthreads();  // the value loop below reads other threads' weights
  // The read side, a row per step: Q, e^g Q, and the erase direction.
  const size_t base_k = static_cast<size_t>(n) * d.C * d.dk;
  for (int e = threadIdx.x; e < d.C * d.dk; e += blockDim.x) {
    const int t = e / d.dk, i = e - t * d.dk, tok = c * d.C + t;
    const bool open = tok < d.T && i < p.rows[min(tok, d.T - 1)];
    const size_t r = open ? token_row(b, tok, h, d.T, d.H) * d.dk + i : 0;
    const float qv = open ? p.q[r] : 0.0f;  // selection, not multiplication
    p.Q[base_k + e] = qv;
    p.Qg[base_k + e] = expf(g[t]) * qv;
    if (!p.Kb) continue;
    const float ev = open ? (p.E ? p.p[r] : p.k[r]) : 0.0f;
    if (p.E) p.E[base_k + e] = ev;
    p.Kb[base_k + e] = beta[t] * expf(gh[t]) * ev;
  }
  // The write side, a row per write: the key (masked by its step's open rows), decayed to the end.
  const size_t base_wk = base_w * d.dk, base_wv = base_w * d.dv;
  for (int e = threadIdx.x; e < Cw * d.dk; e += blockDim.x) {
    const int w = e / d.dk, i = e - w * d.dk, t = w % d.C, src = write_source(d, c, w);
    const bool open = src >= 0 && i < p.rows[c * d.C + t];
    const float kv = open ? p.k[token_row(b, src, h, d.T, d.H) * d.dk + i] : 0.0f;
    p.K[base_wk + e] = kv;
    p.Kd[base_wk + e] = expf(gL - g[t]) * kv;
  }
  for (int e = threadIdx.x; e < Cw * d.dv; e += blockDim.x) {
    const int w = e / d.dv, x = e - w * d.dv, src = write_source(d, c, w);
    const float vv = src >= 0 ? p.v[token_row(b, src, h, d.T, d.H) * d.dv + x] : 0.0f;
    p.V[base_wv + e] = vv;
    p.Vb[base_wv + e] = p.bt[base_w + w] * vv;
  }
}

// One block per chunk, a thread per row then per column: MB = Aqk ⊙ GB over the Cw writes and
// MA = Aek ⊙ GA in place (GB: e^{g_t - g_s} for a write at step s <= t, GA: e^{gh_t - g_s} for
// s < t, zero elsewhere by selection), then Tinv = (I + diag(beta) MA)^-1 by forward substitution,
// one column per thread.
__global__ void chunk_masks_kernel(Dims d, const float* g, const float* gh, const float* bt, float* MB, float* MA,
                                   float* Tinv) {
  extern __shared__ float shared[];
  float* IA = shared;           // (C, C) the strictly lower part of I + diag(beta) MA
  float* X = shared + d.C * d.C;  // (C, C) Tinv
  const int n = blockIdx.x, C = d.C, Cw = d.Cw();
  const float* gn = g + static_cast<size_t>(n) * C;
  const float* ghn = gh + static_cast<size_t>(n) * C;
  const size_t base = static_cast<size_t>(n) * C * C, base_b = static_cast<size_t>(n) * C * Cw;
  for (int t = threadIdx.x; t < C; t += blockDim.x) {
    for (int x = 0; x < Cw; ++x) {
      const int s = x % C;  // the write's step
      const size_t at = base_b + static_cast<size_t>(t) * Cw + x;
      MB[at] = s <= t ? MB[at] * expf(gn[t] - gn[s]) : 0.0f;
    }
    if (!MA) continue;
    const float bt_t = bt[static_cast<size_t>(n) * C + t];  // W = 1 where it erases: write t is step t
    for (int s = 0; s < C; ++s) {
      const float ma = s < t ? MA[base + t * C + s] * expf(ghn[t] - gn[s]) : 0.0f;
      MA[base + t * C + s] = ma;
      IA[t * C + s] = bt_t * ma;
    }
  }
  if (!MA) return;
  __syncthreads();
  for (int j = threadIdx.x; j < C; j += blockDim.x) {
    for (int i = 0; i < C; ++i) {
      float x = i == j ? 1.0f : 0.0f;
      if (i > j) {
        float acc = 0.0f;
        for (int s = j; s < i; ++s) acc += IA[i * C + s] * X[s * C + j];
        x = -acc;
      }
      X[i * C + j] = x;
      Tinv[base + i * C + j] = x;
    }
  }
}

// Element e of a packed (chunks, C, d_v) array as an index `at` into the (B, T, H, d_v) tensor it
// packs; false where its step is padding past the last token.
__device__ bool unpacked_value_index(const Dims& d, size_t e, size_t& at) {
  const size_t row = e / d.dv;
  const int j = static_cast<int>(e - row * d.dv), t = static_cast<int>(row % d.C);
  const int n = static_cast<int>(row / d.C), bh = n / d.NC, c = n % d.NC, tok = c * d.C + t;
  if (tok >= d.T) return false;
  at = token_row(bh / d.H, tok, bh % d.H, d.T, d.H) * d.dv + j;
  return true;
}

// Copies the packed (chunks, C, d_v) output back to (B, T, H, d_v), real tokens only.
__global__ void unpack_values_kernel(Dims d, const float* packed, float* out) {
  const size_t total = d.rows() * d.dv;
  for (size_t e = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; e < total;
       e += static_cast<size_t>(gridDim.x) * blockDim.x) {
    size_t at = 0;
    if (unpacked_value_index(d, e, at)) out[at] = packed[e];
  }
}

// (B, T, H, d_v) -> (chunks, C, d_v), zero past the last token (dO may be null: all zero).
__global__ void pack_values_kernel(Dims d, const float* in, float* packed) {
  const size_t total = d.rows() * d.dv;
  for (size_t e = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; e < total;
       e += static_cast<size_t>(gridDim.x) * blockDim.x) {
    size_t at = 0;
    packed[e] = in && unpacked_value_index(d, e, at) ? in[at] : 0.0f;
  }
}

}  // namespace

void ChunkWork::prepare(cublasContext* h, const backend::MemoryRuleArgs<float>& args, const int32_t* rows) {
  PackArgs p{d,        args.q,   args.k,   args.v,
             args.beta, args.a,  d.along_p ? args.p : nullptr, memory::rule_uses_gamma(args.rule) ? args.gamma : nullptr,
             rows,     Q.get(),  K.get(),  V.get(),
             Qg.get(), Kd.get(), d.erases ? Kb.get() : nullptr, Vb.get(),
             g.get(),  bt.get(), d.along_p ? E.get() : nullptr, d.along_p ? gh.get() : nullptr};
  const int N = d.batches(), C = d.C, Cw = d.Cw();
  pack_chunks_kernel<<<N, kThreads>>>(p);
  check_launch("chunked rule (pack)");
  gemm(h, false, true, C, Cw, d.dk, 1.0f, Q.get(), d.dk, sk(), K.get(), d.dk, swk(), 0.0f, MB.get(), Cw, sb(), N,
       "chunked rule (Q K^T)");
  if (d.erases)
    gemm(h, false, true, C, C, d.dk, 1.0f, erase_dir(), d.dk, sk(), K.get(), d.dk, sk(), 0.0f, MA.get(), C, sc(), N,
         "chunked rule (E K^T)");
  const size_t shared = 2 * static_cast<size_t>(C) * C * sizeof(float);
  chunk_masks_kernel<<<N, kChunkedMaxChunk, shared>>>(d, g.get(), erase_decay(), bt.get(), MB.get(),
                                                      d.erases ? MA.get() : nullptr, d.erases ? Tinv.get() : nullptr);
  check_launch("chunked rule (masks, solve)");
  if (d.erases) {
    gemm(h, false, false, C, d.dv, C, 1.0f, Tinv.get(), C, sc(), Vb.get(), d.dv, sv(), 0.0f, U.get(), d.dv, sv(), N,
         "chunked rule (Tinv beta V)");
    gemm(h, false, false, C, d.dk, C, 1.0f, Tinv.get(), C, sc(), Kb.get(), d.dk, sk(), 0.0f, Wk.get(), d.dk, sk(),
         N, "chunked rule (Tinv beta e^gh E)");
  } else {
    check(cudaMemcpyAsync(U.get(), Vb.get(), d.write_rows() * d.dv * sizeof(float), cudaMemcpyDeviceToDevice),
          "chunked rule (U = weights V)");
  }
}

Dims dims_of(const backend::MemoryRuleArgs<float>& args, int chunk) {
  Dims d;
  d.B = args.B, d.T = args.T, d.H = args.H, d.dk = args.d_k, d.dv = args.d_v, d.C = chunk;
  d.NC = (args.T + chunk - 1) / chunk;
  const memory::RuleTraits traits = memory::rule_traits(args.rule);
  d.W = traits.uses_gamma ? args.window : 1;
  d.erases = traits.family == memory::RuleFamily::erasing;
  d.along_p = d.erases && traits.uses_p;  // and undecayed: chunked_kernels_cover refuses the other pairings
  return d;
}

std::vector<int32_t> open_rows(const memory::Schedule& schedule, int T, int d_v) {
  std::vector<int32_t> rows(T);
  for (int t = 0; t < T; ++t) rows[t] = static_cast<int32_t>(schedule.active_rows(t + 1, d_v));
  return rows;
}

void pack_values(const Dims& d, const float* in, float* packed, const char* what) {
  pack_values_kernel<<<blocks_for(d.rows() * d.dv, kThreads), kThreads>>>(d, in, packed);
  check_launch(what);
}

void unpack_values(const Dims& d, const float* packed, float* out, const char* what) {
  unpack_values_kernel<<<blocks_for(d.rows() * d.dv, kThreads), kThreads>>>(d, packed, out);
  check_launch(what);
}

}  // namespace chunked

}  // namespace proteus::cuda
