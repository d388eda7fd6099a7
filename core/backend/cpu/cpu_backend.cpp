// The CPU backend's ops. Matrix products go to Eigen's GEMM over row-major maps, split into
// pieces whose shapes depend only on the problem; everything else is a loop over rows under
// OpenMP. Reductions across rows run in a fixed order (per column, rows ascending, in double),
// so a result has the same bits whatever the thread count.
// Eigen's own threading is off in this file: it picks its k-blocking by thread count, which
// would make the sums' order (and the bits) depend on the threads.
#define EIGEN_DONT_PARALLELIZE
#include "core/backend/cpu/cpu_backend.hpp"

#include <malloc.h>

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

#include "core/backend/cpu/flush_subnormals.hpp"
#include "core/backend/ops/activations.hpp"
#include "core/common/input_error.hpp"
#include "core/memory/checkpointed_rule.hpp"
#include "core/memory/chunked_rule.hpp"
#include "core/memory/key_normalize.hpp"

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

constexpr size_t kElementPiece = 1 << 14;  // elementwise ops: pieces of this many elements
constexpr int kColumnPiece = 64;           // column reductions: pieces of this many columns
constexpr int kMaxGemmPieces = 16;         // a GEMM is cut into at most this many pieces
constexpr double kMinGemmPieceFlops = 1 << 21;

// Runs body(i) for i in [0, count) on the pool; the first exception is rethrown here.
// grain: the fewest items worth the pool. Waking the workers costs microseconds; with tiny work
// (a few rows of a one-sequence forward, say) that costs more than the work, so small loops stay
// on the calling thread.
template <class Body>
void parallel_for(int64_t count, ThreadPool& pool, Body&& body, int64_t grain = 1) {
  if (count <= 0) return;
  const FlushSubnormals flush;
  if (pool.threads() == 1 || count < 2 * grain) {
    for (int64_t i = 0; i < count; ++i) body(i);
    return;
  }
  pool.run(count, [&](int64_t i) { body(i); });
}

// Row-wise ops (norms, embedding rows, cross-entropy rows): only worth threads by the dozen.
constexpr int64_t kRowGrain = 256;
template <class Body>
void parallel_rows(int64_t rows, ThreadPool& pool, Body&& body) {
  parallel_for(rows, pool, std::forward<Body>(body), kRowGrain);
}

// Elementwise ops: body(begin, end) over fixed pieces of n.
template <class Body>
void parallel_elements(size_t n, ThreadPool& pool, Body&& body) {
  const int64_t pieces = static_cast<int64_t>((n + kElementPiece - 1) / kElementPiece);
  parallel_for(pieces, pool, [&](int64_t i) {
    const size_t begin = static_cast<size_t>(i) * kElementPiece;
    body(begin, std::min(n, begin + kElementPiece));
  });
}

// Column reductions: body(c0, c1) over fixed pieces of C columns.
template <class Body>
void parallel_columns(int C, ThreadPool& pool, Body&& body) {
  const int pieces = (C + kColumnPiece - 1) / kColumnPiece;
  parallel_for(pieces, pool, [&](int64_t i) {
    const int c0 = static_cast<int>(i) * kColumnPiece;
    body(c0, std::min(C, c0 + kColumnPiece));
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

// ---- the memory rule's per-head state ----

template <class T>
struct CpuRuleState final : OpState {
  Rule rule = memory::kDefaultRule;
  int B = 0, Tn = 0, H = 0, d_k = 0, d_v = 0, window = 0;
  memory::RuleForm form = memory::RuleForm::recurrent;  // resolved: chunked or recurrent
  int64_t chunk = 0;
  memory::OpenWidths open_widths_of = memory::OpenWidths::value_columns;
  struct Head {
    std::vector<T> q, k, v, beta, a, p, eta, gamma;  // this head's rows, contiguous: (T, width)
    std::vector<int32_t> open_widths;                 // (T) block_axis value_rows / layer; empty = none
    memory::StateCheckpoints<T> checkpoints;         // chunk-start states: T / chunk of them, no tape
  };
  std::vector<Head> heads;  // (B, H)

  memory::RuleInputs<T> inputs(const Head& hd) const {
    auto ptr = [](const std::vector<T>& x) { return x.empty() ? nullptr : x.data(); };
    memory::RuleInputs<T> in;
    in.T = Tn;
    in.d_k = d_k;
    in.d_v = d_v;
    in.window = window;
    in.q = ptr(hd.q);
    in.k = ptr(hd.k);
    in.v = ptr(hd.v);
    in.beta = ptr(hd.beta);
    in.a = ptr(hd.a);
    in.p = ptr(hd.p);
    in.eta = ptr(hd.eta);
    in.gamma = ptr(hd.gamma);
    in.open_widths = hd.open_widths.empty() ? nullptr : hd.open_widths.data();
    in.open_widths_of = open_widths_of;
    return in;
  }
};

// Head (b, h)'s strided rows of a (B, T, H, width) tensor, gathered into (T, width).
template <class T>
void gather_head(std::vector<T>& dst, const T* src, int b, int h, int Tn, int H, int width) {
  dst.clear();
  if (!src) return;
  dst.resize(static_cast<size_t>(Tn) * width);
  for (int t = 0; t < Tn; ++t) {
    const T* row = src + ((static_cast<size_t>(b) * Tn + t) * H + h) * width;
    std::copy(row, row + width, dst.data() + static_cast<size_t>(t) * width);
  }
}

template <class T>
void scatter_head(T* dst, const T* src, int b, int h, int Tn, int H, int width) {
  if (!dst) return;
  for (int t = 0; t < Tn; ++t)
    std::copy(src + static_cast<size_t>(t) * width, src + static_cast<size_t>(t + 1) * width,
              dst + ((static_cast<size_t>(b) * Tn + t) * H + h) * width);
}

template <class T>
void check_rule_args(const MemoryRuleArgs<T>& args) {
  if (!args.schedule) throw InputError("schedule", "required");
  if (args.B < 0 || args.T < 0 || args.H < 0) throw InputError("B", "batch, tokens and heads must be >= 0");
  if (args.d_k < 1 || args.d_v < 1) throw InputError("d_k", "key and value widths must be >= 1");
  if (memory::rule_uses_gamma(args.rule) && args.window < 1) throw InputError("window", std::string(memory::rule_name(args.rule)) + " needs a window >= 1");
}

template <class T>
const CpuRuleState<T>& rule_state(const OpState& state, const MemoryRuleArgs<T>& args) {
  const auto* s = dynamic_cast<const CpuRuleState<T>*>(&state);
  if (!s) throw InputError("state", "does not come from this backend's memory_rule_forward");
  if (s->rule != args.rule || s->B != args.B || s->Tn != args.T || s->H != args.H || s->d_k != args.d_k ||
      s->d_v != args.d_v)
    throw InputError("state", "comes from a forward of another rule or other shapes");
  return *s;
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

// Zeroed, 64-byte aligned (Eigen's vector loads, a cache line).
void* zeroed_alloc(size_t bytes) {
  bytes = (std::max<size_t>(bytes, 1) + 63) / 64 * 64;  // aligned_alloc wants a multiple
  void* p = std::aligned_alloc(64, bytes);
  if (!p) throw std::bad_alloc();
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
    double ss = 0;
    for (int c = 0; c < C; ++c) ss += static_cast<double>(x[c]) * x[c];
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
      double dot = 0;
      for (int c = 0; c < C; ++c) dot += static_cast<double>(g[c]) * w[c] * x[c];
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

template <class T>
void CpuBackend<T>::matmul_forward(T* out, const T* in, const T* w, int N, int IC, int OC) {
  const CMapMat<T> W(w, OC, IC);
  const Split s = split_rows(N, 2.0 * IC * OC);
  parallel_for(s.count, *pool_, [&](int64_t i) {
    const int r0 = static_cast<int>(i) * s.per, rows = std::min(s.per, N - r0);
    const CMapMat<T> X(in + static_cast<size_t>(r0) * IC, rows, IC);
    MapMat<T> Y(out + static_cast<size_t>(r0) * OC, rows, OC);
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
      DX.noalias() = DY * W;  // (rows, IC)
    });
  }
  if (dw) {
    // Split over dw's rows: each piece sums over all N rows itself, so the order is fixed.
    const CMapMat<T> X(in, N, IC);
    const Split s = split_rows(OC, 2.0 * N * IC);
    parallel_for(s.count, *pool_, [&](int64_t i) {
      const int o0 = static_cast<int>(i) * s.per, rows = std::min(s.per, OC - o0);
      const CStridedMat<T> DY(dout + o0, N, rows, Eigen::OuterStride<>(OC));
      MapMat<T> DW(dw + static_cast<size_t>(o0) * IC, rows, IC);
      DW.noalias() += DY.transpose() * X;  // (rows, IC)
    });
  }
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
    double ss = 0;
    for (int i = 0; i < d; ++i) ss += static_cast<double>(in[off + i]) * in[off + i];
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
    double dot = 0;
    for (int i = 0; i < d; ++i) dot += static_cast<double>(dout[off + i]) * out[off + i];
    const T gy = static_cast<T>(dot);
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
    const T mx = *std::max_element(l, l + V);
    double se = 0;
    for (int v = 0; v < V; ++v) se += p[v] = std::exp(l[v] - mx);
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

// ---- the gated memory rule ----

template <class T>
std::unique_ptr<OpState> CpuBackend<T>::memory_rule_forward(T* o, const MemoryRuleArgs<T>& args) {
  check_rule_args(args);
  auto state = std::make_unique<CpuRuleState<T>>();
  state->rule = args.rule;
  state->B = args.B;
  state->Tn = args.T;
  state->H = args.H;
  state->d_k = args.d_k;
  state->d_v = args.d_v;
  state->window = memory::rule_uses_gamma(args.rule) ? args.window : 0;
  state->form = this->form_to_run(args);
  state->chunk = this->chunk_to_run(args);
  state->open_widths_of = args.open_widths_of;
  state->heads.resize(static_cast<size_t>(args.B) * args.H);
  const int Tn = args.T, H = args.H, d_k = args.d_k, d_v = args.d_v;
  parallel_for(static_cast<int64_t>(args.B) * H, *pool_, [&](int64_t bh) {
    const int b = static_cast<int>(bh / H), h = static_cast<int>(bh % H);
    auto& hd = state->heads[bh];
    gather_head(hd.q, args.q, b, h, Tn, H, d_k);
    gather_head(hd.k, args.k, b, h, Tn, H, d_k);
    gather_head(hd.v, args.v, b, h, Tn, H, d_v);
    gather_head(hd.beta, memory::rule_uses_beta(args.rule) ? args.beta : nullptr, b, h, Tn, H, 1);
    gather_head(hd.a, args.a, b, h, Tn, H, static_cast<int>(memory::retention_width(args.rule, d_k)));
    gather_head(hd.p, memory::rule_uses_p(args.rule) ? args.p : nullptr, b, h, Tn, H, d_k);
    gather_head(hd.eta, memory::rule_uses_eta(args.rule) ? args.eta : nullptr, b, h, Tn, H, 1);
    gather_head(hd.gamma, memory::rule_uses_gamma(args.rule) ? args.gamma : nullptr, b, h, Tn, H, state->window);
    if (args.open_widths) {  // (T, H): the same for every batch row
      hd.open_widths.resize(Tn);
      for (int t = 0; t < Tn; ++t) hd.open_widths[t] = args.open_widths[static_cast<size_t>(t) * H + h];
    }
    std::vector<T> oh(static_cast<size_t>(Tn) * d_v);  // (T, d_v)
    if (state->form == memory::RuleForm::chunked)
      memory::chunked_rule_forward<T>(args.rule, *args.schedule, state->inputs(hd), state->chunk, oh.data(), nullptr,
                                      &hd.checkpoints);
    else
      memory::checkpointed_rule_forward<T>(args.rule, *args.schedule, state->inputs(hd), state->chunk, oh.data(),
                                           nullptr, &hd.checkpoints);
    scatter_head(o, oh.data(), b, h, Tn, H, d_v);
  });
  return state;
}

template <class T>
void CpuBackend<T>::memory_rule_backward(const MemoryRuleGrads<T>& grads, const T* dO, const MemoryRuleArgs<T>& args,
                                         const OpState& state) {
  check_rule_args(args);
  const CpuRuleState<T>& st = rule_state(state, args);
  const int Tn = args.T, H = args.H, d_k = args.d_k, d_v = args.d_v, c = st.window;
  const size_t nk = static_cast<size_t>(Tn) * d_k, nv = static_cast<size_t>(Tn) * d_v;
  parallel_for(static_cast<int64_t>(args.B) * H, *pool_, [&](int64_t bh) {
    const int b = static_cast<int>(bh / H), h = static_cast<int>(bh % H);
    const auto& hd = st.heads[bh];
    std::vector<T> dOh;
    gather_head(dOh, dO, b, h, Tn, H, d_v);
    // This head's gradients, contiguous: q, k, p (T, d_k); v (T, d_v); beta, eta (T); a (T, 1 or d_k);
    // gamma (T, c).
    const int a_width = static_cast<int>(memory::retention_width(args.rule, d_k));
    std::vector<T> gq(nk), gk(nk), gv(nv), gbeta(Tn), ga(static_cast<size_t>(Tn) * a_width), gp(nk), geta(Tn), ggamma(static_cast<size_t>(Tn) * c);
    memory::RuleGrads<T> g;
    g.q = gq.data();
    g.k = gk.data();
    g.v = gv.data();
    g.beta = gbeta.data();
    g.a = ga.data();
    g.p = gp.data();
    g.eta = geta.data();
    g.gamma = ggamma.data();
    const T* dOp = dOh.empty() ? nullptr : dOh.data();
    if (st.form == memory::RuleForm::chunked)
      memory::chunked_rule_backward<T>(args.rule, *args.schedule, st.inputs(hd), hd.checkpoints, dOp, nullptr, g);
    else
      memory::checkpointed_rule_backward<T>(args.rule, *args.schedule, st.inputs(hd), hd.checkpoints, dOp, nullptr, g);
    scatter_head(grads.q, gq.data(), b, h, Tn, H, d_k);
    scatter_head(grads.k, gk.data(), b, h, Tn, H, d_k);
    scatter_head(grads.v, gv.data(), b, h, Tn, H, d_v);
    if (memory::rule_uses_beta(args.rule)) scatter_head(grads.beta, gbeta.data(), b, h, Tn, H, 1);
    scatter_head(grads.a, ga.data(), b, h, Tn, H, a_width);
    if (memory::rule_uses_p(args.rule)) scatter_head(grads.p, gp.data(), b, h, Tn, H, d_k);
    if (memory::rule_uses_eta(args.rule)) scatter_head(grads.eta, geta.data(), b, h, Tn, H, 1);
    if (memory::rule_uses_gamma(args.rule)) scatter_head(grads.gamma, ggamma.data(), b, h, Tn, H, c);
  });
}

template <class T>
void CpuBackend<T>::memory_block_norms(T* out, const MemoryRuleArgs<T>& args, const OpState& state, int n_blocks) {
  const CpuRuleState<T>& st = rule_state(state, args);
  const int64_t D = static_cast<int64_t>(args.d_k) * args.d_v;
  if (n_blocks < 1 || n_blocks > D)
    throw InputError("n_blocks", "must be in [1, " + std::to_string(D) + "], got " + std::to_string(n_blocks));
  const int64_t size = D / n_blocks;
  const int Tn = args.T;
  parallel_for(static_cast<int64_t>(args.B) * args.H, *pool_, [&](int64_t bh) {
    // States are recomputed from the forward's checkpoints, range by range (no tape is kept).
    const auto& hd = st.heads[bh];
    memory::replay_rule_states<T>(st.rule, *args.schedule, st.inputs(hd), hd.checkpoints, [&](int64_t n, const T* St) {
      T* dst = out + (static_cast<size_t>(bh) * Tn + (n - 1)) * n_blocks;
      for (int blk = 0; blk < n_blocks; ++blk) {
        const int64_t e0 = blk * size, e1 = blk + 1 == n_blocks ? D : e0 + size;  // the last absorbs the rest
        double ss = 0;
        for (int64_t e = e0; e < e1; ++e) ss += static_cast<double>(St[e]) * St[e];
        dst[blk] = static_cast<T>(std::sqrt(ss));
      }
    });
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
