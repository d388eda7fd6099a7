// The chunked rule's forward: state pass in chunk order, then the outputs; apart, as the backward shares none of it.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <memory>

#include "kernels/block_reduce.cuh"
#include "kernels/cuda_check.hpp"
#include "kernels/device_scratch.cuh"
#include "kernels/memory_rule_chunked.hpp"
#include "kernels/memory_rule_chunked_work.cuh"

namespace proteus::cuda {

using namespace chunked;

namespace {

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
  unpack_values(d, O.get(), o, "chunked rule (output)");
  return state;
}

}  // namespace proteus::cuda
