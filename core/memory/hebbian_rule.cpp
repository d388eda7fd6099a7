// Hebbian rules: S_t = a S + beta k v^T, or sum_w gamma_t[w] k_{t-w} v_{t-w}^T for window writes,
// with a a scalar per step or a row of d_k (diag(a_t) S: per_key_retention), gated elementwise.
// One write is a window of one with beta as its weight, so they share code.
#include <algorithm>

#include "core/memory/active_prefix.hpp"
#include "core/memory/rule_family.hpp"

namespace proteus::memory::detail {
namespace {

// The write terms of step n (0-based): weight, and the token whose k and v are written.
template <class T>
int64_t write_terms(Rule rule, const RuleInputs<T>& in, int64_t n, T* weight, int64_t* token) {
  if (!rule_uses_gamma(rule)) {
    weight[0] = in.beta[n];
    token[0] = n;
    return 1;
  }
  const int64_t c = std::min<int64_t>(in.window, n + 1);  // terms before t = 1 are left out
  for (int64_t w = 0; w < c; ++w) {
    weight[w] = in.gamma[n * in.window + w];
    token[w] = n - w;
  }
  return c;
}

}  // namespace

template <class T>
void hebbian_rule_forward(Rule rule, const Schedule& s, const RuleInputs<T>& in, StepRange range, T* o, RuleTape<T>& tape) {
  const int64_t d_k = in.d_k, d_v = in.d_v, D = d_k * d_v;
  std::vector<T> weight(std::max<int64_t>(in.window, 1));
  std::vector<int64_t> token(weight.size());
  for (int64_t n = range.n0; n < range.n1; ++n) {
    const ActiveSet act = active_set(s, in, n);
    const T* S_prev = state_at(tape.S, tape, n, D);
    T* S = state_at(tape.S, tape, n + 1, D);
    std::copy(S_prev, S_prev + D, S);  // locked elements keep their bits
    const int64_t terms = write_terms(rule, in, n, weight.data(), token.data());
    const int64_t rows = act.rows;
    for (int64_t i = 0; i < rows; ++i) {
      const int64_t cols = act.cols_of(i, d_v);
      const T a = retention(rule, in, n, i);
      for (int64_t j = 0; j < cols; ++j) {
        T x = a * S[i * d_v + j];
        for (int64_t w = 0; w < terms; ++w)
          x += (weight[w] * in.k[token[w] * d_k + i]) * in.v[token[w] * d_v + j];
        S[i * d_v + j] = x;
      }
    }
    if (o) gated_read(S, in.q + n * d_k, act, d_v, o + n * d_v);
  }
}

template <class T>
void hebbian_rule_backward(Rule rule, const Schedule& s, const RuleInputs<T>& in, StepRange range, const RuleTape<T>& tape,
                           const T* dO, GradAccum<T>& g) {
  const int64_t d_k = in.d_k, d_v = in.d_v, D = d_k * d_v;
  std::vector<T> weight(std::max<int64_t>(in.window, 1));
  std::vector<int64_t> token(weight.size());
  T* dS = g.S.data();
  for (int64_t n = range.n1 - 1; n >= range.n0; --n) {
    const ActiveSet act = active_set(s, in, n);
    const T* S_prev = state_at(tape.S, tape, n, D);
    if (dO) gated_read_backward(state_at(tape.S, tape, n + 1, D), in.q + n * d_k, dO + n * d_v, act, d_k, d_v, dS, &g.q[n * d_k]);
    const int64_t terms = write_terms(rule, in, n, weight.data(), token.data());
    const int64_t rows = act.rows;
    const bool per_key = rule_traits(rule).per_key_retention;
    for (int64_t w = 0; w < terms; ++w) {
      const T* k = in.k + token[w] * d_k;
      const T* v = in.v + token[w] * d_v;
      T* dk = &g.k[token[w] * d_k];
      T* dv = &g.v[token[w] * d_v];
      T dweight = 0;
      for (int64_t i = 0; i < rows; ++i) {
        const int64_t cols = act.cols_of(i, d_v);
        T Wv = 0;  // (W v)_i with W = G ⊙ dS
        for (int64_t j = 0; j < cols; ++j) {
          const T Wij = dS[i * d_v + j];
          Wv += Wij * v[j];
          dv[j] += weight[w] * Wij * k[i];
        }
        dweight += k[i] * Wv;
        dk[i] += weight[w] * Wv;
      }
      if (!rule_uses_gamma(rule)) g.beta[n] += dweight;
      else g.gamma[n * in.window + w] += dweight;
    }
    T da = 0;  // a local sum: a reference that may point into g.a keeps it in memory, a store a step
    for (int64_t i = 0; i < rows; ++i) {
      const int64_t cols = act.cols_of(i, d_v);
      const T a = retention(rule, in, n, i);
      T da_row = per_key ? T(0) : da;  // one sum per row, or one for the step
      for (int64_t j = 0; j < cols; ++j) {
        da_row += dS[i * d_v + j] * S_prev[i * d_v + j];
        dS[i * d_v + j] *= a;  // locked elements pass their adjoint through unchanged
      }
      if (per_key) g.a[n * d_k + i] += da_row;
      else da = da_row;
    }
    if (!per_key) g.a[n] += da;
  }
}

template void hebbian_rule_forward<float>(Rule, const Schedule&, const RuleInputs<float>&, StepRange, float*, RuleTape<float>&);
template void hebbian_rule_forward<double>(Rule, const Schedule&, const RuleInputs<double>&, StepRange, double*, RuleTape<double>&);
template void hebbian_rule_backward<float>(Rule, const Schedule&, const RuleInputs<float>&, StepRange, const RuleTape<float>&,
                                           const float*, GradAccum<float>&);
template void hebbian_rule_backward<double>(Rule, const Schedule&, const RuleInputs<double>&, StepRange, const RuleTape<double>&,
                                            const double*, GradAccum<double>&);

}  // namespace proteus::memory::detail
