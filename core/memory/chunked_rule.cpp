#include "core/memory/chunked_rule.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/memory/active_prefix.hpp"
#include "core/memory/chunk_matrices.hpp"
#include "core/memory/chunk_size.hpp"
#include "core/memory/chunked_per_key_rule.hpp"
#include "core/memory/log_retention.hpp"
#include "core/memory/rule_coverage.hpp"
#include "core/memory/rule_family.hpp"
#include "core/memory/rows_product.hpp"
#include "core/memory/streamed_copy.hpp"

namespace proteus::memory {
namespace {

using detail::Into;
using detail::Mat;
using detail::OpA;
using detail::rows_product;
using detail::rows_product_transposed_b;
using detail::StateMap;
using detail::Vec;

bool erases(Rule rule) { return rule_traits(rule).family == RuleFamily::erasing; }
// The erase reads the state before the step's decay: ĝ_t = g_{t-1} instead of g_t.
bool erases_undecayed(Rule rule) { return erases(rule) && !rule_traits(rule).decayed_prediction; }
// The erase runs along the step's own key (else along p).
bool erases_along_key(Rule rule) { return erases(rule) && !rule_uses_p(rule); }
// One write per step along k_t with weight beta_t, nothing erased.
bool writes_once(Rule rule) { return !erases(rule) && !rule_uses_gamma(rule); }

// A chunk whose cumulative log-decay stays above -kFactoredDecay builds its decay mask from 2L
// exponentials (e^40 ~ 2e17: far from float's overflow, and e^-40 far above its subnormals).
constexpr double kFactoredDecay = 40.0;

// One chunk's inputs and the products both passes need; the backward recomputes them.
// A chunk reads at its L steps and makes Lw writes k_w u_w^T, write w at step wt[w]: one per step
// but for window writes, c per step (k_{t-j} weighted by gamma_t[j]).
template <class T>
struct Chunk {
  int64_t n0 = 0, L = 0, R = 0, W = 0, Lw = 0;  // first token, steps, rows and columns open anywhere in it, writes
  std::vector<int64_t> rows, cols;  // (L) open key rows, open value columns of each step
  bool rows_alike = false, cols_alike = false;  // every step opens R rows, W columns
  std::vector<int64_t> wt, src;  // (Lw) the step a write happens at, the token whose k, v it writes (-1: none)
  std::vector<int64_t> lag;      // (Lw) the window offset j of the write
  Vec<T> la, g, gh, beta;        // (L) log retention, cumulative log-decay, the erase's, write strength
  Vec<T> eg, egh, down;          // (L) e^{g_t}, e^{ĝ_t} (computed once: a diagonal product would redo them
                                 // per element), e^{-g_t} (when the chunk's decay lets it factor GB)
  Mat<T> Q, K, P, V;             // (L, R) masked by selection (P: the erase's own directions); V (L, W)
  Mat<T> Kwin, Vw;               // a window's (Lw, R) write keys, masked by their step's m_t; (Lw, W) their values
  const Mat<T>* e = nullptr;     // the erase's directions: K or P
  const Mat<T>* kw = nullptr;    // the write keys: K (one write a step) or Kwin; pointed at, not
                                 // copied (a chunk's matrices overflow L1 already)
  const Mat<T>& E() const { return *e; }
  const Mat<T>& Kw() const { return *kw; }
  Chunk() = default;
  Chunk(const Chunk&) = delete;  // e and kw point into this chunk
  Chunk& operator=(const Chunk&) = delete;
  Vec<T> ww;                     // (Lw) the window's write weights gamma_t[j]
  Mat<T> GB, GA;                 // (L, Lw) e^{g_t - g_wt} for wt <= t; (L, L) e^{ĝ_t - g_s} for s < t; else 0
  Mat<T> MB, MA;                 // (L, Lw) (Q Kw^T) ⊙ GB, (L, L) (E K^T) ⊙ GA
  Mat<T> IA, Ainv, AinvB;        // (L, L) I + diag(beta) MA (unit lower triangular), its inverse, Ainv diag(beta)
  Mat<T> Ed, Res, U;             // (L, R) diag(e^ĝ) E; (L, W) V - Ed H; (Lw, W) write values
  Mat<T> QE, QEH;                // (2L, R) Q over Ed, (2L, W) their products with H: the forward's one product
};

// Copies row t of a (T, width) input into row c of dst, zero past `open` columns (selection).
template <class Dst, class T>
void masked_row(Dst&& dst, int64_t c, const T* src, int64_t open) {
  const int64_t n = std::min<int64_t>(open, dst.cols());
  dst.row(c).head(n) = Eigen::Map<const Eigen::Matrix<T, 1, Eigen::Dynamic>>(src, n);
  dst.row(c).tail(dst.cols() - n).setZero();
}

// Rows n0.. of a (T, width) input into dst (L, open-anywhere width), each zero past its step's open
// width; where every step opens the whole width (`alike`: all chunks at E 1, most at E 16), one
// block copy instead of a copy per row (masked_row was 4% of delta's fwd+bwd, perf).
// dst: a matrix sized beforehand, or a block of one.
template <class Dst, class T>
void masked_rows(Dst&& dst, const T* src, int64_t width, const std::vector<int64_t>& open, bool alike) {
  if (alike) {
    dst = Eigen::Map<const Mat<T>, 0, Eigen::OuterStride<>>(src, dst.rows(), dst.cols(), Eigen::OuterStride<>(width));
    return;
  }
  for (int64_t t = 0; t < dst.rows(); ++t) masked_row(dst, t, src + t * width, open[t]);
}

template <class T>
void load_chunk(Rule rule, const Schedule& s, const RuleInputs<T>& in, int64_t n0, int64_t L, Chunk<T>& c) {
  const int64_t d_k = in.d_k, d_v = in.d_v;
  c.n0 = n0, c.L = L;
  c.rows.resize(L), c.cols.resize(L);
  c.R = 0, c.W = 0;
  for (int64_t t = 0; t < L; ++t) {
    const detail::ActiveSet act = detail::active_set(s, in, n0 + t);
    c.R = std::max(c.R, c.rows[t] = act.rows);
    c.W = std::max(c.W, c.cols[t] = act.cols);
  }
  c.la.resize(L), c.g.resize(L), c.gh.resize(L), c.beta.resize(L);
  for (int64_t t = 0; t < L; ++t) {
    c.la[t] = in.a ? clamped_log_retention(in.a[n0 + t]) : T(0);
    c.g[t] = (t ? c.g[t - 1] : T(0)) + c.la[t];
    c.gh[t] = erases_undecayed(rule) ? (t ? c.g[t - 1] : T(0)) : c.g[t];
    c.beta[t] = in.beta ? in.beta[n0 + t] : T(0);  // window writes have weights instead
  }
  c.rows_alike = std::all_of(c.rows.begin(), c.rows.end(), [&](int64_t r) { return r == c.R; });
  c.cols_alike = std::all_of(c.cols.begin(), c.cols.end(), [&](int64_t w) { return w == c.W; });
  c.eg = c.g.array().exp();
  c.egh = c.gh.array().exp();
  c.Q.resize(L, c.R), c.K.resize(L, c.R), c.V.resize(L, c.W);
  if (rule_uses_p(rule)) c.P.resize(L, c.R);
  masked_rows(c.Q, in.q + n0 * d_k, d_k, c.rows, c.rows_alike);
  masked_rows(c.K, in.k + n0 * d_k, d_k, c.rows, c.rows_alike);
  if (rule_uses_p(rule)) masked_rows(c.P, in.p + n0 * d_k, d_k, c.rows, c.rows_alike);
  masked_rows(c.V, in.v + n0 * d_v, d_v, c.cols, c.cols_alike);
  c.e = erases_along_key(rule) ? &c.K : &c.P;
  // The writes: one per step along k_t, or a window of earlier keys under this step's mask.
  const int64_t lags = rule_uses_gamma(rule) ? in.window : 1;
  c.Lw = lags * L;
  c.wt.resize(c.Lw), c.src.resize(c.Lw), c.lag.resize(c.Lw);
  if (!rule_uses_gamma(rule)) {
    for (int64_t t = 0; t < L; ++t) c.wt[t] = t, c.src[t] = n0 + t, c.lag[t] = 0;
    c.kw = &c.K;
    return;
  }
  c.Kwin.resize(c.Lw, c.R), c.Vw.resize(c.Lw, c.W), c.ww.resize(c.Lw);
  c.kw = &c.Kwin;
  for (int64_t j = 0; j < lags; ++j)
    for (int64_t t = 0; t < L; ++t) {
      const int64_t w = j * L + t, from = n0 + t - j;  // terms before the first token are left out
      c.wt[w] = t, c.src[w] = from >= 0 ? from : -1, c.lag[w] = j;
      c.ww[w] = from >= 0 ? in.gamma[(n0 + t) * in.window + j] : T(0);
      if (from >= 0) {
        masked_row(c.Kwin, w, in.k + from * d_k, c.rows[t]);
        masked_row(c.Vw, w, in.v + from * d_v, c.cols[t]);  // this step's widths, not the token's
      } else {
        c.Kwin.row(w).setZero();
        c.Vw.row(w).setZero();
      }
    }
}

// The decay masks, the pairwise products and U from the chunk-start state's open block HR (R, W).
// QH (the forward's Q H, or null) comes out of the same product as the erase's Ed H when the rule
// erases: HR is packed once for twice the rows.
template <class T, class HBlock>
void chunk_products(Rule rule, Chunk<T>& c, const HBlock& HR, Mat<T>* QH = nullptr) {
  const int64_t L = c.L;
  // Row t holds e^{g_t - g_s} for s <= t (g_t <= g_s: never above 1), zeros selected elsewhere;
  // a window's c blocks of writes share step times, so they share the first block's values.
  // As e^{g_t} e^{-g_s}: 2L exponentials instead of L^2 / 2, while the chunk's whole decay keeps both
  // factors far inside the type's range (e^{-g_s} <= e^{kFactoredDecay}); else one per pair.
  c.GB.setZero(L, c.Lw);
  if (c.g[L - 1] >= -T(kFactoredDecay)) {
    c.down = (-c.g.array()).exp();
    for (int64_t t = 0; t < L; ++t) c.GB.row(t).head(t + 1) = c.eg[t] * c.down.head(t + 1).transpose();
  } else {
    for (int64_t t = 0; t < L; ++t)
      c.GB.row(t).head(t + 1) = (c.g[t] - c.g.head(t + 1).array()).exp().matrix().transpose();
  }
  for (int64_t t = 0; t < L; ++t)
    for (int64_t j = 1; j * L < c.Lw; ++j) c.GB.row(t).segment(j * L, t + 1) = c.GB.row(t).head(t + 1);
  c.MB.resize(L, c.Lw);
  rows_product_transposed_b(c.MB, c.Q, c.Kw(), Into::assign);
  c.MB.array() *= c.GB.array();
  if (!erases(rule)) {
    if (rule_uses_gamma(rule))
      c.U = c.ww.asDiagonal() * c.Vw;
    else
      c.U = c.beta.asDiagonal() * c.V;
    if (QH) {
      QH->resize(L, c.W);
      rows_product(*QH, c.Q, OpA::as_is, HR, Into::assign);
    }
    return;
  }
  // e^{ĝ_t - g_s} for s < t is GB's row t (ĝ = g) or row t - 1 (ĝ_t = g_{t-1}): the same
  // exponentials, the same bits, not computed twice.
  const int64_t shift = erases_undecayed(rule) ? 1 : 0;
  c.GA.setZero(L, L);
  for (int64_t t = 1; t < L; ++t) c.GA.row(t).head(t) = c.GB.row(t - shift).head(t);
  c.MA.resize(L, L);
  rows_product_transposed_b(c.MA, c.E(), c.K, Into::assign);
  c.MA.array() *= c.GA.array();
  c.IA = c.beta.asDiagonal() * c.MA;
  c.IA.diagonal().setOnes();
  c.Ed = c.egh.asDiagonal() * c.E();
  if (QH) {
    c.QE.resize(2 * L, c.R);
    c.QE.topRows(L) = c.Q;
    c.QE.bottomRows(L) = c.Ed;
    c.QEH.resize(2 * L, c.W);
    rows_product(c.QEH, c.QE, OpA::as_is, HR, Into::assign);
    *QH = c.QEH.topRows(L);
    c.Res = c.V - c.QEH.bottomRows(L);
  } else {
    c.Res = c.V;
    c.Res.noalias() -= c.Ed * HR;
  }
  // U = IA^-1 diag(beta) Res through IA's inverse (L right-hand sides instead of W, then a dense
  // product, which the backward's IA^-T reuses): the two solves were 7% of the rule's time (perf).
  c.Ainv.setIdentity(L, L);
  c.IA.template triangularView<Eigen::UnitLower>().solveInPlace(c.Ainv);
  c.AinvB = c.Ainv * c.beta.asDiagonal();
  c.U.resize(L, c.W);
  rows_product(c.U, c.AinvB, OpA::as_is, c.Res, Into::assign);
}

// What a chunk's backward reads of the products above, kept by the forward of a rule that erases
// instead of made again (perf: a fifth of the backward's samples; the paired gain is smaller, 3-4%
// of delta's fwd+bwd, as reading them back costs part of it): the write values U, the read-write
// products MB and their decays GB, the residual, MA, GA and IA's inverse. Ed is remade (a diagonal
// scaling). A rule that only writes keeps none: its products are one small product and a scaling,
// cheaper made again than read back (linear and swla ran 6-7% slower keeping them).
// The products go after the last chunk's, into room sized for every chunk at full width.
template <class T>
void keep_products(const Chunk<T>& c, StateCheckpoints<T>& cp) {
  size_t at = cp.products_at.back();
  auto put = [&](const Mat<T>& m) {
    streamed_copy(m.data(), m.size(), cp.products.data() + at);  // read back only by the backward
    at += m.size();
  };
  put(c.U), put(c.MB), put(c.GB), put(c.Res), put(c.MA), put(c.GA), put(c.Ainv);
  cp.products_at.push_back(at);
}

// The products a chunk's backward reads, where they are: in what the forward kept, or in the chunk
// (made again). Read in place: copied back into the chunk, the copies were two thirds of the
// backward's own samples (perf, 2026-11-30).
template <class T>
struct ChunkProducts {
  using View = Eigen::Map<const Mat<T>>;
  View U, MB, GB, Res, MA, GA, Ainv;
};

template <class T>
ChunkProducts<T> products_in_chunk(const Chunk<T>& c) {
  using View = typename ChunkProducts<T>::View;
  auto of = [](const Mat<T>& m) { return View(m.data(), m.rows(), m.cols()); };
  return {of(c.U), of(c.MB), of(c.GB), of(c.Res), of(c.MA), of(c.GA), of(c.Ainv)};
}

// The products keep_products stored from p on, in its order; Ed is remade (a diagonal scaling).
template <class T>
ChunkProducts<T> restore_products(const T* p, Chunk<T>& c) {
  using View = typename ChunkProducts<T>::View;
  auto get = [&](int64_t rows, int64_t cols) {
    const View m(p, rows, cols);
    p += rows * cols;
    return m;
  };
  c.Ed = c.egh.asDiagonal() * c.E();
  // a braced list runs its calls left to right: U, MB, GB, Res, MA, GA, Ainv, as keep_products put them
  return ChunkProducts<T>{get(c.Lw, c.W), get(c.L, c.Lw), get(c.L, c.Lw), get(c.L, c.W),
                          get(c.L, c.L),  get(c.L, c.L),  get(c.L, c.L)};
}

// Window writes back to the tokens they read: a write may read a token of an earlier chunk, so
// these accumulate (the buffers start at zero).
template <class T>
void scatter_window_writes(const Chunk<T>& c, const Mat<T>& dKw, const Mat<T>& dU, const RuleInputs<T>& in,
                           detail::GradAccum<T>& g) {
  const int64_t d_k = in.d_k, d_v = in.d_v;
  for (int64_t w = 0; w < c.Lw; ++w) {
    const int64_t from = c.src[w], n = c.n0 + c.wt[w];
    if (from < 0) continue;
    T dweight = 0;
    for (int64_t x = 0; x < c.cols[c.wt[w]]; ++x) {
      dweight += dU(w, x) * c.Vw(w, x);
      g.v[from * d_v + x] += c.ww[w] * dU(w, x);
    }
    g.gamma[n * in.window + c.lag[w]] = dweight;
    for (int64_t i = 0; i < c.rows[c.wt[w]]; ++i) g.k[from * d_k + i] += dKw(w, i);
  }
}

// e^{g_L - g_wt} for each write: how much of it is left at the chunk's end (by_step is scratch).
template <class T>
void write_decay(const Chunk<T>& c, T gl, Vec<T>& by_step, Vec<T>& d) {
  by_step = (gl - c.g.array()).exp().matrix();
  d.resize(c.Lw);
  for (int64_t w = 0; w < c.Lw; ++w) d[w] = by_step[c.wt[w]];
}

// A chunk's backward: its gradients on the way from its outputs to its inputs, and the scratch
// between, kept from chunk to chunk (reallocated only where a chunk's shape changes).
template <class T>
struct ChunkGrads {
  Mat<T> dU, dQ, dK, dE, dV, dW;  // (Lw, W) U; (L, R) q; (Lw, R) the written keys; (L, R) the erase
                                  // directions (k, or p); (L, W) v; (L, W) IA^-1's input
  Vec<T> dbeta, dgh, dg;               // (L) beta, the shifted log retentions, the log retentions
  Mat<T> X;   // (L, W) dO, over -dRes then -dW when the rule erases (2L, W): one product for both
  Mat<T> Kt, dKt, Qd, QE, Y, dM, dQE;  // scratch
  Vec<T> by_step, decay, through, by_write;
};

// Through the state's update H' = e^{g_L} H + Kt^T U, Kt = diag(e^{g_L - g_wt}) Kw: dU, dK (the
// written keys'), dg; returns dL/dg_L. The caller then scales dHe by e^{g_L} in place: dH's start.
template <class T, class Rows, class Adjoint>
T backward_through_update(const Chunk<T>& c, const ChunkProducts<T>& p, const Rows& HR, const Adjoint& dHe,
                          ChunkGrads<T>& d) {
  const T gl = c.g[c.L - 1];
  T dgl = std::exp(gl) * HR.cwiseProduct(dHe).sum();
  write_decay(c, gl, d.by_step, d.decay);
  d.Kt = d.decay.asDiagonal() * c.Kw();
  d.dU.resize(c.Lw, c.W);
  rows_product(d.dU, d.Kt, OpA::as_is, dHe, Into::assign);
  d.dKt.resize(c.Lw, c.R);
  rows_product_transposed_b(d.dKt, p.U, dHe, Into::assign);
  d.dK = d.decay.asDiagonal() * d.dKt;  // dKw until the writes are scattered (window writes)
  d.through = d.Kt.cwiseProduct(d.dKt).rowwise().sum();
  dgl += d.through.sum();
  for (int64_t w = 0; w < c.Lw; ++w) d.dg[c.wt[w]] -= d.through[w];
  return dgl;
}

// Through the writes: U = IA^-1 W, W = diag(beta) Res, Res = V - Ed H (the erasing rules), or
// U = diag(beta) V (one write a step): dW = IA^-T dU, dV (= dRes), dbeta.
template <class T>
void backward_through_writes(Rule rule, const Chunk<T>& c, const ChunkProducts<T>& p, ChunkGrads<T>& d) {
  if (erases(rule)) {
    d.dW.resize(c.L, c.W);
    rows_product(d.dW, p.Ainv, OpA::transposed, d.dU, Into::assign);
    d.dbeta += d.dW.cwiseProduct(p.Res).rowwise().sum();
    d.dV = c.beta.asDiagonal() * d.dW;
  } else if (writes_once(rule)) {
    d.dV = c.beta.asDiagonal() * d.dU;
    d.dbeta += d.dU.cwiseProduct(c.V).rowwise().sum();
  }
}

// Through the chunk's reads of its start state, O's diag(e^g) Q H and the erase's Ed H: for a rule
// that erases, [dO; -dRes] H^T and [Qd; Ed]^T [dO; -dRes], one product each for both.
// dHs: the adjoint of the chunk's start state (its open block), added to.
template <class T, class Rows, class Adjoint>
void backward_through_state_reads(Rule rule, const Chunk<T>& c, const Rows& HR, ChunkGrads<T>& d, Adjoint dHs) {
  const int64_t L = c.L, n = d.X.rows();
  d.Qd = c.eg.asDiagonal() * c.Q;
  d.QE.resize(n, c.R);
  d.QE.topRows(L) = d.Qd;
  if (erases(rule)) {
    d.X.bottomRows(L) = -d.dV;
    d.QE.bottomRows(L) = c.Ed;
  }
  d.Y.resize(n, c.R);
  rows_product_transposed_b(d.Y, d.X, HR, Into::assign);  // dQd over dEd (n, R)
  rows_product(dHs, d.QE, OpA::transposed, d.X, Into::add);
  d.dQ = c.eg.asDiagonal() * d.Y.topRows(L);
  d.dg += d.Qd.cwiseProduct(d.Y.topRows(L)).rowwise().sum();
  if (erases(rule)) {
    d.dE = c.egh.asDiagonal() * d.Y.bottomRows(L);
    d.dgh += c.Ed.cwiseProduct(d.Y.bottomRows(L)).rowwise().sum();
  }
}

// Through the pairwise products MB = (Q Kw^T) ⊙ GB and MA = (E K^T) ⊙ GA: dMB = dO U^T and, for a
// rule that erases, dA = -dW U^T in the same product; then the decays, q, k and the erase's input.
template <class T>
void backward_through_pairs(Rule rule, const Chunk<T>& c, const ChunkProducts<T>& p, ChunkGrads<T>& d) {
  const int64_t L = c.L;
  if (erases(rule)) d.X.bottomRows(L) = -d.dW;
  d.dM.resize(d.X.rows(), c.Lw);
  rows_product_transposed_b(d.dM, d.X, p.U, Into::assign);  // dMB (L, Lw) over dA (L, L)
  auto dMB = d.dM.topRows(L);
  // dMB ⊙ MB is zero where the write comes after the read, as MB is.
  d.dg += dMB.cwiseProduct(p.MB).rowwise().sum();
  d.by_write = dMB.cwiseProduct(p.MB).colwise().sum().transpose();
  for (int64_t w = 0; w < c.Lw; ++w) d.dg[c.wt[w]] -= d.by_write[w];
  dMB.array() *= p.GB.array();  // dP_B, selected to wt <= t by GB's zeros
  if (!erases(rule)) {
    rows_product(d.dQ, dMB, OpA::as_is, c.Kw(), Into::add);
    rows_product(d.dK, dMB, OpA::transposed, c.Q, Into::add);
    return;
  }
  auto dA = d.dM.bottomRows(L);  // only s < t matters: MA and GA are zero elsewhere
  d.dbeta += dA.cwiseProduct(p.MA).rowwise().sum();
  dA.array().colwise() *= c.beta.array();  // dMA = diag(beta) dA
  d.dgh += dA.cwiseProduct(p.MA).rowwise().sum();
  d.dg -= dA.cwiseProduct(p.MA).colwise().sum().transpose();
  dA.array() *= p.GA.array();  // dP_A
  // dMB Kw over dP_A K in one product: a rule that erases writes along K (Kw is K: no window).
  d.dQE.resize(2 * L, c.R);
  rows_product(d.dQE, d.dM, OpA::as_is, c.K, Into::assign);
  d.dQ += d.dQE.topRows(L);
  d.dE += d.dQE.bottomRows(L);
  rows_product(d.dK, dMB, OpA::transposed, c.Q, Into::add);
  rows_product(d.dK, dA, OpA::transposed, c.E(), Into::add);
}

// The chunk's input gradients into g: the log retentions back to a (a cumulative sum), beta,
// and q, k, p, v on their open rows (a window's keys and values come through its writes instead).
template <class T>
void write_chunk_grads(Rule rule, const Chunk<T>& c, const RuleInputs<T>& in, T dgl, ChunkGrads<T>& d,
                       detail::GradAccum<T>& g) {
  using Row = Eigen::Map<Eigen::Matrix<T, 1, Eigen::Dynamic>>;
  const int64_t d_k = in.d_k, d_v = in.d_v, L = c.L;
  // ĝ is g, or g shifted by one for an erase before the decay.
  if (erases_undecayed(rule))
    for (int64_t t = 1; t < L; ++t) d.dg[t - 1] += d.dgh[t];
  else if (erases(rule))
    d.dg += d.dgh;
  d.dg[L - 1] += dgl;
  T suffix = 0;
  for (int64_t t = L - 1; t >= 0; --t) {
    suffix += d.dg[t];
    const int64_t n = c.n0 + t, r = c.rows[t];  // open rows only: the rest stay 0 (selection)
    g.a[n] = in.a ? retention_grad(suffix, in.a[n]) : suffix;  // dL/da = dL/dlog(a) / a (a = 1 when absent)
    if (rule_uses_beta(rule)) g.beta[n] = d.dbeta[t];
    Row(g.q.data() + n * d_k, r) = d.dQ.row(t).head(r);
    if (rule_uses_gamma(rule)) continue;  // its keys and values are reached through the writes
    if (erases_along_key(rule))
      Row(g.k.data() + n * d_k, r) = d.dK.row(t).head(r) + d.dE.row(t).head(r);
    else
      Row(g.k.data() + n * d_k, r) = d.dK.row(t).head(r);
    if (rule_uses_p(rule)) Row(g.p.data() + n * d_k, r) = d.dE.row(t).head(r);
    Row(g.v.data() + n * d_v, c.cols[t]) = d.dV.row(t).head(c.cols[t]);
  }
}

template <class T>
void check_chunked(Rule rule, const Schedule& schedule, const RuleInputs<T>& in, int64_t chunk_size) {
  detail::check_rule_inputs(rule, schedule, in);
  std::string why;
  if (!chunked_form_applies(rule, schedule, in.d_v, &why)) throw InputError(rule_has_chunked_form(rule) ? "E" : "rule", why);
  if (in.S0) throw InputError("S0", "the chunked form starts from a zero state (the zero-state lemma, math.md section 3); use the recurrent form");
  if (chunk_size < 1) throw InputError("chunk_size", "must be >= 1, got " + std::to_string(chunk_size));
  // Open widths that shrank would leave written elements behind a lock, outside the lemma.
  for (int64_t n = 1; in.open_widths && n < in.T; ++n)
    if (in.open_widths[n * in.open_widths_stride] < in.open_widths[(n - 1) * in.open_widths_stride])
      throw InputError("open_widths", "shrink at step " + std::to_string(n) + "; the chunked form needs them never to shrink");
}

}  // namespace

bool chunked_form_applies(Rule rule, const Schedule& schedule, int64_t d_v, std::string* why_not) {
  auto no = [&](const std::string& why) {
    if (why_not) *why_not = why;
    return false;
  };
  if (!rule_has_chunked_form(rule))
    return no("rule " + std::string(rule_name(rule)) + " has no chunked form (its momentum is a second recurrence; " +
              rules_where(rule_has_chunked_form) + " have one)");
  if (const RuleCoverage cover = cpu_coverage(rule); cover.chunk == ChunkKind::none)
    return no("rule " + std::string(rule_name(rule)) + ": no chunk implements its traits (" +
              (cover.recurrent ? std::string("the recurrent form runs it") : cover.why_not) + ")");
  if (!schedule.row_aligned(d_v))
    return no("E = " + std::to_string(schedule.E()) + " puts a block boundary inside a key row of " +
              std::to_string(d_v) + " elements; the chunked form needs E to divide d_k");
  return true;
}

int64_t default_chunk_size(int64_t d_k) { return default_chunk_size(ChunkBackend::cpu, d_k); }

int64_t chunk_products_kept(Rule rule, int64_t chunk, int64_t d_v) {
  if (cpu_coverage(rule).chunk != ChunkKind::shared_decay || !erases(rule)) return 0;
  const int64_t L = chunk;  // a rule that erases writes once a step
  return 2 * L * d_v + 5 * L * L;  // U, Res; MB, GB, MA, GA, IA's inverse
}

template <class T>
void chunked_rule_forward(Rule rule, const Schedule& schedule, const RuleInputs<T>& in, int64_t chunk_size, T* o,
                          T* S_final, StateCheckpoints<T>* checkpoints) {
  check_chunked(rule, schedule, in, chunk_size);
  const int64_t d_k = in.d_k, d_v = in.d_v, D = d_k * d_v, chunks = checkpoint_ranges(in.T, chunk_size);
  // The state lives in two buffers that stay in the cache, a chunk's start and its end, swapped
  // after each chunk; each end state goes on to its checkpoint by streaming stores. Written in
  // place, every checkpoint line was read from memory before its first write (the forward's
  // largest stall, perf), and nothing reads a checkpoint before the backward.
  std::vector<T> Hbuf(D, T(0)), Hnext(D);
  T* start = Hbuf.data();
  T* end = Hnext.data();
  const ChunkKind kind = cpu_coverage(rule).chunk;
  if (checkpoints) {
    checkpoints->every = chunk_size;
    checkpoints->S.resize(chunks * D);  // every chunk's start state is written below
    if (chunks > 0) std::fill(checkpoints->S.begin(), checkpoints->S.begin() + D, T(0));  // S_0 = 0
    checkpoints->Z.clear();
    checkpoints->products_at.assign(1, 0);
    // room for every chunk at full width (no reallocation), cut to what was kept at the end
    checkpoints->products.resize(chunks * chunk_products_kept(rule, chunk_size, d_v));
  }
  Chunk<T> c;
  Mat<T> QH, O, Kt;
  Vec<T> by_step, decay;
  const bool keeps = checkpoints && chunk_products_kept(rule, chunk_size, d_v) > 0;
  for (int64_t ci = 0; ci < chunks; ++ci) {
    const int64_t n0 = ci * chunk_size, L = std::min(chunk_size, in.T - n0);
    if (ci > 0) std::swap(start, end);
    if (checkpoints && ci > 0) streamed_copy(start, D, checkpoints->S.data() + ci * D);
    if (kind != ChunkKind::shared_decay) {  // a row of retentions: its own chunk (chunked_per_key_rule.hpp)
      std::copy(start, start + D, end);
      detail::per_key_chunk_forward(kind == ChunkKind::per_key_erase, schedule, in, n0, L, end, o);
      continue;
    }
    load_chunk(rule, schedule, in, n0, L, c);
    StateMap<T> H(start, d_k, d_v), Hend(end, d_k, d_v);
    auto HR = H.topLeftCorner(c.R, c.W);
    chunk_products(rule, c, HR, o ? &QH : nullptr);
    if (keeps) keep_products(c, *checkpoints);
    if (o) {  // O = diag(e^g) Q H + MB U
      O.noalias() = c.eg.asDiagonal() * QH;
      rows_product(O, c.MB, OpA::as_is, c.U, Into::add);
      for (int64_t t = 0; t < L; ++t) {  // locked columns read 0 (selection)
        T* row = o + (n0 + t) * d_v;
        Eigen::Map<Eigen::Matrix<T, 1, Eigen::Dynamic>>(row, c.cols[t]) = O.row(t).head(c.cols[t]);
        std::fill(row + c.cols[t], row + d_v, T(0));
      }
    }
    const T gl = c.g[L - 1];
    write_decay(c, gl, by_step, decay);
    Kt = decay.asDiagonal() * c.Kw();
    auto HRend = Hend.topLeftCorner(c.R, c.W);
    // rows past R and columns past W pass through (locked: never decayed)
    Hend.bottomRows(d_k - c.R) = H.bottomRows(d_k - c.R);
    Hend.topRightCorner(c.R, d_v - c.W) = H.topRightCorner(c.R, d_v - c.W);
    HRend = std::exp(gl) * HR;
    rows_product(HRend, Kt, OpA::transposed, c.U, Into::add);
  }
  if (checkpoints) streamed_copy_done();
  if (keeps) checkpoints->products.resize(checkpoints->products_at.back());
  const T* last = chunks > 0 ? end : start;  // the last chunk's end, or S_0
  if (S_final) std::copy(last, last + D, S_final);
}

template <class T>
void chunked_rule_backward(Rule rule, const Schedule& schedule, const RuleInputs<T>& in,
                           const StateCheckpoints<T>& checkpoints, const T* dO, const T* dS_final,
                           const RuleGrads<T>& grads) {
  check_chunked(rule, schedule, in, checkpoints.every);
  if (grads.S0) throw InputError("S0", "the chunked form starts from a zero state and has no S0 gradient");
  const int64_t d_k = in.d_k, d_v = in.d_v, D = d_k * d_v, C = checkpoints.every;
  const int64_t chunks = checkpoint_ranges(in.T, C);
  if (static_cast<int64_t>(checkpoints.S.size()) != chunks * D)
    throw InputError("checkpoints", "do not come from a chunked forward of these shapes");
  detail::GradAccum<T>& g = detail::zero_grads(rule, in, dS_final);
  StateMap<T> dH(g.S.data(), d_k, d_v);  // adjoint of the state at the current chunk's end
  Chunk<T> c;
  ChunkGrads<T> d;
  const ChunkKind kind = cpu_coverage(rule).chunk;
  // A forward's checkpoints carry its products (keep_products); without them they are made again.
  const bool kept = static_cast<int64_t>(checkpoints.products_at.size()) == chunks + 1;
  for (int64_t ci = chunks - 1; ci >= 0; --ci) {
    const int64_t n0 = ci * C, L = std::min(C, in.T - n0);
    if (kind != ChunkKind::shared_decay) {
      detail::per_key_chunk_backward(kind == ChunkKind::per_key_erase, schedule, in, n0, L,
                                     checkpoints.S.data() + ci * D, g.S.data(), dO, g);
      continue;
    }
    load_chunk(rule, schedule, in, n0, L, c);
    const StateMap<T> Hfull(const_cast<T*>(checkpoints.S.data()) + ci * D, d_k, d_v);
    const auto HR = Hfull.topLeftCorner(c.R, c.W);
    if (!kept) chunk_products(rule, c, HR);
    const ChunkProducts<T> p =
        kept ? restore_products(checkpoints.products.data() + checkpoints.products_at[ci], c) : products_in_chunk(c);
    // dH's open block: the chunk end's adjoint, turned into its start's in place (rows past R,
    // columns past W pass through: locked, never decayed).
    auto dHe = dH.topLeftCorner(c.R, c.W);
    d.dg.setZero(L), d.dgh.setZero(L), d.dbeta.setZero(L);
    const T dgl = backward_through_update(c, p, HR, dHe, d);
    dHe *= std::exp(c.g[L - 1]);
    d.X.resize(erases(rule) ? 2 * L : L, c.W);
    if (dO)  // a locked column's read is 0 whatever its gradient
      masked_rows(d.X.topRows(L), dO + n0 * d_v, d_v, c.cols, c.cols_alike);
    else
      d.X.topRows(L).setZero();
    rows_product(d.dU, p.MB, OpA::transposed, d.X.topRows(L), Into::add);  // O = diag(e^g) Q H + MB U
    backward_through_writes(rule, c, p, d);
    backward_through_state_reads(rule, c, HR, d, dHe);
    backward_through_pairs(rule, c, p, d);
    write_chunk_grads(rule, c, in, dgl, d, g);
    if (rule_uses_gamma(rule)) scatter_window_writes(c, d.dK, d.dU, in, g);
  }
  detail::copy_grads(rule, in, g, grads);
}

#define PROTEUS_INSTANTIATE(T)                                                                                  \
  template void chunked_rule_forward<T>(Rule, const Schedule&, const RuleInputs<T>&, int64_t, T*, T*,           \
                                        StateCheckpoints<T>*);                                                  \
  template void chunked_rule_backward<T>(Rule, const Schedule&, const RuleInputs<T>&, const StateCheckpoints<T>&, \
                                         const T*, const T*, const RuleGrads<T>&);
PROTEUS_INSTANTIATE(float)
PROTEUS_INSTANTIATE(double)
#undef PROTEUS_INSTANTIATE

}  // namespace proteus::memory
