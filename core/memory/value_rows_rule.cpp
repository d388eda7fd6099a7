#include "core/memory/value_rows_rule.hpp"

#include <algorithm>
#include <utility>

#include "core/memory/rule_family.hpp"

namespace proteus::memory {
namespace {

// Column j's schedule over its d_k + 1 rows (the always-open row first): one block per row, row
// m (1-based past the front row) opening at the first unlock whose prefix reaches element j d_k + m
// of M. Past the horizon both are full, so the horizon is the same.
Schedule column_schedule(const Schedule& s, int64_t d_k, int64_t j) {
  std::vector<int64_t> unlock(d_k + 1, 1);
  int64_t k = 1;
  for (int64_t m = 1; m <= d_k; ++m) {
    while (s.end(k) < j * d_k + m) ++k;  // end(E) = D covers every element
    unlock[m] = s.unlock()[k - 1];
  }
  return Schedule::custom(d_k + 1, d_k + 1, s.N(), std::move(unlock));
}

// Column j's inputs: the front row zero in q, k, p and S_0; v and S_0 column j; the rest shared.
template <class T>
struct ColumnInputs {
  std::vector<T> q, k, p, a, v, S0;
  RuleInputs<T> in;

  ColumnInputs(Rule rule, const RuleInputs<T>& all, int64_t j) {
    const int64_t K = all.d_k + 1;
    const auto widen = [&](const T* x, std::vector<T>& out) {
      if (!x) return;
      out.assign(all.T * K, T(0));
      for (int64_t t = 0; t < all.T; ++t) std::copy(x + t * all.d_k, x + (t + 1) * all.d_k, out.begin() + t * K + 1);
    };
    widen(all.q, q);
    widen(all.k, k);
    widen(all.p, p);
    const bool per_key_a = all.a && rule_traits(rule).per_key_retention;
    if (per_key_a) {  // the front row holds nothing: retention 1
      widen(all.a, a);
      for (int64_t t = 0; t < all.T; ++t) a[t * K] = T(1);
    }
    v.resize(all.T);
    for (int64_t t = 0; t < all.T; ++t) v[t] = all.v[t * all.d_v + j];
    in = all;
    in.d_k = K, in.d_v = 1;
    in.q = q.data(), in.k = k.data(), in.v = v.data();
    in.p = all.p ? p.data() : nullptr;
    if (per_key_a) in.a = a.data();
    if (all.S0) {
      S0.assign(K, T(0));
      for (int64_t i = 0; i < all.d_k; ++i) S0[i + 1] = all.S0[i * all.d_v + j];
      in.S0 = S0.data();
    }
  }
};

}  // namespace

template <class T>
void value_rows_rule_forward(Rule rule, const Schedule& schedule, const RuleInputs<T>& in, T* o, T* S_final,
                             ValueRowsTape<T>* tape) {
  detail::check_rule_inputs(rule, schedule, in);
  if (tape) tape->columns.assign(in.d_v, RuleTape<T>{});
  std::vector<T> o_col(in.T), S_col(in.d_k + 1);
  for (int64_t j = 0; j < in.d_v; ++j) {
    ColumnInputs<T> col(rule, in, j);
    gated_rule_forward(rule, column_schedule(schedule, in.d_k, j), col.in, o_col.data(), S_col.data(),
                       tape ? &tape->columns[j] : nullptr);
    for (int64_t t = 0; t < in.T; ++t) o[t * in.d_v + j] = o_col[t];
    if (S_final)
      for (int64_t i = 0; i < in.d_k; ++i) S_final[i * in.d_v + j] = S_col[i + 1];
  }
}

namespace {

// Adds column j's (T, d_k + 1) gradient, front row dropped, into a (T, d_k) one.
template <class T>
void add_narrowed(const std::vector<T>& wide, int64_t T_, int64_t d_k, T* out) {
  if (!out) return;
  for (int64_t t = 0; t < T_; ++t)
    for (int64_t i = 0; i < d_k; ++i) out[t * d_k + i] += wide[t * (d_k + 1) + i + 1];
}

template <class T>
void add_all(const std::vector<T>& from, T* to) {
  if (to)
    for (size_t n = 0; n < from.size(); ++n) to[n] += from[n];
}

template <class T>
void zero(T* x, int64_t n) {
  if (x) std::fill(x, x + n, T(0));
}

}  // namespace

template <class T>
void value_rows_rule_backward(Rule rule, const Schedule& schedule, const RuleInputs<T>& in,
                              const ValueRowsTape<T>& tape, const T* dO, const T* dS_final,
                              const RuleGrads<T>& grads) {
  detail::check_rule_inputs(rule, schedule, in);
  if (static_cast<int64_t>(tape.columns.size()) != in.d_v)
    throw InputError("tape", "does not come from a value_rows forward of these shapes");
  const int64_t T_ = in.T, K = in.d_k + 1;
  for (auto [x, n] : {std::pair{grads.q, T_ * in.d_k}, std::pair{grads.k, T_ * in.d_k}, std::pair{grads.beta, T_},
                      std::pair{grads.a, T_ * retention_width(rule, in.d_k)}})
    zero(x, n);
  if (rule_uses_p(rule)) zero(grads.p, T_ * in.d_k);
  if (rule_uses_eta(rule)) zero(grads.eta, T_);
  if (rule_uses_gamma(rule)) zero(grads.gamma, T_ * in.window);
  std::vector<T> dq(T_ * K), dk(T_ * K), dp(rule_uses_p(rule) ? T_ * K : 0), dv(T_), dbeta(T_), da(T_ * retention_width(rule, K));
  std::vector<T> deta(rule_uses_eta(rule) ? T_ : 0), dgamma(rule_uses_gamma(rule) ? T_ * in.window : 0), dS0(K);
  std::vector<T> dO_col(T_, T(0)), dS_col(K, T(0));
  for (int64_t j = 0; j < in.d_v; ++j) {
    ColumnInputs<T> col(rule, in, j);
    for (int64_t t = 0; t < T_; ++t) dO_col[t] = dO ? dO[t * in.d_v + j] : T(0);
    for (int64_t i = 0; i < in.d_k; ++i) dS_col[i + 1] = dS_final ? dS_final[i * in.d_v + j] : T(0);
    RuleGrads<T> g;
    g.q = dq.data(), g.k = dk.data(), g.v = dv.data(), g.beta = dbeta.data(), g.a = da.data(), g.S0 = dS0.data();
    g.p = dp.data(), g.eta = deta.data(), g.gamma = dgamma.data();
    gated_rule_backward(rule, column_schedule(schedule, in.d_k, j), col.in, tape.columns[j], dO_col.data(),
                        dS_col.data(), g);
    add_narrowed(dq, T_, in.d_k, grads.q);
    add_narrowed(dk, T_, in.d_k, grads.k);
    if (rule_uses_p(rule)) add_narrowed(dp, T_, in.d_k, grads.p);
    if (grads.v)
      for (int64_t t = 0; t < T_; ++t) grads.v[t * in.d_v + j] = dv[t];
    add_all(dbeta, grads.beta);
    if (rule_traits(rule).per_key_retention) add_narrowed(da, T_, in.d_k, grads.a);
    else add_all(da, grads.a);
    if (rule_uses_eta(rule)) add_all(deta, grads.eta);
    if (rule_uses_gamma(rule)) add_all(dgamma, grads.gamma);
    if (grads.S0)
      for (int64_t i = 0; i < in.d_k; ++i) grads.S0[i * in.d_v + j] = dS0[i + 1];
  }
}

template void value_rows_rule_forward<float>(Rule, const Schedule&, const RuleInputs<float>&, float*, float*,
                                             ValueRowsTape<float>*);
template void value_rows_rule_forward<double>(Rule, const Schedule&, const RuleInputs<double>&, double*, double*,
                                              ValueRowsTape<double>*);
template void value_rows_rule_backward<float>(Rule, const Schedule&, const RuleInputs<float>&, const ValueRowsTape<float>&,
                                              const float*, const float*, const RuleGrads<float>&);
template void value_rows_rule_backward<double>(Rule, const Schedule&, const RuleInputs<double>&,
                                               const ValueRowsTape<double>&, const double*, const double*,
                                               const RuleGrads<double>&);

}  // namespace proteus::memory
