// The CPU backend's buffers and dense ops (the memory rule: cpu_memory_rule.cpp; the loops on the
// pool: parallel_loops.hpp). Matrix products go to Eigen's GEMM over row-major maps, split into
// pieces whose shapes depend only on the problem; everything else is a loop over rows under
// OpenMP. Reductions across rows run in a fixed order (per column, rows ascending, in double),
// so a result has the same bits whatever the thread count.
// Eigen's own threading is off in this file: it picks its k-blocking by thread count, which
// would make the sums' order (and the bits) depend on the threads.
#define EIGEN_DONT_PARALLELIZE
#include "core/backend/cpu/cpu_backend.hpp"

#include <malloc.h>
#include <sys/mman.h>

#include <thread>

#include <utility>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <vector>

#include "core/backend/cpu/parallel_loops.hpp"
#include "core/backend/ops/activations.hpp"
#include "core/common/input_error.hpp"
#include "core/memory/key_normalize.hpp"
#include "core/memory/rows_product.hpp"

namespace proteus::backend {
namespace {

template <class T>
using RowMat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class T>
using MapArr = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;  // n contiguous elements
template <class T>
using CMapArr = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;
template <class T>
using MapMat = Eigen::Map<RowMat<T>>;
template <class T>
using CMapMat = Eigen::Map<const RowMat<T>>;
template <class T>
using StridedMat = Eigen::Map<RowMat<T>, 0, Eigen::OuterStride<>>;
template <class T>
using CStridedMat = Eigen::Map<const RowMat<T>, 0, Eigen::OuterStride<>>;

constexpr int kMaxGemmPieces = 16;         // a GEMM is cut into at most this many pieces
constexpr double kMinGemmPieceFlops = 1 << 21;
constexpr int kDepthSplitMaxRows = 48;      // a dW this many rows a piece or fewer is split over N instead
constexpr size_t kWeightPartials = 1 << 21;  // elements of dW partials a depth split may hold

using memory::detail::Into;
using memory::detail::OpA;
using memory::detail::rows_product;
using cpu::parallel_columns;
using cpu::parallel_elements;
using cpu::parallel_for;
using cpu::parallel_rows;

// Row sums in double over 16 independent partial sums, added pairwise at the end (a fixed order):
// the compiler vectorises the lanes. A single running sum waits on each add's latency, and Eigen's
// cast<double>().sum() compiled to exactly that (perf: scalar adds, the norms 6% of the paper-regime
// step).
template <class Term>
double lane_sum(int n, Term term) {
  constexpr int kLanes = 16;
  double lane[kLanes] = {};
  int i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int j = 0; j < kLanes; ++j) lane[j] += term(i + j);
  double tail = 0;
  for (; i < n; ++i) tail += term(i);
  for (int w = kLanes / 2; w > 0; w /= 2)
    for (int j = 0; j < w; ++j) lane[j] += lane[j + w];
  return lane[0] + tail;
}
template <class T>
double sum_of_products(const T* a, const T* b, int n) {
  return lane_sum(n, [&](int i) { return static_cast<double>(a[i]) * static_cast<double>(b[i]); });
}
template <class T>
double sum_of_products(const T* a, const T* b, const T* c, int n) {
  return lane_sum(n, [&](int i) {
    return static_cast<double>(a[i]) * static_cast<double>(b[i]) * static_cast<double>(c[i]);
  });
}

// A split of `rows` into equal pieces (the last shorter) sized by the problem, never by threads.
struct Split {
  int per = 0;    // rows per piece
  int count = 0;  // pieces
};

Split split_rows(int rows, double flops_per_row) {
  if (rows <= 0) return {};
  const int by_count = (rows + kMaxGemmPieces - 1) / kMaxGemmPieces;
  const double min_rows = std::ceil(kMinGemmPieceFlops / std::max(flops_per_row, 1.0));
  const int by_work = static_cast<int>(std::min<double>(rows, min_rows));
  int per = std::max(by_count, by_work);
  per = std::min(rows, (per + 7) / 8 * 8);  // a multiple of 8 keeps Eigen's register tiles whole
  return {per, (rows + per - 1) / per};
}

}  // namespace

template <class T>
CpuBackend<T>::CpuBackend(int threads)
    : threads_(threads > 0 ? threads : std::max(1, static_cast<int>(std::thread::hardware_concurrency()))),
      pool_(std::make_unique<ThreadPool>(threads_)) {}

template <class T>
bool CpuBackend<T>::supports(Op, const OpShape&, std::string*) const {
  return true;  // the reference runs everything
}

// ---- memory ----

namespace {

// Zeroed, 64-byte aligned (Eigen's vector loads, a cache line). A tensor of a huge page or more
// starts on one and is advised to use them: a (B, T, H, d) tensor read a head at a time touches a
// new 4 KB page every second row (8 heads of 64).
void* zeroed_alloc(size_t bytes) {
  bytes = (std::max<size_t>(bytes, 1) + 63) / 64 * 64;
  void* p = nullptr;
  if (bytes >= cpu::HugePageBlocks::kHugePage) {
    if (posix_memalign(&p, cpu::HugePageBlocks::kHugePage, bytes) != 0) throw std::bad_alloc();
#if defined(MADV_HUGEPAGE)
    madvise(p, bytes, MADV_HUGEPAGE);  // advice: where refused, the pages stay small
#endif
  } else {
    p = std::aligned_alloc(64, bytes);  // wants a multiple of 64
    if (!p) throw std::bad_alloc();
  }
  std::memset(p, 0, bytes);
  return p;
}

}  // namespace

template <class T>
T* CpuBackend<T>::alloc(size_t n) {
  return static_cast<T*>(zeroed_alloc(n * sizeof(T)));
}

template <class T>
void CpuBackend<T>::free(T* p) {
  std::free(p);
}

template <class T>
void CpuBackend<T>::upload(T* dst, const T* host, size_t n) {
  if (n) std::memcpy(dst, host, n * sizeof(T));
}

template <class T>
void CpuBackend<T>::download(T* host, const T* src, size_t n) {
  if (n) std::memcpy(host, src, n * sizeof(T));
}

template <class T>
void CpuBackend<T>::fill(T* dst, T value, size_t n) {
  parallel_elements(n, *pool_, [&](size_t i0, size_t i1) { std::fill(dst + i0, dst + i1, value); });
}

template <class T>
void CpuBackend<T>::copy(T* dst, const T* src, size_t n) {
  if (n) std::memmove(dst, src, n * sizeof(T));
}

template <class T>
int32_t* CpuBackend<T>::alloc_int32(size_t n) {
  return static_cast<int32_t*>(zeroed_alloc(n * sizeof(int32_t)));
}

template <class T>
void CpuBackend<T>::free_int32(int32_t* p) {
  std::free(p);
}

template <class T>
void CpuBackend<T>::upload_int32(int32_t* dst, const int32_t* host, size_t n) {
  if (n) std::memcpy(dst, host, n * sizeof(int32_t));
}

template <class T>
void CpuBackend<T>::download_int32(int32_t* host, const int32_t* src, size_t n) {
  if (n) std::memcpy(host, src, n * sizeof(int32_t));
}

// ---- embedding ----

template <class T>
void CpuBackend<T>::embedding_forward(T* out, const int32_t* tokens, const T* wte, int N, int C) {
  parallel_rows(N, *pool_, [&](int64_t n) {
    const T* row = wte + static_cast<size_t>(tokens[n]) * C;
    std::copy(row, row + C, out + static_cast<size_t>(n) * C);
  });
}

template <class T>
void CpuBackend<T>::embedding_backward(T* dwte, const T* dout, const int32_t* tokens, int N, int C) {
  // Rows sharing a token add in row order: split by columns, never by rows.
  parallel_columns(C, *pool_, [&](int c0, int c1) {
    for (int n = 0; n < N; ++n) {
      T* dst = dwte + static_cast<size_t>(tokens[n]) * C;
      const T* src = dout + static_cast<size_t>(n) * C;
      for (int c = c0; c < c1; ++c) dst[c] += src[c];
    }
  });
}

// ---- rmsnorm ----

template <class T>
void CpuBackend<T>::rmsnorm_forward(T* out, T* rstd, const T* in, const T* w, int N, int C, T eps) {
  parallel_rows(N, *pool_, [&](int64_t n) {
    const T* x = in + static_cast<size_t>(n) * C;
    T* y = out + static_cast<size_t>(n) * C;
    const double ss = sum_of_products(x, x, C);
    const T r = static_cast<T>(1.0 / std::sqrt(ss / C + static_cast<double>(eps)));
    rstd[n] = r;
    for (int c = 0; c < C; ++c) y[c] = x[c] * r * w[c];
  });
}

template <class T>
void CpuBackend<T>::rmsnorm_backward(T* din, T* dw, const T* dout, const T* in, const T* w, const T* rstd, int N,
                                     int C) {
  if (din) {
    // dx = r w g - x r^3 (sum_c g w x) / C
    parallel_rows(N, *pool_, [&](int64_t n) {
      const size_t off = static_cast<size_t>(n) * C;
      const T* x = in + off;
      const T* g = dout + off;
      const double dot = sum_of_products(g, w, x, C);
      const double r = rstd[n];
      const T coef = static_cast<T>(r * r * r * dot / C);
      for (int c = 0; c < C; ++c) din[off + c] = rstd[n] * (w[c] * g[c]) - x[c] * coef;
    });
  }
  if (dw) {
    parallel_columns(C, *pool_, [&](int c0, int c1) {
      std::vector<double> acc(c1 - c0, 0.0);
      for (int n = 0; n < N; ++n) {
        const size_t off = static_cast<size_t>(n) * C;
        for (int c = c0; c < c1; ++c) acc[c - c0] += static_cast<double>(dout[off + c]) * in[off + c] * rstd[n];
      }
      for (int c = c0; c < c1; ++c) dw[c] += static_cast<T>(acc[c - c0]);
    });
  }
}

// ---- matmul ----

// Y = X W^T. Where rows_product runs its own loop (float, AVX-512) W is transposed once, so that
// its right side is read by rows: 1.2-1.3x Eigen's GEMM at the model's shapes, and no zero fill of Y
// before the product (perf-history.md).
template <class T>
void CpuBackend<T>::matmul_forward(T* out, const T* in, const T* w, int N, int IC, int OC) {
  const CMapMat<T> W(w, OC, IC);
  const Split s = split_rows(N, 2.0 * IC * OC);
  thread_local RowMat<T> Wt_kept;  // (IC, OC), kept from call to call
  const bool own_loop = memory::detail::rows_product_runs_own_loop<T>(OC);
  if (own_loop) Wt_kept = W.transpose();
  const RowMat<T>& Wt = Wt_kept;  // the calling thread's, by name: a pool thread has a Wt_kept of its own
  parallel_for(s.count, *pool_, [&](int64_t i) {
    const int r0 = static_cast<int>(i) * s.per, rows = std::min(s.per, N - r0);
    const CMapMat<T> X(in + static_cast<size_t>(r0) * IC, rows, IC);
    MapMat<T> Y(out + static_cast<size_t>(r0) * OC, rows, OC);
    if (own_loop)
      rows_product(Y, X, OpA::as_is, Wt, Into::assign);
    else
      Y.noalias() = X * W.transpose();  // (rows, OC)
  });
}

template <class T>
void CpuBackend<T>::matmul_backward(T* din, T* dw, const T* dout, const T* in, const T* w, int N, int IC, int OC) {
  if (din) {
    const CMapMat<T> W(w, OC, IC);
    const Split s = split_rows(N, 2.0 * IC * OC);
    parallel_for(s.count, *pool_, [&](int64_t i) {
      const int r0 = static_cast<int>(i) * s.per, rows = std::min(s.per, N - r0);
      const CMapMat<T> DY(dout + static_cast<size_t>(r0) * OC, rows, OC);
      MapMat<T> DX(din + static_cast<size_t>(r0) * IC, rows, IC);
      rows_product(DX, DY, OpA::as_is, W, Into::assign);  // (rows, IC)
    });
  }
  if (dw) matmul_weight_grad(dw, dout, in, N, IC, OC);
}

// dW += dout^T in, a sum over the N rows. A wide dW is split over its rows (each piece sums all N
// itself); a narrow one (the model's 64-256 outputs) over N: pieces of a few rows each would
// pack the whole input once per piece (16 times at 128 outputs: the product ran at half the
// forward's rate). Each depth piece sums its rows into its own partial, and the partials are
// added in piece order: the order, so the bits, depend on the problem only.
template <class T>
void CpuBackend<T>::matmul_weight_grad(T* dw, const T* dout, const T* in, int N, int IC, int OC) {
  if (N <= 0 || IC <= 0 || OC <= 0) return;  // an empty sum adds nothing
  const CMapMat<T> X(in, N, IC);
  if (OC >= kMaxGemmPieces * kDepthSplitMaxRows) {
    const Split s = split_rows(OC, 2.0 * N * IC);
    parallel_for(s.count, *pool_, [&](int64_t i) {
      const int o0 = static_cast<int>(i) * s.per, rows = std::min(s.per, OC - o0);
      const CStridedMat<T> DY(dout + o0, N, rows, Eigen::OuterStride<>(OC));
      MapMat<T> DW(dw + static_cast<size_t>(o0) * IC, rows, IC);
      rows_product(DW, DY, OpA::transposed, X, Into::add);  // (rows, IC)
    });
    return;
  }
  const size_t n = static_cast<size_t>(OC) * IC;
  const Split by_rows = split_rows(N, 2.0 * IC * OC);
  const int pieces = static_cast<int>(std::clamp<size_t>(kWeightPartials / n, 1, by_rows.count));
  if (pieces == 1) {
    rows_product(MapMat<T>(dw, OC, IC), CMapMat<T>(dout, N, OC), OpA::transposed, X, Into::add);
    return;
  }
  const int per = (N + pieces - 1) / pieces;
  thread_local std::vector<T> partials;  // (pieces, OC, IC): the calling thread's, kept between calls
  partials.resize(static_cast<size_t>(pieces) * n);
  T* const part = partials.data();  // the pool's threads have thread_locals of their own
  parallel_for(pieces, *pool_, [&](int64_t i) {
    const int r0 = static_cast<int>(i) * per, rows = std::max(0, std::min(per, N - r0));
    MapMat<T> P(part + static_cast<size_t>(i) * n, OC, IC);
    rows_product(P, CMapMat<T>(dout + static_cast<size_t>(r0) * OC, rows, OC), OpA::transposed,
                 CMapMat<T>(in + static_cast<size_t>(r0) * IC, rows, IC), Into::assign);
  });
  parallel_elements(n, *pool_, [&](size_t e0, size_t e1) {
    for (int i = 0; i < pieces; ++i) {
      const T* p = part + static_cast<size_t>(i) * n;
      for (size_t e = e0; e < e1; ++e) dw[e] += p[e];
    }
  });
}

// ---- causal depthwise convolution + SiLU ----

// The short convolution walks channels in the inner loop (taps transposed to (K, Ch)) so that it
// vectorises; each channel still sums its taps in ascending order.
template <class T>
std::vector<T> taps_by_row(const T* w, int Ch, int K) {
  std::vector<T> wt(static_cast<size_t>(K) * Ch);  // (K, Ch)
  for (int c = 0; c < Ch; ++c)
    for (int j = 0; j < K; ++j) wt[static_cast<size_t>(j) * Ch + c] = w[static_cast<size_t>(c) * K + j];
  return wt;
}

template <class T>
void CpuBackend<T>::conv_silu_forward(T* out, T* pre, const T* in, const T* w, int B, int Tn, int Ch, int K) {
  const std::vector<T> wt = taps_by_row(w, Ch, K);
  parallel_rows(static_cast<int64_t>(B) * Tn, *pool_, [&](int64_t row) {
    const int t = static_cast<int>(row % Tn);
    const size_t off = static_cast<size_t>(row) * Ch;
    MapArr<T> acc(pre + off, Ch);
    acc.setZero();
    for (int j = std::max(0, K - 1 - t); j < K; ++j)  // taps before t = 0 read zeros
      acc += CMapArr<T>(wt.data() + static_cast<size_t>(j) * Ch, Ch) *
             CMapArr<T>(in + off - static_cast<size_t>(K - 1 - j) * Ch, Ch);
    MapArr<T>(out + off, Ch) = acc * acc.logistic();
  });
}

template <class T>
void CpuBackend<T>::conv_silu_backward(T* din, T* dw, const T* dout, const T* in, const T* w, const T* pre, int B,
                                       int Tn, int Ch, int K) {
  const size_t n = static_cast<size_t>(B) * Tn * Ch;
  std::vector<T> dpre(n);  // (B, T, Ch)
  parallel_elements(n, *pool_, [&](size_t i0, size_t i1) {
    const auto x = CMapArr<T>(pre + i0, i1 - i0);
    const auto sg = x.logistic();
    MapArr<T>(dpre.data() + i0, i1 - i0) = CMapArr<T>(dout + i0, i1 - i0) * (sg * (T(1) + x * (T(1) - sg)));
  });
  if (din) {
    // in[t] feeds pre[t + K-1-j] through tap j.
    const std::vector<T> wt = taps_by_row(w, Ch, K);
    parallel_rows(static_cast<int64_t>(B) * Tn, *pool_, [&](int64_t row) {
      const int t = static_cast<int>(row % Tn);
      const size_t off = static_cast<size_t>(row) * Ch;
      MapArr<T> acc(din + off, Ch);
      acc.setZero();
      for (int j = std::max(0, K - Tn + t); j < K; ++j)
        acc += CMapArr<T>(wt.data() + static_cast<size_t>(j) * Ch, Ch) *
               CMapArr<T>(dpre.data() + off + static_cast<size_t>(K - 1 - j) * Ch, Ch);
    });
  }
  if (dw) {
    parallel_columns(Ch, *pool_, [&](int c0, int c1) {
      const int w = c1 - c0;
      std::vector<double> acc(static_cast<size_t>(K) * w, 0.0);  // (K, w): channels inner, so it vectorises
      for (int b = 0; b < B; ++b)
        for (int t = 0; t < Tn; ++t) {
          const size_t off = (static_cast<size_t>(b) * Tn + t) * Ch;
          for (int j = std::max(0, K - 1 - t); j < K; ++j) {
            const size_t src = off - static_cast<size_t>(K - 1 - j) * Ch;
            double* a = acc.data() + static_cast<size_t>(j) * w;
            for (int c = 0; c < w; ++c)
              a[c] += static_cast<double>(dpre[off + c0 + c]) * static_cast<double>(in[src + c0 + c]);
          }
        }
      for (int c = c0; c < c1; ++c)
        for (int j = 0; j < K; ++j)
          dw[static_cast<size_t>(c) * K + j] += static_cast<T>(acc[static_cast<size_t>(j) * w + (c - c0)]);
    });
  }
}

// ---- L2 normalisation ----

template <class T>
void CpuBackend<T>::l2norm_forward(T* out, T* rnorm, const T* in, int N, int d, T eps) {
  parallel_rows(N, *pool_, [&](int64_t n) {
    const size_t off = static_cast<size_t>(n) * d;
    const double ss = sum_of_products(in + off, in + off, d);
    const T r = static_cast<T>(1.0 / std::sqrt(ss + static_cast<double>(eps)));
    rnorm[n] = r;
    for (int i = 0; i < d; ++i) out[off + i] = in[off + i] * r;
  });
}

template <class T>
void CpuBackend<T>::l2norm_backward(T* din, const T* dout, const T* out, const T* rnorm, int N, int d) {
  // dx = r (g - y (g . y))
  parallel_rows(N, *pool_, [&](int64_t n) {
    const size_t off = static_cast<size_t>(n) * d;
    const T gy = static_cast<T>(sum_of_products(dout + off, out + off, d));
    for (int i = 0; i < d; ++i) din[off + i] = rnorm[n] * (dout[off + i] - out[off + i] * gy);
  });
}

// ---- re-normalisation over the open key rows ----

// One row's arithmetic is memory's (core/memory/key_normalize.hpp), shared with memory-op.
template <class T>
void CpuBackend<T>::prefix_renorm_forward(T* out, T* norm, const T* in, const int32_t* rows, int B, int Tn, int H,
                                          int d, bool capped, T eps) {
  parallel_rows(static_cast<int64_t>(B) * Tn * H, *pool_, [&](int64_t n) {
    const size_t off = static_cast<size_t>(n) * d;
    norm[n] = memory::renormalize_open_rows(in + off, out + off, rows[(n / H) % Tn], d, capped, eps);
  });
}

template <class T>
void CpuBackend<T>::prefix_renorm_backward(T* din, const T* dout, const T* out, const T* norm, const int32_t* rows,
                                           int B, int Tn, int H, int d, bool capped, T eps) {
  parallel_rows(static_cast<int64_t>(B) * Tn * H, *pool_, [&](int64_t n) {
    const size_t off = static_cast<size_t>(n) * d;
    memory::renormalize_open_rows_backward(din + off, dout + off, out + off, norm[n], rows[(n / H) % Tn], d, capped,
                                           eps);
  });
}

template <class T>
void CpuBackend<T>::prefix_mask(T* out, const T* x, const int32_t* rows, int B, int Tn, int H, int d) {
  parallel_rows(static_cast<int64_t>(B) * Tn * H, *pool_, [&](int64_t n) {
    const size_t off = static_cast<size_t>(n) * d;
    const int open = rows[n % (static_cast<int64_t>(Tn) * H)];  // n = (b T + t) H + h
    for (int i = 0; i < d; ++i) out[off + i] = i < open ? x[off + i] : T(0);
  });
}

// ---- elementwise gates ----

template <class T>
void CpuBackend<T>::sigmoid_forward(T* out, const T* in, size_t n) {
  parallel_elements(n, *pool_, [&](size_t i0, size_t i1) {
    for (size_t i = i0; i < i1; ++i) out[i] = sigmoid(in[i]);
  });
}

template <class T>
void CpuBackend<T>::sigmoid_backward(T* din, const T* dout, const T* out, size_t n) {
  parallel_elements(n, *pool_, [&](size_t i0, size_t i1) {
    for (size_t i = i0; i < i1; ++i) din[i] = dout[i] * out[i] * (T(1) - out[i]);
  });
}

template <class T>
void CpuBackend<T>::decay_forward(T* a, const T* in, const T* A_log, const T* dt_bias, int N, int H) {
  std::vector<T> A(H);  // exp(A_log), once per column (a per-key decay has H = heads x d_k columns)
  for (int h = 0; h < H; ++h) A[h] = std::exp(A_log[h]);
  parallel_rows(N, *pool_, [&](int64_t n) {
    for (int h = 0; h < H; ++h) {
      const size_t i = static_cast<size_t>(n) * H + h;
      a[i] = std::exp(-A[h] * softplus(in[i] + dt_bias[h]));
    }
  });
}

template <class T>
void CpuBackend<T>::decay_backward(T* din, T* dA_log, T* ddt_bias, const T* da, const T* a, const T* in,
                                   const T* A_log, const T* dt_bias, int N, int H) {
  // a = exp(-A sp(z)), A = exp(A_log), z = in + dt_bias: da/dz = -a A sp'(z), da/dA_log = -a A sp(z).
  std::vector<T> A(H);
  for (int h = 0; h < H; ++h) A[h] = std::exp(A_log[h]);
  std::vector<T> dz(static_cast<size_t>(N) * H);  // (N, H)
  parallel_rows(N, *pool_, [&](int64_t n) {
    for (int h = 0; h < H; ++h) {
      const size_t i = static_cast<size_t>(n) * H + h;
      dz[i] = -da[i] * a[i] * A[h] * softplus_grad(in[i] + dt_bias[h]);
    }
  });
  if (din) std::copy(dz.begin(), dz.end(), din);
  // Column sums in double, each over n in order, walked row by row (the rows are contiguous).
  std::vector<double> sum_dz(H, 0.0), sum_dA(dA_log ? H : 0, 0.0);
  for (int n = 0; n < N; ++n)
    for (int h = 0; h < H; ++h) {
      const size_t i = static_cast<size_t>(n) * H + h;
      sum_dz[h] += dz[i];
      if (dA_log) sum_dA[h] += -static_cast<double>(da[i]) * a[i] * A[h] * softplus(in[i] + dt_bias[h]);
    }
  for (int h = 0; h < H; ++h) {
    if (ddt_bias) ddt_bias[h] += static_cast<T>(sum_dz[h]);
    if (dA_log) dA_log[h] += static_cast<T>(sum_dA[h]);
  }
}

// ---- swiglu ----

template <class T>
void CpuBackend<T>::swiglu_forward(T* out, const T* gate, const T* up, size_t n) {
  parallel_elements(n, *pool_, [&](size_t i0, size_t i1) {
    const auto g = CMapArr<T>(gate + i0, i1 - i0);
    MapArr<T>(out + i0, i1 - i0) = g * g.logistic() * CMapArr<T>(up + i0, i1 - i0);
  });
}

template <class T>
void CpuBackend<T>::swiglu_backward(T* dgate, T* dup, const T* dout, const T* gate, const T* up, size_t n) {
  parallel_elements(n, *pool_, [&](size_t i0, size_t i1) {
    const size_t m = i1 - i0;
    const auto g = CMapArr<T>(gate + i0, m), d = CMapArr<T>(dout + i0, m);
    const Eigen::Array<T, Eigen::Dynamic, 1> sg = g.logistic();
    MapArr<T>(dgate + i0, m) = d * CMapArr<T>(up + i0, m) * (sg * (T(1) + g * (T(1) - sg)));
    MapArr<T>(dup + i0, m) = d * g * sg;
  });
}

template <class T>
void CpuBackend<T>::multiply(T* out, const T* x, const T* y, size_t n) {
  parallel_elements(n, *pool_, [&](size_t i0, size_t i1) {
    for (size_t i = i0; i < i1; ++i) out[i] = x[i] * y[i];
  });
}

// ---- residuals ----

template <class T>
void CpuBackend<T>::add(T* out, const T* x, const T* y, size_t n) {
  parallel_elements(n, *pool_, [&](size_t i0, size_t i1) {
    for (size_t i = i0; i < i1; ++i) out[i] = x[i] + y[i];
  });
}

template <class T>
void CpuBackend<T>::axpy(T* y, T alpha, const T* x, size_t n) {
  parallel_elements(n, *pool_, [&](size_t i0, size_t i1) {
    for (size_t i = i0; i < i1; ++i) y[i] += alpha * x[i];
  });
}

template <class T>
void CpuBackend<T>::scale(T* x, T alpha, size_t n) {
  parallel_elements(n, *pool_, [&](size_t i0, size_t i1) {
    for (size_t i = i0; i < i1; ++i) x[i] *= alpha;
  });
}

// ---- The query of an erase along p (comba_query) ----

template <class T>
void CpuBackend<T>::comba_query_forward(T* out, const T* q, const T* p, const T* dh, int N, int H, int d) {
  parallel_rows(N, *pool_, [&](int64_t n) {
    for (int h = 0; h < H; ++h) {
      const size_t off = (static_cast<size_t>(n) * H + h) * d;
      const T alpha = -dh[h];
      for (int i = 0; i < d; ++i) out[off + i] = q[off + i] + alpha * p[off + i];  // axpy's rounding, as before
    }
  });
}

template <class T>
void CpuBackend<T>::comba_query_backward(T* dp, T* ddh, const T* dout, const T* p, const T* dh, int N, int H,
                                         int d) {
  if (dp)
    parallel_rows(N, *pool_, [&](int64_t n) {
      for (int h = 0; h < H; ++h) {
        const size_t off = (static_cast<size_t>(n) * H + h) * d;
        const T alpha = -dh[h];
        for (int i = 0; i < d; ++i) dp[off + i] += alpha * dout[off + i];
      }
    });
  if (ddh)
    // Summed in T, rows then width in order: the bits the model's host loop gave before this op.
    parallel_for(H, *pool_, [&](int64_t h) {
      T acc = T(0);
      for (int n = 0; n < N; ++n) {
        const size_t off = (static_cast<size_t>(n) * H + h) * d;
        for (int i = 0; i < d; ++i) acc -= dout[off + i] * p[off + i];
      }
      ddh[h] += acc;
    });
}

// ---- softmax cross-entropy ----

template <class T>
void CpuBackend<T>::xent_forward(T* losses, T* probs, const T* logits, const int32_t* targets, const T* weight,
                                 int N, int V) {
  parallel_rows(N, *pool_, [&](int64_t n) {
    const T* l = logits + static_cast<size_t>(n) * V;
    T* p = probs + static_cast<size_t>(n) * V;
    // Eigen's packet max: std::max_element kept its running max on the stack, each compare waiting
    // on the last store (three quarters of this op, perf).
    const T mx = CMapArr<T>(l, V).maxCoeff();
    // Vectorised exponentials, summed in double as the norms' rows are (lane_sum).
    MapArr<T> P(p, V);
    P = (CMapArr<T>(l, V) - mx).exp();
    const double se = lane_sum(V, [&](int v) { return static_cast<double>(p[v]); });
    const T inv = static_cast<T>(1.0 / se);
    for (int v = 0; v < V; ++v) p[v] *= inv;
    const T wt = weight ? weight[n] : T(1);
    // -log softmax[target] = log(sum e^(l - mx)) - (l[target] - mx); a weight-0 row never reads its target.
    losses[n] = wt == T(0) ? T(0) : static_cast<T>((std::log(se) - (l[targets[n]] - mx)) * wt);
  });
}

template <class T>
void CpuBackend<T>::xent_backward(T* dlogits, const T* probs, const int32_t* targets, const T* weight,
                                  T dloss_scale, int N, int V) {
  parallel_rows(N, *pool_, [&](int64_t n) {
    const T* p = probs + static_cast<size_t>(n) * V;
    T* d = dlogits + static_cast<size_t>(n) * V;
    const T wt = weight ? weight[n] : T(1);
    if (wt == T(0)) {
      std::fill(d, d + V, T(0));
      return;
    }
    const T s = wt * dloss_scale;
    for (int v = 0; v < V; ++v) d[v] = p[v] * s;
    d[targets[n]] = (p[targets[n]] - T(1)) * s;
  });
}

// ---- causal softmax attention ----

template <class T>
void CpuBackend<T>::attention_forward(T* out, T* probs, const T* q, const T* k, const T* v, int B, int Tn, int H,
                                      int d) {
  const T scale = static_cast<T>(1.0 / std::sqrt(static_cast<double>(d)));
  const Eigen::OuterStride<> stride(static_cast<Eigen::Index>(H) * d);
  parallel_for(static_cast<int64_t>(B) * H, *pool_, [&](int64_t bh) {
    const int b = static_cast<int>(bh / H), h = static_cast<int>(bh % H);
    const size_t off = static_cast<size_t>(b) * Tn * H * d + static_cast<size_t>(h) * d;
    const CStridedMat<T> Q(q + off, Tn, d, stride), K(k + off, Tn, d, stride), Vm(v + off, Tn, d, stride);
    MapMat<T> P(probs + static_cast<size_t>(bh) * Tn * Tn, Tn, Tn);  // (T, T)
    P.noalias() = Q * K.transpose();
    for (int i = 0; i < Tn; ++i) {
      T* row = P.data() + static_cast<size_t>(i) * Tn;
      T mx = row[0] * scale;
      for (int j = 1; j <= i; ++j) mx = std::max(mx, row[j] * scale);
      double se = 0;
      for (int j = 0; j <= i; ++j) se += row[j] = std::exp(row[j] * scale - mx);
      const T inv = static_cast<T>(1.0 / se);
      for (int j = 0; j <= i; ++j) row[j] *= inv;
      std::fill(row + i + 1, row + Tn, T(0));  // the future is masked
    }
    StridedMat<T> O(out + off, Tn, d, stride);
    O.noalias() = P * Vm;
  });
}

template <class T>
void CpuBackend<T>::attention_backward(T* dq, T* dk, T* dv, const T* dout, const T* probs, const T* q, const T* k,
                                       const T* v, int B, int Tn, int H, int d) {
  const T scale = static_cast<T>(1.0 / std::sqrt(static_cast<double>(d)));
  const Eigen::OuterStride<> stride(static_cast<Eigen::Index>(H) * d);
  parallel_for(static_cast<int64_t>(B) * H, *pool_, [&](int64_t bh) {
    const int b = static_cast<int>(bh / H), h = static_cast<int>(bh % H);
    const size_t off = static_cast<size_t>(b) * Tn * H * d + static_cast<size_t>(h) * d;
    const CStridedMat<T> Q(q + off, Tn, d, stride), K(k + off, Tn, d, stride), Vm(v + off, Tn, d, stride);
    const CStridedMat<T> dO(dout + off, Tn, d, stride);
    const CMapMat<T> P(probs + static_cast<size_t>(bh) * Tn * Tn, Tn, Tn);
    RowMat<T> dS = dO * Vm.transpose();  // dP, then dS in place: (T, T)
    for (int i = 0; i < Tn; ++i) {
      const T* p = P.data() + static_cast<size_t>(i) * Tn;
      T* ds = dS.data() + static_cast<size_t>(i) * Tn;
      double dot = 0;
      for (int j = 0; j <= i; ++j) dot += static_cast<double>(p[j]) * ds[j];
      const T pd = static_cast<T>(dot);
      for (int j = 0; j <= i; ++j) ds[j] = p[j] * (ds[j] - pd) * scale;
      std::fill(ds + i + 1, ds + Tn, T(0));
    }
    StridedMat<T> dQ(dq + off, Tn, d, stride), dK(dk + off, Tn, d, stride), dV(dv + off, Tn, d, stride);
    dQ.noalias() = dS * K;
    dK.noalias() = dS.transpose() * Q;
    dV.noalias() = P.transpose() * dO;
  });
}

// ---- reductions ----

template <class T>
double CpuBackend<T>::sum(const T* x, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; ++i) s += x[i];
  return s;
}

template <class T>
double CpuBackend<T>::sum_squares(const T* x, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; ++i) s += static_cast<double>(x[i]) * x[i];
  return s;
}

// ---- AdamW ----

template <class T>
void CpuBackend<T>::adamw_update(T* params, const T* grads, T* m, T* v, const T* update_mask, const T* decay_mask,
                                 size_t n, T lr, T beta1, T beta2, T eps, T weight_decay, int step) {
  if (step < 1) throw InputError("step", "AdamW steps are 1-based, got " + std::to_string(step));
  const T bc1 = static_cast<T>(1.0 - std::pow(static_cast<double>(beta1), step));
  const T bc2 = static_cast<T>(1.0 - std::pow(static_cast<double>(beta2), step));
  parallel_elements(n, *pool_, [&](size_t i0, size_t i1) {
    for (size_t i = i0; i < i1; ++i) {
      if (update_mask && update_mask[i] == T(0)) continue;  // locked: every bit stays
      const T g = grads[i];
      m[i] = beta1 * m[i] + (T(1) - beta1) * g;
      v[i] = beta2 * v[i] + (T(1) - beta2) * g * g;
      const T m_hat = m[i] / bc1, v_hat = v[i] / bc2;
      const T wd = decay_mask ? weight_decay * decay_mask[i] : weight_decay;
      params[i] -= lr * (m_hat / (std::sqrt(v_hat) + eps) + wd * params[i]);
    }
  });
}

template <class T>
std::unique_ptr<Backend<T>> make_cpu_backend(int threads) {
  // A training step allocates and frees the same large buffers every step (per-head gradients,
  // chunk workspaces). glibc would hand them back to the kernel and fault them in again, zeroed,
  // at every step (a fifth of a d_head 128 step); keep freed memory in the process instead.
  static const bool kept = mallopt(M_MMAP_THRESHOLD, 512 << 20) == 1 && mallopt(M_TRIM_THRESHOLD, 1 << 30) == 1;
  (void)kept;
  auto be = std::make_unique<CpuBackend<T>>(threads);
  Eigen::setNbThreads(be->threads());
  return be;
}

template class CpuBackend<float>;
template class CpuBackend<double>;
template std::unique_ptr<Backend<float>> make_cpu_backend<float>(int);
template std::unique_ptr<Backend<double>> make_cpu_backend<double>(int);

}  // namespace proteus::backend
