#include "core/memory/chunked_per_key_rule.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/memory/active_prefix.hpp"
#include "core/memory/chunk_matrices.hpp"
#include "core/memory/log_retention.hpp"

namespace proteus::memory::detail {
namespace {

// One chunk's inputs over the rows and columns open anywhere in it (selection: zeros past a
// step's own widths), and the products both passes need; the backward recomputes them.
template <class T>
struct PerKeyChunk {
  int64_t L = 0, R = 0, W = 0;
  std::vector<int64_t> rows, cols;  // (L) open key rows, open value columns of each step
  Mat<T> Q, K, V;                   // (L, R), (L, R), (L, W)
  Mat<T> G;                         // (L, R) cumulative log-decay; a locked row does not decay
  Vec<T> beta;                      // (L)
  Mat<T> U;                         // (L, W) the written values: diag(beta) V, or the WY values of an erase
  Mat<T> A;                         // (L, L) lower triangle with the diagonal, 0 above
  Mat<T> AK, IA;                    // (L, L) an erase's key scores, strictly lower; I + diag(beta) AK
  Mat<T> Kg, Res;                   // (L, R) K ⊙ e^G, the erase's keys; (L, W) V - Kg H
  Mat<T> EG, Ed;                    // (L, R) e^G, e^{G_L - G}: the read's and the write's decays
  Mat<T> Qe, Kd;                    // (L, R) Q ⊙ e^G, K ⊙ e^{G_L - G}
  Mat<T> Ra;                        // (L, R) each step's retention e^{log a} (floored; 1 on a locked row)
};

template <class T>
void load(const Schedule& s, const RuleInputs<T>& in, int64_t n0, int64_t L, PerKeyChunk<T>& c) {
  const int64_t d_k = in.d_k, d_v = in.d_v;
  c.L = L, c.R = 0, c.W = 0;
  c.rows.resize(L), c.cols.resize(L);
  for (int64_t t = 0; t < L; ++t) {
    const ActiveSet act = active_set(s, in, n0 + t);
    c.R = std::max(c.R, c.rows[t] = act.rows);
    c.W = std::max(c.W, c.cols[t] = act.cols);
  }
  c.Q.setZero(L, c.R), c.K.setZero(L, c.R), c.G.setZero(L, c.R), c.V.setZero(L, c.W), c.beta.resize(L);
  c.Ra.resize(L, c.R);
  for (int64_t t = 0; t < L; ++t) {
    const int64_t n = n0 + t;
    for (int64_t i = 0; i < c.rows[t]; ++i) {
      c.Q(t, i) = in.q[n * d_k + i];
      c.K(t, i) = in.k[n * d_k + i];
    }
    for (int64_t i = 0; i < c.R; ++i) {
      const T la = in.a && i < c.rows[t] ? clamped_log_retention(in.a[n * d_k + i]) : T(0);
      c.G(t, i) = (t ? c.G(t - 1, i) : T(0)) + la;
      c.Ra(t, i) = std::exp(la);
    }
    for (int64_t j = 0; j < c.cols[t]; ++j) c.V(t, j) = in.v[n * d_v + j];
    c.beta[t] = in.beta[n];
  }
  c.U = c.beta.asDiagonal() * c.V;
  c.EG = c.G.array().exp().matrix();
  c.Ed = ((-c.G).rowwise() + c.G.row(L - 1)).array().exp().matrix();
  c.Qe = c.Q.cwiseProduct(c.EG);
  c.Kd = c.K.cwiseProduct(c.Ed);
}

// e^{G[t] - G[r]} for the rows t of [b0, b1) and e^{G[r] - G[s]} for s < b0, with r = b0 - 1:
// both exponents <= 0 since the cumulative log-decay never increases.
template <class T>
void cross_factors(const PerKeyChunk<T>& c, int64_t b0, int64_t b1, Mat<T>& Eq, Mat<T>& Ek) {
  const auto gr = c.G.row(b0 - 1);
  Eq = (c.G.middleRows(b0, b1 - b0).rowwise() - gr).array().exp().matrix();
  Ek = ((-c.G.topRows(b0)).rowwise() + gr).array().exp().matrix();
}

// The sub-chunk [b0, b1) with itself, pair by pair: f(t, s, e) for s <= t (s < t when `strict`)
// with e = e^{G[t] - G[s]} (R), the product of the retentions of steps s+1..t (a product, not an
// exp, per pair).
template <class T, class F>
void for_each_pair(const PerKeyChunk<T>& c, int64_t b0, int64_t b1, bool strict, F&& f) {
  Vec<T> e(c.R);
  for (int64_t s = b0; s < b1; ++s) {
    e.setOnes();
    for (int64_t t = s; t < b1; ++t) {
      if (t > s) e = e.cwiseProduct(c.Ra.row(t).transpose());
      if (t > s || !strict) f(t, s, e);
    }
  }
}

// A (L, L) with A[t, s] = sum_i X[t,i] K[s,i] e^{G[t,i] - G[s,i]} for s <= t (s < t when
// `strict`), 0 elsewhere: the read's scores (X = Q) or an erase's (X = K, strict).
template <class T>
void pair_scores(const PerKeyChunk<T>& c, const Mat<T>& X, bool strict, Mat<T>& A) {
  const int64_t L = c.L;
  A.setZero(L, L);
  Mat<T> Eq, Ek;
  for (int64_t b0 = 0; b0 < L; b0 += kPerKeySubChunk) {
    const int64_t b1 = std::min(b0 + kPerKeySubChunk, L);
    for_each_pair(c, b0, b1, strict, [&](int64_t t, int64_t s, const Vec<T>& e) {
      A(t, s) = (X.row(t).transpose().cwiseProduct(c.K.row(s).transpose())).dot(e);
    });
    if (b0 == 0) continue;
    cross_factors(c, b0, b1, Eq, Ek);
    A.block(b0, 0, b1 - b0, b0).noalias() = X.middleRows(b0, b1 - b0).cwiseProduct(Eq) * c.K.topRows(b0).cwiseProduct(Ek).transpose();
  }
}

// pair_scores' adjoint: dX (the side whose factor is e^{+G}) and dK (the side with e^{-G}) gain
// dA's share, through the same sub-chunks.
template <class T>
void pair_scores_backward(const PerKeyChunk<T>& c, const Mat<T>& X, bool strict, const Mat<T>& dA, Mat<T>& dX,
                          Mat<T>& dK) {
  Mat<T> Eq, Ek;
  for (int64_t b0 = 0; b0 < c.L; b0 += kPerKeySubChunk) {
    const int64_t b1 = std::min(b0 + kPerKeySubChunk, c.L);
    for_each_pair(c, b0, b1, strict, [&](int64_t t, int64_t s, const Vec<T>& e) {
      const T da = dA(t, s);
      dX.row(t) += da * c.K.row(s).cwiseProduct(e.transpose());
      dK.row(s) += da * X.row(t).cwiseProduct(e.transpose());
    });
    if (b0 == 0) continue;
    cross_factors(c, b0, b1, Eq, Ek);
    const auto dAx = dA.block(b0, 0, b1 - b0, b0);
    dX.middleRows(b0, b1 - b0) += (dAx * c.K.topRows(b0).cwiseProduct(Ek)).cwiseProduct(Eq);
    dK.topRows(b0) += (dAx.transpose() * X.middleRows(b0, b1 - b0).cwiseProduct(Eq)).cwiseProduct(Ek);
  }
}

// The chunk's products from its start state HR: the read's scores and, for an erase, the WY values
// U = (I + diag(beta) AK)^-1 diag(beta) (V - Kg HR) (fla's chunk_kda; a unit lower solve).
template <class T, class HBlock>
void chunk_products(bool erase, PerKeyChunk<T>& c, const HBlock& HR) {
  pair_scores(c, c.Q, false, c.A);
  if (!erase) return;
  pair_scores(c, c.K, true, c.AK);
  c.IA = c.beta.asDiagonal() * c.AK;
  c.IA.diagonal().setOnes();
  c.Kg = c.K.cwiseProduct(c.EG);
  c.Res = c.V;
  c.Res.noalias() -= c.Kg * HR;
  c.U = c.beta.asDiagonal() * c.Res;
  c.IA.template triangularView<Eigen::UnitLower>().solveInPlace(c.U);
}

}  // namespace

template <class T>
void per_key_chunk_forward(bool erase, const Schedule& s, const RuleInputs<T>& in, int64_t n0, int64_t L, T* H, T* o) {
  PerKeyChunk<T> c;
  load(s, in, n0, L, c);
  StateMap<T> Hfull(H, in.d_k, in.d_v);
  auto HR = Hfull.topLeftCorner(c.R, c.W);  // rows past R, columns past W: locked, never written or decayed
  chunk_products(erase, c, HR);
  if (o) {
    Mat<T> O = c.Qe * HR;
    O.noalias() += c.A * c.U;
    for (int64_t t = 0; t < L; ++t)  // locked columns read 0 (selection)
      for (int64_t j = 0; j < in.d_v; ++j) o[(n0 + t) * in.d_v + j] = j < c.cols[t] ? O(t, j) : T(0);
  }
  const Vec<T> decay_L = c.EG.row(L - 1).transpose();  // e^{G_L}
  HR = decay_L.asDiagonal() * HR;
  HR.noalias() += c.Kd.transpose() * c.U;
}

template <class T>
void per_key_chunk_backward(bool erase, const Schedule& s, const RuleInputs<T>& in, int64_t n0, int64_t L, const T* H,
                            T* dH, const T* dO, GradAccum<T>& g) {
  const int64_t d_k = in.d_k, d_v = in.d_v;
  PerKeyChunk<T> c;
  load(s, in, n0, L, c);
  const int64_t R = c.R, W = c.W;
  const Eigen::Map<const Mat<T>> Hfull(H, d_k, d_v);
  const auto HR = Hfull.topLeftCorner(R, W);
  chunk_products(erase, c, HR);
  StateMap<T> dHfull(dH, d_k, d_v);
  const Mat<T> dHe = dHfull.topLeftCorner(R, W);
  const Vec<T> decay_L = c.EG.row(L - 1).transpose();  // e^{G_L}

  Mat<T> dO_c(L, W);
  for (int64_t t = 0; t < L; ++t)  // a locked column's read is 0 whatever its gradient
    for (int64_t j = 0; j < W; ++j) dO_c(t, j) = dO && j < c.cols[t] ? dO[(n0 + t) * d_v + j] : T(0);

  // O = Qe H + A U and H' = diag(e^{G_L}) H + Kd^T U. dK gathers K's gradient where its factor is
  // e^{-G} (Kd, A's second side), dKg where it is e^{+G} (an erase's Kg and AK's first side).
  Mat<T> dU = c.A.transpose() * dO_c;
  dU.noalias() += c.Kd * dHe;
  Mat<T> dHs = decay_L.asDiagonal() * dHe;
  dHs.noalias() += c.Qe.transpose() * dO_c;
  Mat<T> dQ = (dO_c * HR.transpose()).cwiseProduct(c.EG);
  Mat<T> dK = (c.U * dHe.transpose()).cwiseProduct(c.Ed);
  Vec<T> dgL = c.K.cwiseProduct(dK).colwise().sum().transpose();
  dgL += decay_L.cwiseProduct(HR.cwiseProduct(dHe).rowwise().sum());
  const Mat<T> dA = dO_c * c.U.transpose();
  pair_scores_backward(c, c.Q, false, dA, dQ, dK);

  // Through the written values: U = diag(beta) V, or U = IA^-1 diag(beta) Res with
  // Res = V - Kg H and IA = I + diag(beta) AK.
  Mat<T> dV, dKg = Mat<T>::Zero(L, R);
  Vec<T> dbeta;
  if (erase) {
    const Mat<T> dWr = c.IA.transpose().template triangularView<Eigen::UnitUpper>().solve(dU);
    dbeta = dWr.cwiseProduct(c.Res).rowwise().sum();
    dV = c.beta.asDiagonal() * dWr;
    dKg.noalias() -= dV * HR.transpose();
    dHs.noalias() -= c.Kg.transpose() * dV;
    dKg = dKg.cwiseProduct(c.EG);
    const Mat<T> dIA = -dWr * c.U.transpose();  // only s < t matters: AK is zero elsewhere
    dbeta += dIA.cwiseProduct(c.AK).rowwise().sum();
    pair_scores_backward(c, c.K, true, Mat<T>(c.beta.asDiagonal() * dIA), dKg, dK);
  } else {
    dV = c.beta.asDiagonal() * dU;
    dbeta = dU.cwiseProduct(c.V).rowwise().sum();
  }

  // dL/dG[t, i] = Q dQ + K dKg - K dK (every factor e^{±G} sits beside Q or K), plus G_L's own
  // terms at the last step; the log retentions are G's increments, so their adjoint is a suffix sum.
  Mat<T> dG = c.Q.cwiseProduct(dQ) + c.K.cwiseProduct(dKg) - c.K.cwiseProduct(dK);
  dG.row(L - 1) += dgL.transpose();
  Vec<T> suffix = Vec<T>::Zero(R);
  for (int64_t t = L - 1; t >= 0; --t) {
    suffix += dG.row(t).transpose();
    const int64_t n = n0 + t;
    for (int64_t i = 0; i < c.rows[t]; ++i) {  // a locked row neither decays nor gets a gradient
      g.a[n * d_k + i] = in.a ? retention_grad(suffix[i], in.a[n * d_k + i]) : suffix[i];
      g.q[n * d_k + i] = dQ(t, i);
      g.k[n * d_k + i] = dK(t, i) + dKg(t, i);
    }
    for (int64_t j = 0; j < c.cols[t]; ++j) g.v[n * d_v + j] = dV(t, j);
    g.beta[n] = dbeta[t];
  }
  dHfull.topLeftCorner(R, W) = dHs;
}

#define PROTEUS_INSTANTIATE(T)                                                                                   \
  template void per_key_chunk_forward<T>(bool, const Schedule&, const RuleInputs<T>&, int64_t, int64_t, T*, T*); \
  template void per_key_chunk_backward<T>(bool, const Schedule&, const RuleInputs<T>&, int64_t, int64_t, const T*,  \
                                          T*, const T*, GradAccum<T>&);
PROTEUS_INSTANTIATE(float)
PROTEUS_INSTANTIATE(double)
#undef PROTEUS_INSTANTIATE

}  // namespace proteus::memory::detail
