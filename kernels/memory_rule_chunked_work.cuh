// What the chunked rule's forward and backward share (defined in memory_rule_chunked.cu): apart, as each has a file.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/memory/schedule.hpp"
#include "kernels/device_scratch.cuh"
#include "kernels/memory_rule_chunked.hpp"

namespace proteus::cuda::chunked {

constexpr int kValueTile = 32;  // value columns per block of the state passes

// Row-major batched product C = alpha op(A) op(B) + beta C, (m, n) per batch, through cuBLAS's
// column-major view (C^T = op(B)^T op(A)^T). ld* are the stored row lengths.
void gemm(cublasContext* h, bool ta, bool tb, int m, int n, int k, float alpha, const float* A, int lda,
          long long sA, const float* B, int ldb, long long sB, float beta, float* C, int ldc, long long sC, int batch,
          const char* what);

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

// Chunk n's slice of a (dk, dv) per-chunk array gets the block's (dk, kValueTile) shared tile: the
// forward pass stores chunk-start states this way, the backward pass chunk-end adjoints.
__device__ inline void store_state_tile(const Dims& d, const float* tile, float* out, size_t n, int j0) {
  for (int e = threadIdx.x; e < d.dk * kValueTile; e += blockDim.x) {
    const int i = e / kValueTile, j = e - i * kValueTile;
    if (j0 + j < d.dv) out[(n * d.dk + i) * d.dv + j0 + j] = tile[e];
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
  void prepare(cublasContext* h, const backend::MemoryRuleArgs<float>& args, const int32_t* rows);
};

inline size_t state_pass_shared(const Dims& d) { return (static_cast<size_t>(d.dk) + d.C) * kValueTile * sizeof(float); }

Dims dims_of(const backend::MemoryRuleArgs<float>& args, int chunk);
std::vector<int32_t> open_rows(const memory::Schedule& schedule, int T, int d_v);

// (B, T, H, d_v) -> (chunks, C, d_v), zero past the last token (in may be null: all zero), and back
// (real tokens only): dO's pack for the backward, the output's unpack for the forward.
void pack_values(const Dims& d, const float* in, float* packed, const char* what);
void unpack_values(const Dims& d, const float* packed, float* out, const char* what);

}  // namespace proteus::cuda::chunked
