// The chunked hebbian and erasing rules on the GPU, forward and backward (memory_rule_chunked.hpp);
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
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/memory/log_retention.hpp"
#include "kernels/block_reduce.cuh"
#include "kernels/cuda_check.hpp"
#include "kernels/device.hpp"
#include "kernels/device_scratch.cuh"
#include "kernels/memory_rule_chunked.hpp"

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

namespace {

using memory::Rule;

constexpr int kValueTile = 32;  // value columns per block of the state passes

// Row-major batched product C = alpha op(A) op(B) + beta C, (m, n) per batch, through cuBLAS's
// column-major view (C^T = op(B)^T op(A)^T). ld* are the stored row lengths.
void gemm(cublasContext* h, bool ta, bool tb, int m, int n, int k, float alpha, const float* A, int lda,
          long long sA, const float* B, int ldb, long long sB, float beta, float* C, int ldc, long long sC, int batch,
          const char* what) {
  if (m <= 0 || n <= 0 || batch <= 0) return;
  check_cublas(cublasSgemmStridedBatched(h, tb ? CUBLAS_OP_T : CUBLAS_OP_N, ta ? CUBLAS_OP_T : CUBLAS_OP_N, n, m, k,
                                         &alpha, B, ldb, sB, A, lda, sA, &beta, C, ldc, sC, batch),
               what);
}

struct Dims {
  int B = 0, T = 0, H = 0, dk = 0, dv = 0, C = 0, NC = 0;
  int W = 1;            // writes per step: the window c of window writes, else 1
  bool erases = false;  // the erasing family: U goes through the solve
  bool along_p = false; // erases along p, at the log-decay before the step (gh_t = g_{t-1})
  __host__ __device__ int batches() const { return B * H * NC; }
  __host__ __device__ size_t rows() const { return static_cast<size_t>(batches()) * C; }
  __host__ __device__ int Cw() const { return W * C; }  // writes per chunk
  __host__ __device__ size_t write_rows() const { return static_cast<size_t>(batches()) * Cw(); }
};

// Token n's row of head (b, h) in a (B, T, H, width) tensor.
__device__ inline size_t token_row(int b, int tok, int h, int T, int H) {
  return (static_cast<size_t>(b) * T + tok) * H + h;
}

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

// Chunk n's slice of a (dk, dv) per-chunk array gets the block's (dk, kValueTile) shared tile: the
// forward pass stores chunk-start states this way, the backward pass chunk-end adjoints.
__device__ void store_state_tile(const Dims& d, const float* tile, float* out, size_t n, int j0) {
  for (int e = threadIdx.x; e < d.dk * kValueTile; e += blockDim.x) {
    const int i = e / kValueTile, j = e - i * kValueTile;
    if (j0 + j < d.dv) out[(n * d.dk + i) * d.dv + j0 + j] = tile[e];
  }
}

// The forward state pass: one block per (head, value tile), chunks in order. Stores each
// chunk-start state, U = Ub - Wk H (Wk null: U = Ub), then H' = e^{g_L} H + Kd^T U, the writes
// taken C at a time through shared memory (a window's W blocks of C; one block otherwise).
__global__ void chunk_states_forward_kernel(Dims d, const float* Ub, const float* Wk, const float* Kd, const float* g,
                                            float* U, float* checkpoints) {
  extern __shared__ float shared[];
  float* Hs = shared;                          // (dk, tile)
  float* Us = shared + d.dk * kValueTile;      // (C, tile)
  const int bh = blockIdx.x, j0 = blockIdx.y * kValueTile, Cw = d.Cw();
  for (int e = threadIdx.x; e < d.dk * kValueTile; e += blockDim.x) Hs[e] = 0.0f;  // S_0 = 0
  __syncthreads();
  for (int c = 0; c < d.NC; ++c) {
    const size_t n = static_cast<size_t>(bh) * d.NC + c;
    store_state_tile(d, Hs, checkpoints, n, j0);
    const float decay = expf(g[n * d.C + d.C - 1]);
    for (int block = 0; block < d.W; ++block) {
      const size_t first = n * Cw + static_cast<size_t>(block) * d.C;  // the block's first write row
      for (int e = threadIdx.x; e < d.C * kValueTile; e += blockDim.x) {
        const int t = e / kValueTile, j = e - t * kValueTile;
        float u = 0.0f;
        if (j0 + j < d.dv) {
          const size_t row = first + t;
          u = Ub[row * d.dv + j0 + j];
          if (Wk)  // W = 1 where it erases: write row t is step row t
            for (int i = 0; i < d.dk; ++i) u -= Wk[row * d.dk + i] * Hs[i * kValueTile + j];
          U[row * d.dv + j0 + j] = u;
        }
        Us[e] = u;
      }
      __syncthreads();
      const float keep = block == 0 ? decay : 1.0f;  // the state decays once per chunk
      for (int e = threadIdx.x; e < d.dk * kValueTile; e += blockDim.x) {
        const int i = e / kValueTile, j = e - i * kValueTile;
        float acc = keep * Hs[e];
        for (int t = 0; t < d.C; ++t) acc += Kd[(first + t) * d.dk + i] * Us[t * kValueTile + j];
        Hs[e] = acc;
      }
      __syncthreads();
    }
  }
}

// The backward state pass, chunks in reverse from dS_T = 0: stores each chunk-end adjoint dHe,
// dU = dU0 + Kd dHe over the chunk's writes (in place over dU0 = MB^T dO), then
// dH = e^{g_L} dHe + Y - Wk^T dU (Y = Qg^T dO).
__global__ void chunk_states_backward_kernel(Dims d, float* dU, const float* Y, const float* Wk, const float* Kd,
                                             const float* g, float* dHe) {
  extern __shared__ float shared[];
  float* dHs = shared;
  float* dUs = shared + d.dk * kValueTile;  // (C, tile): only the erasing rules read dU back (W = 1)
  const int bh = blockIdx.x, j0 = blockIdx.y * kValueTile, Cw = d.Cw();
  for (int e = threadIdx.x; e < d.dk * kValueTile; e += blockDim.x) dHs[e] = 0.0f;
  __syncthreads();
  for (int c = d.NC - 1; c >= 0; --c) {
    const size_t n = static_cast<size_t>(bh) * d.NC + c;
    store_state_tile(d, dHs, dHe, n, j0);
    for (int e = threadIdx.x; e < Cw * kValueTile; e += blockDim.x) {
      const int w = e / kValueTile, j = e - w * kValueTile;
      float du = 0.0f;
      if (j0 + j < d.dv) {
        const size_t row = n * Cw + w;
        du = dU[row * d.dv + j0 + j];
        for (int i = 0; i < d.dk; ++i) du += Kd[row * d.dk + i] * dHs[i * kValueTile + j];
        dU[row * d.dv + j0 + j] = du;
      }
      if (Wk) dUs[e] = du;
    }
    __syncthreads();
    const float decay = expf(g[n * d.C + d.C - 1]);
    for (int e = threadIdx.x; e < d.dk * kValueTile; e += blockDim.x) {
      const int i = e / kValueTile, j = e - i * kValueTile;
      float acc = decay * dHs[e];
      if (j0 + j < d.dv) acc += Y[(n * d.dk + i) * d.dv + j0 + j];
      if (Wk)
        for (int t = 0; t < d.C; ++t) acc -= Wk[(n * d.C + t) * d.dk + i] * dUs[t * kValueTile + j];
      dHs[e] = acc;
    }
    __syncthreads();
  }
}

// Copies the packed (chunks, C, d_v) output back to (B, T, H, d_v), real tokens only.
__global__ void unpack_values_kernel(Dims d, const float* packed, float* out) {
  const size_t total = d.rows() * d.dv;
  for (size_t e = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; e < total;
       e += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const size_t row = e / d.dv;
    const int j = static_cast<int>(e - row * d.dv), t = static_cast<int>(row % d.C);
    const int n = static_cast<int>(row / d.C), bh = n / d.NC, c = n % d.NC, tok = c * d.C + t;
    if (tok < d.T) out[token_row(bh / d.H, tok, bh % d.H, d.T, d.H) * d.dv + j] = packed[e];
  }
}

// (B, T, H, d_v) -> (chunks, C, d_v), zero past the last token (dO may be null: all zero).
__global__ void pack_values_kernel(Dims d, const float* in, float* packed) {
  const size_t total = d.rows() * d.dv;
  for (size_t e = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; e < total;
       e += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const size_t row = e / d.dv;
    const int j = static_cast<int>(e - row * d.dv), t = static_cast<int>(row % d.C);
    const int n = static_cast<int>(row / d.C), bh = n / d.NC, c = n % d.NC, tok = c * d.C + t;
    packed[e] = in && tok < d.T ? in[token_row(bh / d.H, tok, bh % d.H, d.T, d.H) * d.dv + j] : 0.0f;
  }
}

// Every chunk's inputs and products, recomputed from the inputs by forward and backward alike.
// Q, Qg (and the erasing rules' E, Kb, MA, Tinv, Wk) are per step; K, V, Kd, Vb, bt, U per write.
struct ChunkWork {
  Dims d;
  DeviceScratch<float> Q, K, V, Qg, Kd, Kb, Vb, g, bt, MB, MA, Tinv, U, Wk, E, gh;
  explicit ChunkWork(const Dims& dims)
      : d(dims),
        Q(d.rows() * d.dk, nullptr, "chunked rule (Q)"),
        K(d.write_rows() * d.dk, nullptr, "chunked rule (K)"),
        V(d.write_rows() * d.dv, nullptr, "chunked rule (V)"),
        Qg(d.rows() * d.dk, nullptr, "chunked rule (Qg)"),
        Kd(d.write_rows() * d.dk, nullptr, "chunked rule (Kd)"),
        Kb(d.erases ? d.rows() * d.dk : 0, nullptr, "chunked rule (Kb)"),
        Vb(d.write_rows() * d.dv, nullptr, "chunked rule (Vb)"),
        g(d.rows(), nullptr, "chunked rule (g)"),
        bt(d.write_rows(), nullptr, "chunked rule (write weights)"),
        MB(d.rows() * d.Cw(), nullptr, "chunked rule (MB)"),
        MA(d.erases ? d.rows() * d.C : 0, nullptr, "chunked rule (MA)"),
        Tinv(d.erases ? d.rows() * d.C : 0, nullptr, "chunked rule (Tinv)"),
        U(d.write_rows() * d.dv, nullptr, "chunked rule (U)"),
        Wk(d.erases ? d.rows() * d.dk : 0, nullptr, "chunked rule (Wk)"),
        E(d.along_p ? d.rows() * d.dk : 0, nullptr, "chunked rule (E)"),
        gh(d.along_p ? d.rows() : 0, nullptr, "chunked rule (gh)") {}

  const float* erase_dir() const { return d.along_p ? E.get() : K.get(); }      // (chunks, C, d_k)
  const float* erase_decay() const { return d.along_p ? gh.get() : g.get(); }  // (chunks, C)

  // Batch strides: per-step rows (sk, sv), per-write rows (swk, swv), (C, C), (C, Cw) and states.
  long long sk() const { return static_cast<long long>(d.C) * d.dk; }
  long long sv() const { return static_cast<long long>(d.C) * d.dv; }
  long long swk() const { return static_cast<long long>(d.Cw()) * d.dk; }
  long long swv() const { return static_cast<long long>(d.Cw()) * d.dv; }
  long long sc() const { return static_cast<long long>(d.C) * d.C; }
  long long sb() const { return static_cast<long long>(d.C) * d.Cw(); }
  long long ss() const { return static_cast<long long>(d.dk) * d.dv; }

  // Everything before the state pass; U holds Ub afterwards.
  void prepare(cublasContext* h, const backend::MemoryRuleArgs<float>& args, const int32_t* rows) {
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
};

size_t state_pass_shared(const Dims& d) { return (static_cast<size_t>(d.dk) + d.C) * kValueTile * sizeof(float); }

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

struct GradOut {
  float *q, *k, *v, *beta, *a, *p, *gamma;  // gamma: the window's (B, T, H, W)
  const float* a_in;  // the retention (null: none), for dL/da = dL/dlog(a) / a
};

// One block per chunk (kChunkedMaxChunk threads, a thread per step): the per-step sums of the
// backward (dlog a, dbeta; the window's dgamma per write) and the masked pair gradients dPB = dMB ⊙ GB,
// dPA = beta dA ⊙ GA, written over dMB and dA0 (dA = -dA0). Then the reverse cumulative sum gives dL/da.
struct ScalarArgs {
  Dims d;
  const float *g, *gh, *bt, *Qg, *dQd, *Kd, *dKt, *MB, *MA, *E, *V, *EH, *dW, *dEd0, *dU, *checkpoints, *dHe;
  float *dMB, *dA0;
  GradOut out;
};

// Step t's writes (one, or a window's W): the sums through the state (Kd . dKt) and through the
// outputs that read them (dMB ⊙ MB down the write's column), and, where nothing erases, each
// write's weight gradient dU . V: dbeta_t, or dgamma_t[j] stored at once.
__device__ void write_sums(const ScalarArgs& p, int n, int t, float& through, float& col, float& dweight) {
  const Dims& d = p.d;
  const int C = d.C, Cw = d.Cw(), tok = (n % d.NC) * C + t, bh = n / d.NC;
  const size_t rc = static_cast<size_t>(n) * C;
  through = 0.0f, col = 0.0f, dweight = 0.0f;
  for (int j = 0; j < d.W; ++j) {
    const int x = j * C + t;  // the write's column of MB
    const size_t w = static_cast<size_t>(n) * Cw + x;
    for (int i = 0; i < d.dk; ++i) through += p.Kd[w * d.dk + i] * p.dKt[w * d.dk + i];
    for (int r = t; r < C; ++r) col += p.dMB[(rc + r) * Cw + x] * p.MB[(rc + r) * Cw + x];
    if (d.erases) continue;
    float dw = 0.0f;
    for (int y = 0; y < d.dv; ++y) dw += p.dU[w * d.dv + y] * p.V[w * d.dv + y];
    if (j == 0) dweight = dw;
    if (p.out.gamma && tok < d.T) p.out.gamma[token_row(bh / d.H, tok, bh % d.H, d.T, d.H) * d.W + j] = dw;
  }
}

__global__ void chunk_step_sums_kernel(ScalarArgs p) {
  __shared__ float dg[kChunkedMaxChunk], dgh[kChunkedMaxChunk], through[kChunkedMaxChunk], dbeta[kChunkedMaxChunk];
  __shared__ float scratch[32];
  const Dims d = p.d;
  const int n = blockIdx.x, C = d.C, Cw = d.Cw(), t = threadIdx.x;
  const size_t rc = static_cast<size_t>(n) * C;
  const float* gn = p.g + rc;
  const float* ghn = p.gh + rc;
  const float gL = gn[C - 1];
  const size_t state = static_cast<size_t>(n) * d.dk * d.dv;
  float partial = 0.0f;
  for (int e = threadIdx.x; e < d.dk * d.dv; e += blockDim.x) partial += p.checkpoints[state + e] * p.dHe[state + e];
  const float state_term = expf(gL) * block_sum(partial, scratch);
  if (t < C) {
    const size_t rk = (rc + t) * d.dk, rv = (rc + t) * d.dv, rp = (rc + t) * C, rb = (rc + t) * Cw;
    float qd = 0.0f;
    for (int i = 0; i < d.dk; ++i) qd += p.Qg[rk + i] * p.dQd[rk + i];
    float thr = 0.0f, colB = 0.0f, db = 0.0f, rowB = 0.0f;
    write_sums(p, n, t, thr, colB, db);
    for (int x = 0; x < Cw; ++x)
      if (x % C <= t) rowB += p.dMB[rb + x] * p.MB[rb + x];
    float erase_term = 0.0f, erased_after = 0.0f;
    const float bt = p.bt[rc + t];  // beta_t where it erases (W = 1)
    if (d.erases) {
      const float eg = expf(ghn[t]);
      float res = 0.0f, ed = 0.0f, rowA = 0.0f, colA = 0.0f;
      for (int j = 0; j < d.dv; ++j) res += p.dW[rv + j] * (p.V[rv + j] - eg * p.EH[rv + j]);
      for (int i = 0; i < d.dk; ++i) ed += p.E[rk + i] * p.dEd0[rk + i];
      db = res;
      for (int s = 0; s < t; ++s) {
        const float dA = -p.dA0[rp + s];
        db += dA * p.MA[rp + s];
        rowA += bt * dA * p.MA[rp + s];
      }
      for (int r = t + 1; r < C; ++r) colA += p.bt[rc + r] * -p.dA0[(rc + r) * C + t] * p.MA[(rc + r) * C + t];
      erase_term = -bt * eg * ed + rowA;  // d/dgh_t
      erased_after = colA;                // the later erases that decay from step t
    }
    dg[t] = -thr + qd + rowB - colB - erased_after;
    dgh[t] = erase_term;
    through[t] = thr;
    dbeta[t] = db;
  }
  __syncthreads();
  if (t < C) {  // every read of dMB and dA0 above is done: overwrite them with the masked pair gradients
    const size_t rp = (rc + t) * C, rb = (rc + t) * Cw;
    const float bt = p.bt[rc + t];
    for (int x = 0; x < Cw; ++x) {
      const int s = x % C;
      p.dMB[rb + x] = s <= t ? p.dMB[rb + x] * expf(gn[t] - gn[s]) : 0.0f;
    }
    if (d.erases)
      for (int s = 0; s < C; ++s) p.dA0[rp + s] = s < t ? bt * -p.dA0[rp + s] * expf(ghn[t] - gn[s]) : 0.0f;
  }
  if (t == 0) {
    float dgl = state_term;
    for (int s = 0; s < C; ++s) dgl += through[s];
    const int bh = n / d.NC, c = n % d.NC, b = bh / d.H, h = bh % d.H;
    float suffix = dgl;  // g_L's adjoint reaches every step (padded steps carry nothing else)
    for (int s = C - 1; s >= 0; --s) {
      // The erase's log-decay gh is g, or shifted by one for an undecayed prediction (gh_{s+1} = g_s).
      suffix += dg[s] + (d.along_p ? (s + 1 < C ? dgh[s + 1] : 0.0f) : dgh[s]);
      const int tok = c * C + s;
      if (tok >= d.T) continue;
      const size_t r = token_row(b, tok, h, d.T, d.H);
      if (p.out.a) p.out.a[r] = p.out.a_in ? memory::retention_grad(suffix, p.out.a_in[r]) : suffix;
      if (p.out.beta) p.out.beta[r] = dbeta[s];
    }
  }
}

struct AssembleArgs {
  Dims d;
  const int32_t* rows;
  const float *g, *gh, *bt, *dQd, *dQx, *dKt, *dKx, *dEd0, *dEx, *dW, *dU;
  GradOut out;
};

// Token tok's key gradient on row i through the writes that read it: write j of step tok + j
// (in this chunk or a later one), selected to the rows open at that step.
__device__ float gathered_key_grad(const AssembleArgs& p, int bh, int tok, int i) {
  const Dims& d = p.d;
  float dk = 0.0f;
  for (int j = 0; j < d.W && tok + j < d.T; ++j) {
    const int step = tok + j, n = bh * d.NC + step / d.C, t = step % d.C;
    if (i >= p.rows[step]) continue;
    const size_t w = static_cast<size_t>(n) * d.Cw() + j * d.C + t;
    const float decay = expf(p.g[static_cast<size_t>(n) * d.C + d.C - 1] - p.g[static_cast<size_t>(n) * d.C + t]);
    dk += decay * p.dKt[w * d.dk + i] + p.dKx[w * d.dk + i];
  }
  return dk;
}

// Token tok's value gradient on column x, gathered the same way: the write's weight times its dU
// (dW where it erases).
__device__ float gathered_value_grad(const AssembleArgs& p, int bh, int tok, int x) {
  const Dims& d = p.d;
  float dv = 0.0f;
  for (int j = 0; j < d.W && tok + j < d.T; ++j) {
    const int step = tok + j;
    const size_t w = static_cast<size_t>(bh * d.NC + step / d.C) * d.Cw() + j * d.C + step % d.C;
    dv += p.bt[w] * (d.erases ? p.dW[w * d.dv + x] : p.dU[w * d.dv + x]);
  }
  return dv;
}

// dq, dk (and dp) over open rows (the rest exactly 0, by selection), dv; real tokens only.
// The erase direction's gradient dE = -beta e^gh dEd0 + dPA K belongs to k, or to p.
__global__ void chunk_assemble_kernel(AssembleArgs p) {
  const Dims d = p.d;
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t e = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; e < d.rows() * d.dk; e += stride) {
    const size_t row = e / d.dk;
    const int i = static_cast<int>(e - row * d.dk), t = static_cast<int>(row % d.C);
    const int n = static_cast<int>(row / d.C), bh = n / d.NC, c = n % d.NC, tok = c * d.C + t;
    if (tok >= d.T) continue;
    const size_t r = token_row(bh / d.H, tok, bh % d.H, d.T, d.H) * d.dk + i;
    const bool open = i < p.rows[tok];
    const float dE = d.erases && open ? -p.bt[row] * expf(p.gh[row]) * p.dEd0[e] + p.dEx[e] : 0.0f;
    if (p.out.q) p.out.q[r] = open ? expf(p.g[row]) * p.dQd[e] + p.dQx[e] : 0.0f;
    if (p.out.k) p.out.k[r] = gathered_key_grad(p, bh, tok, i) + (d.erases && !d.along_p ? dE : 0.0f);
    if (d.along_p && p.out.p) p.out.p[r] = dE;
  }
  if (!p.out.v) return;
  for (size_t e = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; e < d.rows() * d.dv; e += stride) {
    const size_t row = e / d.dv;
    const int x = static_cast<int>(e - row * d.dv), t = static_cast<int>(row % d.C);
    const int n = static_cast<int>(row / d.C), bh = n / d.NC, c = n % d.NC, tok = c * d.C + t;
    if (tok >= d.T) continue;
    p.out.v[token_row(bh / d.H, tok, bh % d.H, d.T, d.H) * d.dv + x] = gathered_value_grad(p, bh, tok, x);
  }
}

}  // namespace

std::unique_ptr<backend::OpState> chunked_memory_rule_forward(cublasContext* cublas, float* o,
                                                              const backend::MemoryRuleArgs<float>& args) {
  const int chunk = chunked_chunk_size(args);
  const Dims d = dims_of(args, chunk);
  auto state = std::make_unique<CudaChunkedState>();
  state->rule = args.rule;
  state->B = args.B, state->T = args.T, state->H = args.H, state->d_k = args.d_k, state->d_v = args.d_v;
  state->chunk = chunk, state->chunks = d.NC;
  const size_t states = static_cast<size_t>(d.batches()) * d.dk * d.dv;
  check(cudaMalloc(reinterpret_cast<void**>(&state->checkpoints), (states ? states : 1) * sizeof(float)),
        "chunked rule (checkpoints)");
  if (d.batches() == 0) return state;

  const auto rows = open_rows(*args.schedule, args.T, args.d_v);
  DeviceScratch<int32_t> drows(rows.data(), rows.size(), nullptr, "chunked rule (open rows)");
  ChunkWork w(d);
  w.prepare(cublas, args, drows.get());
  const dim3 grid(args.B * args.H, (d.dv + kValueTile - 1) / kValueTile);
  chunk_states_forward_kernel<<<grid, kThreads, state_pass_shared(d)>>>(d, w.U.get(), d.erases ? w.Wk.get() : nullptr,
                                                                          w.Kd.get(), w.g.get(), w.U.get(),
                                                                          state->checkpoints);
  check_launch("chunked rule (state pass)");
  DeviceScratch<float> O(d.rows() * d.dv, nullptr, "chunked rule (O)");
  const int N = d.batches(), C = d.C, Cw = d.Cw();
  gemm(cublas, false, false, C, d.dv, d.dk, 1.0f, w.Qg.get(), d.dk, w.sk(), state->checkpoints, d.dv, w.ss(), 0.0f,
       O.get(), d.dv, w.sv(), N, "chunked rule (e^g Q H)");
  gemm(cublas, false, false, C, d.dv, Cw, 1.0f, w.MB.get(), Cw, w.sb(), w.U.get(), d.dv, w.swv(), 1.0f, O.get(), d.dv,
       w.sv(), N, "chunked rule (MB U)");
  unpack_values_kernel<<<blocks_for(d.rows() * d.dv, kThreads), kThreads>>>(d, O.get(), o);
  check_launch("chunked rule (output)");
  return state;
}

void chunked_memory_rule_backward(cublasContext* h, const backend::MemoryRuleGrads<float>& grads, const float* dO,
                                  const backend::MemoryRuleArgs<float>& args, const CudaChunkedState& state) {
  const Dims d = dims_of(args, state.chunk);
  if (d.batches() == 0) return;
  const int N = d.batches(), C = d.C, Cw = d.Cw();
  const auto rows = open_rows(*args.schedule, args.T, args.d_v);
  DeviceScratch<int32_t> drows(rows.data(), rows.size(), nullptr, "chunked rule backward (open rows)");
  ChunkWork w(d);
  w.prepare(h, args, drows.get());
  const float* Hc = state.checkpoints;
  if (d.erases)  // U = Ub - Wk H from the chunk-start states: no sequential pass needed
    gemm(h, false, false, C, d.dv, d.dk, -1.0f, w.Wk.get(), d.dk, w.sk(), Hc, d.dv, w.ss(), 1.0f, w.U.get(), d.dv,
         w.sv(), N, "chunked rule backward (U)");

  const size_t nk = d.rows() * d.dk, nv = d.rows() * d.dv, np = d.rows() * C, ns = static_cast<size_t>(N) * d.dk * d.dv;
  const size_t nwk = d.write_rows() * d.dk, nwv = d.write_rows() * d.dv, nb = d.rows() * Cw;
  DeviceScratch<float> dOp(nv, nullptr, "chunked rule backward (dO)"), dU(nwv, nullptr, "chunked rule backward (dU)"),
      Y(ns, nullptr, "chunked rule backward (Y)"), dHe(ns, nullptr, "chunked rule backward (dHe)");
  pack_values_kernel<<<blocks_for(nv, kThreads), kThreads>>>(d, dO, dOp.get());
  check_launch("chunked rule backward (pack dO)");
  gemm(h, true, false, Cw, d.dv, C, 1.0f, w.MB.get(), Cw, w.sb(), dOp.get(), d.dv, w.sv(), 0.0f, dU.get(), d.dv,
       w.swv(), N, "chunked rule backward (MB^T dO)");
  gemm(h, true, false, d.dk, d.dv, C, 1.0f, w.Qg.get(), d.dk, w.sk(), dOp.get(), d.dv, w.sv(), 0.0f, Y.get(), d.dv,
       w.ss(), N, "chunked rule backward (Qg^T dO)");
  const dim3 grid(args.B * args.H, (d.dv + kValueTile - 1) / kValueTile);
  chunk_states_backward_kernel<<<grid, kThreads, state_pass_shared(d)>>>(d, dU.get(), Y.get(),
                                                                           d.erases ? w.Wk.get() : nullptr, w.Kd.get(),
                                                                           w.g.get(), dHe.get());
  check_launch("chunked rule backward (state pass)");

  DeviceScratch<float> dKt(nwk, nullptr, "chunked rule backward (dKt)"), dQd(nk, nullptr, "chunked rule backward (dQd)"),
      dMB(nb, nullptr, "chunked rule backward (dMB)"), dW(d.erases ? nv : 0, nullptr, "chunked rule backward (dW)"),
      dEd0(d.erases ? nk : 0, nullptr, "chunked rule backward (dEd)"),
      dA0(d.erases ? np : 0, nullptr, "chunked rule backward (dA)"),
      EH(d.erases ? nv : 0, nullptr, "chunked rule backward (E H)");
  gemm(h, false, true, Cw, d.dk, d.dv, 1.0f, w.U.get(), d.dv, w.swv(), dHe.get(), d.dv, w.ss(), 0.0f, dKt.get(), d.dk,
       w.swk(), N, "chunked rule backward (U dHe^T)");
  gemm(h, false, true, C, d.dk, d.dv, 1.0f, dOp.get(), d.dv, w.sv(), Hc, d.dv, w.ss(), 0.0f, dQd.get(), d.dk, w.sk(), N,
       "chunked rule backward (dO H^T)");
  gemm(h, false, true, C, Cw, d.dv, 1.0f, dOp.get(), d.dv, w.sv(), w.U.get(), d.dv, w.swv(), 0.0f, dMB.get(), Cw,
       w.sb(), N, "chunked rule backward (dO U^T)");
  if (d.erases) {
    gemm(h, true, false, C, d.dv, C, 1.0f, w.Tinv.get(), C, w.sc(), dU.get(), d.dv, w.sv(), 0.0f, dW.get(), d.dv,
         w.sv(), N, "chunked rule backward (Tinv^T dU)");
    gemm(h, false, true, C, d.dk, d.dv, 1.0f, dW.get(), d.dv, w.sv(), Hc, d.dv, w.ss(), 0.0f, dEd0.get(), d.dk, w.sk(),
         N, "chunked rule backward (dW H^T)");
    gemm(h, false, true, C, C, d.dv, 1.0f, dW.get(), d.dv, w.sv(), w.U.get(), d.dv, w.sv(), 0.0f, dA0.get(), C, w.sc(),
         N, "chunked rule backward (dW U^T)");
    gemm(h, false, false, C, d.dv, d.dk, 1.0f, w.erase_dir(), d.dk, w.sk(), Hc, d.dv, w.ss(), 0.0f, EH.get(), d.dv,
         w.sv(), N, "chunked rule backward (E H)");
  }

  const bool window = memory::rule_uses_gamma(args.rule);
  const GradOut out{grads.q, grads.k,  grads.v, window ? nullptr : grads.beta, grads.a, d.along_p ? grads.p : nullptr,
                    window ? grads.gamma : nullptr, args.a};
  ScalarArgs sa{d,          w.g.get(),       w.erase_decay(), w.bt.get(), w.Qg.get(), dQd.get(), w.Kd.get(),
                dKt.get(),  w.MB.get(),      w.MA.get(),      w.erase_dir(), w.V.get(), EH.get(), dW.get(),
                dEd0.get(), dU.get(),        Hc,              dHe.get(),  dMB.get(),  dA0.get(), out};
  chunk_step_sums_kernel<<<N, kChunkedMaxChunk>>>(sa);
  check_launch("chunked rule backward (per-step sums)");

  DeviceScratch<float> dQx(nk, nullptr, "chunked rule backward (dQx)"), dKx(nwk, nullptr, "chunked rule backward (dKx)"),
      dEx(d.erases ? nk : 0, nullptr, "chunked rule backward (dEx)");
  gemm(h, false, false, C, d.dk, Cw, 1.0f, dMB.get(), Cw, w.sb(), w.K.get(), d.dk, w.swk(), 0.0f, dQx.get(), d.dk,
       w.sk(), N, "chunked rule backward (dPB K)");
  gemm(h, true, false, Cw, d.dk, C, 1.0f, dMB.get(), Cw, w.sb(), w.Q.get(), d.dk, w.sk(), 0.0f, dKx.get(), d.dk,
       w.swk(), N, "chunked rule backward (dPB^T Q)");
  if (d.erases) {
    gemm(h, true, false, C, d.dk, C, 1.0f, dA0.get(), C, w.sc(), w.erase_dir(), d.dk, w.sk(), 1.0f, dKx.get(), d.dk,
         w.sk(), N, "chunked rule backward (dPA^T E)");
    gemm(h, false, false, C, d.dk, C, 1.0f, dA0.get(), C, w.sc(), w.K.get(), d.dk, w.sk(), 0.0f, dEx.get(), d.dk,
         w.sk(), N, "chunked rule backward (dPA K)");
  }
  AssembleArgs aa{d,         drows.get(), w.g.get(),  w.erase_decay(), w.bt.get(), dQd.get(), dQx.get(), dKt.get(),
                  dKx.get(), dEd0.get(),  dEx.get(), dW.get(),         dU.get(),    out};
  chunk_assemble_kernel<<<blocks_for(std::max(nk, nv), kThreads), kThreads>>>(aa);
  check_launch("chunked rule backward (gradients)");
}

}  // namespace proteus::cuda
