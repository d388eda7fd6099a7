// The chunked rule's backward: state adjoint in reverse, then each gradient; apart, as the forward shares none of it.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>

#include "core/memory/log_retention.hpp"
#include "kernels/block_reduce.cuh"
#include "kernels/cuda_check.hpp"
#include "kernels/device_scratch.cuh"
#include "kernels/memory_rule_chunked.hpp"
#include "kernels/memory_rule_chunked_work.cuh"

namespace proteus::cuda {

using namespace chunked;

namespace {

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
  pack_values(d, dO, dOp.get(), "chunked rule backward (pack dO)");
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
