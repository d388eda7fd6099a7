// Titans with a linear memory, momentum and forgetting, gated elementwise:
//   Z_t = eta Z - beta k (Sg^T k - v)^T,   S_t = a S + Z_t
// with Sg = G ⊙ S_{t-1} and Z_0 = 0; locked elements of both S and Z are never written.
#include <algorithm>

#include "core/memory/active_prefix.hpp"
#include "core/memory/rule_family.hpp"

namespace proteus::memory::detail {

template <class T>
void momentum_rule_forward(Rule, const Schedule& s, const RuleInputs<T>& in, StepRange range, T* o, RuleTape<T>& tape) {
  const int64_t d_k = in.d_k, d_v = in.d_v, D = d_k * d_v;
  std::vector<T> err(d_v);
  for (int64_t n = range.n0; n < range.n1; ++n) {
    const ActiveSet act = active_set(s, in, n);
    const T a = retention(in, n);
    const T eta = in.eta ? in.eta[n] : T(0);
    const T beta = in.beta[n];
    const T* k = in.k + n * d_k;
    const T* v = in.v + n * d_v;
    const T* S_prev = state_at(tape.S, tape, n, D);
    const T* Z_prev = state_at(tape.Z, tape, n, D);
    T* S = state_at(tape.S, tape, n + 1, D);
    T* Z = state_at(tape.Z, tape, n + 1, D);
    std::copy(S_prev, S_prev + D, S);
    std::copy(Z_prev, Z_prev + D, Z);
    gated_predict(S_prev, k, act, d_v, err.data());
    for (int64_t j = 0; j < d_v; ++j) err[j] -= v[j];  // the surprise Sg^T k - v
    const int64_t rows = act.rows;
    for (int64_t i = 0; i < rows; ++i) {
      const int64_t cols = act.cols_of(i, d_v);
      for (int64_t j = 0; j < cols; ++j) {
        Z[i * d_v + j] = eta * Z[i * d_v + j] - (beta * k[i]) * err[j];
        S[i * d_v + j] = a * S[i * d_v + j] + Z[i * d_v + j];
      }
    }
    if (o) gated_read(S, in.q + n * d_k, act, d_v, o + n * d_v);
  }
}

template <class T>
void momentum_rule_backward(Rule, const Schedule& s, const RuleInputs<T>& in, StepRange range, const RuleTape<T>& tape, const T* dO,
                          GradAccum<T>& g) {
  const int64_t d_k = in.d_k, d_v = in.d_v, D = d_k * d_v;
  std::vector<T> err(d_v), derr(d_v);
  T* dS = g.S.data();
  T* dZ = g.Z.data();  // adjoint of Z_t, carried across ranges; Z_0 is a constant, so it is dropped
  for (int64_t n = range.n1 - 1; n >= range.n0; --n) {
    const ActiveSet act = active_set(s, in, n);
    const T a = retention(in, n);
    const T eta = in.eta ? in.eta[n] : T(0);
    const T beta = in.beta[n];
    const T* k = in.k + n * d_k;
    const T* v = in.v + n * d_v;
    const T* S_prev = state_at(tape.S, tape, n, D);
    const T* Z_prev = state_at(tape.Z, tape, n, D);
    if (dO) gated_read_backward(state_at(tape.S, tape, n + 1, D), in.q + n * d_k, dO + n * d_v, act, d_k, d_v, dS, &g.q[n * d_k]);
    gated_predict(S_prev, k, act, d_v, err.data());
    for (int64_t j = 0; j < d_v; ++j) err[j] -= v[j];

    const int64_t rows = act.rows;
    std::fill(derr.begin(), derr.end(), T(0));
    T da = 0, deta = 0, dbeta = 0;
    for (int64_t i = 0; i < rows; ++i) {
      const int64_t cols = act.cols_of(i, d_v);
      T Ve = 0;
      for (int64_t j = 0; j < cols; ++j) {
        const int64_t x = i * d_v + j;
        const T V = dZ[x] + dS[x];  // Z_t reaches the loss directly and through S_t
        da += dS[x] * S_prev[x];
        deta += V * Z_prev[x];
        Ve += V * err[j];
        derr[j] -= beta * V * k[i];
        dZ[x] = eta * V;
      }
      dbeta -= k[i] * Ve;
      g.k[n * d_k + i] -= beta * Ve;
    }
    // Through err = (G ⊙ S_prev)^T k - v.
    for (int64_t j = 0; j < d_v; ++j) g.v[n * d_v + j] -= derr[j];
    for (int64_t i = 0; i < rows; ++i) {
      const int64_t cols = act.cols_of(i, d_v);
      T acc = 0;
      for (int64_t j = 0; j < cols; ++j) {
        acc += S_prev[i * d_v + j] * derr[j];
        dS[i * d_v + j] = a * dS[i * d_v + j] + k[i] * derr[j];
      }
      g.k[n * d_k + i] += acc;
    }
    g.a[n] += da;
    g.eta[n] += deta;
    g.beta[n] += dbeta;
  }
}

template void momentum_rule_forward<float>(Rule, const Schedule&, const RuleInputs<float>&, StepRange, float*, RuleTape<float>&);
template void momentum_rule_forward<double>(Rule, const Schedule&, const RuleInputs<double>&, StepRange, double*, RuleTape<double>&);
template void momentum_rule_backward<float>(Rule, const Schedule&, const RuleInputs<float>&, StepRange, const RuleTape<float>&,
                                          const float*, GradAccum<float>&);
template void momentum_rule_backward<double>(Rule, const Schedule&, const RuleInputs<double>&, StepRange, const RuleTape<double>&,
                                           const double*, GradAccum<double>&);

}  // namespace proteus::memory::detail
