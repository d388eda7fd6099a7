// The delta family, gated elementwise: the memory first erases what it predicts along a
// direction e, then writes along k.
//   delta: S_t = a S + beta k (v - a Sg^T k)^T   (Gated DeltaNet; e = k, prediction scaled by a)
//   comba: S_t = a S + beta k (v - Sg^T p)^T     (e = p, prediction unscaled)
//   kda:   S_t = diag(a) S + beta k (v - (diag(a) Sg)^T k)^T   (a row of retentions, one per key row)
// with Sg = G ⊙ S_{t-1}; only active elements are written. A row of retentions runs its own loop
// (per_key_erase_*), so that the scalar rules keep their bits.
#include <algorithm>

#include "core/memory/active_prefix.hpp"
#include "core/memory/rule_family.hpp"

namespace proteus::memory::detail {
namespace {

template <class T>
const T* erase_direction(Rule rule, const RuleInputs<T>& in, int64_t n) {
  return rule_uses_p(rule) ? in.p + n * in.d_k : in.k + n * in.d_k;
}

// r (d_v) = v - sigma (G ⊙ S)^T e, the correction the write carries; pred keeps (G ⊙ S)^T e.
template <class T>
void correction(const T* S_prev, const T* e, const T* v, T sigma, const ActiveSet& act, int64_t d_v, T* pred, T* r) {
  gated_predict(S_prev, e, act, d_v, pred);
  for (int64_t j = 0; j < d_v; ++j) r[j] = v[j] - sigma * pred[j];
}

// What a backward step reads, and where its key gradients go (de is dk when the erase is along k).
template <class T>
struct BackwardStep {
  ActiveSet act;
  T beta;
  const T *k, *e, *S_prev;
  T *dk, *de;
};
template <class T>
BackwardStep<T> backward_step(Rule rule, const Schedule& s, const RuleInputs<T>& in, const RuleTape<T>& tape,
                              GradAccum<T>& g, int64_t n) {
  const int64_t d_k = in.d_k;
  T* dk = &g.k[n * d_k];
  return {active_set(s, in, n), in.beta[n], in.k + n * d_k, erase_direction(rule, in, n),
          state_at(tape.S, tape, n, d_k * in.d_v), dk, rule_uses_p(rule) ? &g.p[n * d_k] : dk};
}

// Through the write beta k r^T with W = G ⊙ dS over the open elements: dr (still to be scaled by
// beta) and dk gain, the return is dbeta, and decay(i, W_ij S_ij) takes each element's share of da.
template <class T, class Decay>
T write_backward(const T* dS, const T* S_prev, const T* k, const T* r, T beta, const ActiveSet& act, int64_t d_v, T* dr,
                 T* dk, Decay&& decay) {
  std::fill(dr, dr + d_v, T(0));
  T dbeta = 0;
  for (int64_t i = 0; i < act.rows; ++i) {
    const int64_t cols = act.cols_of(i, d_v);
    T Wr = 0;
    for (int64_t j = 0; j < cols; ++j) {
      const T Wij = dS[i * d_v + j];
      Wr += Wij * r[j];
      dr[j] += Wij * k[i];
      decay(i, Wij * S_prev[i * d_v + j]);
    }
    dbeta += k[i] * Wr;
    dk[i] += beta * Wr;
  }
  return dbeta;
}

// The erase's scale for key row i: its retention when the prediction reads the decayed state.
template <class T>
T prediction_scale(Rule rule, const RuleInputs<T>& in, int64_t n, int64_t i) {
  return rule_traits(rule).decayed_prediction ? retention(rule, in, n, i) : T(1);
}

// r (d_v) = v - (diag(sigma) (G ⊙ S))^T e, with sigma_i = prediction_scale; pred keeps the sum.
template <class T>
void per_key_correction(Rule rule, const RuleInputs<T>& in, int64_t n, const T* S_prev, const T* e, const ActiveSet& act,
                        T* pred, T* r) {
  const int64_t d_v = in.d_v;
  std::fill(pred, pred + d_v, T(0));
  for (int64_t i = 0; i < act.rows; ++i) {
    const T w = prediction_scale(rule, in, n, i) * e[i];
    const int64_t cols = act.cols_of(i, d_v);
    for (int64_t j = 0; j < cols; ++j) pred[j] += S_prev[i * d_v + j] * w;
  }
  for (int64_t j = 0; j < d_v; ++j) r[j] = in.v[n * d_v + j] - pred[j];
}

template <class T>
void per_key_erase_forward(Rule rule, const Schedule& s, const RuleInputs<T>& in, StepRange range, T* o,
                           RuleTape<T>& tape) {
  const int64_t d_k = in.d_k, d_v = in.d_v, D = d_k * d_v;
  std::vector<T> pred(d_v), r(d_v);
  for (int64_t n = range.n0; n < range.n1; ++n) {
    const ActiveSet act = active_set(s, in, n);
    const T beta = in.beta[n];
    const T* k = in.k + n * d_k;
    const T* S_prev = state_at(tape.S, tape, n, D);
    T* S = state_at(tape.S, tape, n + 1, D);
    std::copy(S_prev, S_prev + D, S);  // locked elements keep their bits
    per_key_correction(rule, in, n, S_prev, erase_direction(rule, in, n), act, pred.data(), r.data());
    for (int64_t i = 0; i < act.rows; ++i) {
      const T a = retention(rule, in, n, i);
      const int64_t cols = act.cols_of(i, d_v);
      for (int64_t j = 0; j < cols; ++j) S[i * d_v + j] = a * S[i * d_v + j] + (beta * k[i]) * r[j];
    }
    if (o) gated_read(S, in.q + n * d_k, act, d_v, o + n * d_v);
  }
}

template <class T>
void per_key_erase_backward(Rule rule, const Schedule& s, const RuleInputs<T>& in, StepRange range,
                            const RuleTape<T>& tape, const T* dO, GradAccum<T>& g) {
  const int64_t d_k = in.d_k, d_v = in.d_v, D = d_k * d_v;
  std::vector<T> pred(d_v), r(d_v), dr(d_v);
  T* dS = g.S.data();
  for (int64_t n = range.n1 - 1; n >= range.n0; --n) {
    const auto [act, beta, k, e, S_prev, dk, de] = backward_step(rule, s, in, tape, g, n);
    T* da = &g.a[n * d_k];  // a row of retentions: one gradient per key row (at a = 1 when absent)
    if (dO) gated_read_backward(state_at(tape.S, tape, n + 1, D), in.q + n * d_k, dO + n * d_v, act, d_k, d_v, dS, &g.q[n * d_k]);
    per_key_correction(rule, in, n, S_prev, e, act, pred.data(), r.data());

    // Through the write beta k r^T and the row decays (da[i] starts at 0: this step's own row).
    const T dbeta = write_backward(dS, S_prev, k, r.data(), beta, act, d_v, dr.data(), dk,
                                   [&](int64_t i, T x) { da[i] += x; });
    for (int64_t j = 0; j < d_v; ++j) {
      dr[j] *= beta;
      g.v[n * d_v + j] += dr[j];
    }
    // Through r = v - pred, pred_j = sum_i sigma_i e_i (G ⊙ S_prev)_ij.
    for (int64_t i = 0; i < act.rows; ++i) {
      const T a = retention(rule, in, n, i), sigma = prediction_scale(rule, in, n, i);
      const int64_t cols = act.cols_of(i, d_v);
      T acc = 0;  // sum_j S_prev_ij dpred_j
      for (int64_t j = 0; j < cols; ++j) {
        acc -= S_prev[i * d_v + j] * dr[j];
        dS[i * d_v + j] = a * dS[i * d_v + j] - sigma * e[i] * dr[j];  // locked adjoints pass unchanged
      }
      de[i] += sigma * acc;
      if (rule_traits(rule).decayed_prediction) da[i] += e[i] * acc;
    }
    g.beta[n] += dbeta;
  }
}

}  // namespace

template <class T>
void delta_rule_forward(Rule rule, const Schedule& s, const RuleInputs<T>& in, StepRange range, T* o, RuleTape<T>& tape) {
  if (rule_traits(rule).per_key_retention) return per_key_erase_forward(rule, s, in, range, o, tape);
  const int64_t d_k = in.d_k, d_v = in.d_v, D = d_k * d_v;
  std::vector<T> pred(d_v), r(d_v);
  for (int64_t n = range.n0; n < range.n1; ++n) {
    const ActiveSet act = active_set(s, in, n);
    const T a = retention(in, n);
    const T sigma = rule_traits(rule).decayed_prediction ? a : T(1);
    const T beta = in.beta[n];
    const T* k = in.k + n * d_k;
    const T* S_prev = state_at(tape.S, tape, n, D);
    T* S = state_at(tape.S, tape, n + 1, D);
    std::copy(S_prev, S_prev + D, S);  // locked elements keep their bits
    correction(S_prev, erase_direction(rule, in, n), in.v + n * d_v, sigma, act, d_v, pred.data(), r.data());
    const int64_t rows = act.rows;
    for (int64_t i = 0; i < rows; ++i) {
      const int64_t cols = act.cols_of(i, d_v);
      for (int64_t j = 0; j < cols; ++j) S[i * d_v + j] = a * S[i * d_v + j] + (beta * k[i]) * r[j];
    }
    if (o) gated_read(S, in.q + n * d_k, act, d_v, o + n * d_v);
  }
}

template <class T>
void delta_rule_backward(Rule rule, const Schedule& s, const RuleInputs<T>& in, StepRange range, const RuleTape<T>& tape,
                         const T* dO, GradAccum<T>& g) {
  if (rule_traits(rule).per_key_retention) return per_key_erase_backward(rule, s, in, range, tape, dO, g);
  const int64_t d_k = in.d_k, d_v = in.d_v, D = d_k * d_v;
  std::vector<T> pred(d_v), r(d_v), dr(d_v);
  T* dS = g.S.data();
  for (int64_t n = range.n1 - 1; n >= range.n0; --n) {
    const auto [act, beta, k, e, S_prev, dk, de] = backward_step(rule, s, in, tape, g, n);
    const T a = retention(in, n);
    const T sigma = rule_traits(rule).decayed_prediction ? a : T(1);
    if (dO) gated_read_backward(state_at(tape.S, tape, n + 1, D), in.q + n * d_k, dO + n * d_v, act, d_k, d_v, dS, &g.q[n * d_k]);
    correction(S_prev, e, in.v + n * d_v, sigma, act, d_v, pred.data(), r.data());

    // Through the write beta k r^T.
    const int64_t rows = act.rows;
    T da = 0;
    const T dbeta = write_backward(dS, S_prev, k, r.data(), beta, act, d_v, dr.data(), dk, [&](int64_t, T x) { da += x; });
    // Through r = v - sigma pred, pred = (G ⊙ S_prev)^T e.
    for (int64_t j = 0; j < d_v; ++j) {
      dr[j] *= beta;
      g.v[n * d_v + j] += dr[j];
      if (rule_traits(rule).decayed_prediction) da -= dr[j] * pred[j];
    }
    for (int64_t i = 0; i < rows; ++i) {
      const int64_t cols = act.cols_of(i, d_v);
      T acc = 0;
      for (int64_t j = 0; j < cols; ++j) {
        const T dpred = -sigma * dr[j];
        acc += S_prev[i * d_v + j] * dpred;
        dS[i * d_v + j] = a * dS[i * d_v + j] + e[i] * dpred;  // locked adjoints pass unchanged
      }
      de[i] += acc;
    }
    g.beta[n] += dbeta;
    g.a[n] += da;
  }
}

template void delta_rule_forward<float>(Rule, const Schedule&, const RuleInputs<float>&, StepRange, float*, RuleTape<float>&);
template void delta_rule_forward<double>(Rule, const Schedule&, const RuleInputs<double>&, StepRange, double*, RuleTape<double>&);
template void delta_rule_backward<float>(Rule, const Schedule&, const RuleInputs<float>&, StepRange, const RuleTape<float>&,
                                         const float*, GradAccum<float>&);
template void delta_rule_backward<double>(Rule, const Schedule&, const RuleInputs<double>&, StepRange, const RuleTape<double>&,
                                          const double*, GradAccum<double>&);

}  // namespace proteus::memory::detail
