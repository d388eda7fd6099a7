// The public entry of the gated rules: names, checks, the tape's S_0 and the gradient buffers;
// the time loops live with each family (hebbian_rule.cpp, delta_rule.cpp, titans_rule.cpp).
#include "core/memory/gated_rule.hpp"

#include <algorithm>

#include "core/memory/rule_coverage.hpp"
#include "core/memory/rule_family.hpp"
#include "core/memory/streamed_copy.hpp"

namespace proteus::memory {

namespace detail {

template <class T>
void check_rule_inputs(Rule rule, const Schedule& s, const RuleInputs<T>& in) {
  require_rule_covered(rule);  // before a loop runs a combination it does not implement
  if (in.T < 0) throw InputError("T", "must be >= 0, got " + std::to_string(in.T));
  if (in.d_k < 1 || in.d_v < 1) throw InputError("d_k", "key and value widths must be >= 1");
  if (s.D() != in.d_k * in.d_v)
    throw InputError("D", "schedule is for D = " + std::to_string(s.D()) + " elements but d_k * d_v = " +
                              std::to_string(in.d_k * in.d_v));
  if (!in.q) throw InputError("q", "required");
  if (!in.k) throw InputError("k", "required");
  if (!in.v) throw InputError("v", "required");
  if (rule_uses_beta(rule) && !in.beta) throw InputError("beta", "required by rule " + std::string(rule_name(rule)));
  if (rule_uses_p(rule) && !in.p) throw InputError("p", "required by rule " + std::string(rule_name(rule)));
  if (rule_uses_gamma(rule) && (!in.gamma || in.window < 1))
    throw InputError("gamma", "required by rule " + std::string(rule_name(rule)) + ", with a window of at least 1");
  const int64_t widest = in.open_widths_of == OpenWidths::key_rows ? in.d_k : in.d_v;
  for (int64_t n = 0; in.open_widths && n < in.T; ++n) {
    const int64_t w = in.open_widths[n * in.open_widths_stride];
    if (w < 0 || w > widest)
      throw InputError("open_widths", std::to_string(w) + " at step " + std::to_string(n) + " is outside [0, " +
                                          std::to_string(widest) + "]");
  }
}

template <class T>
GradAccum<T>& zero_grads(Rule rule, const RuleInputs<T>& in, const T* dS_final) {
  const int64_t D = in.d_k * in.d_v;
  thread_local GradAccum<T> g;
  g.q.assign(in.T * in.d_k, T(0));
  g.k.assign(in.T * in.d_k, T(0));
  g.v.assign(in.T * in.d_v, T(0));
  g.beta.assign(in.T, T(0));
  g.a.assign(in.T * retention_width(rule, in.d_k), T(0));
  g.p.assign(rule_uses_p(rule) ? in.T * in.d_k : 0, T(0));
  g.eta.assign(rule_uses_eta(rule) ? in.T : 0, T(0));
  g.gamma.assign(rule_uses_gamma(rule) ? in.T * in.window : 0, T(0));
  g.S.assign(D, T(0));
  if (dS_final) std::copy(dS_final, dS_final + D, g.S.begin());
  g.Z.assign(rule_has_momentum(rule) ? D : 0, T(0));
  return g;
}

namespace {
// A head's (T, width) gradient to the caller's rows, `interleave` rows of `width` apart.
template <class T>
void copy_out(const std::vector<T>& from, T* to, int64_t width = 1, int64_t interleave = 1) {
  if (!to) return;
  if (interleave == 1 || width == 0) {
    streamed_copy(from.data(), static_cast<int64_t>(from.size()), to);
    return;
  }
  const int64_t rows = static_cast<int64_t>(from.size()) / width;
  for (int64_t n = 0; n < rows; ++n) streamed_copy(from.data() + n * width, width, to + n * interleave * width);
}
}  // namespace

template <class T>
void copy_grads(Rule rule, const RuleInputs<T>& in, const GradAccum<T>& g, const RuleGrads<T>& grads) {
  const int64_t every = grads.interleave;
  if (every < 1) throw InputError("interleave", "the gradients' rows must be >= 1 row apart, got " + std::to_string(every));
  copy_out(g.q, grads.q, in.d_k, every);
  copy_out(g.k, grads.k, in.d_k, every);
  copy_out(g.v, grads.v, in.d_v, every);
  copy_out(g.beta, grads.beta, 1, every);
  copy_out(g.a, grads.a, retention_width(rule, in.d_k), every);
  if (rule_uses_p(rule)) copy_out(g.p, grads.p, in.d_k, every);
  if (rule_uses_eta(rule)) copy_out(g.eta, grads.eta, 1, every);
  if (rule_uses_gamma(rule)) copy_out(g.gamma, grads.gamma, in.window, every);
  copy_out(g.S, grads.S0);
  streamed_copy_done();
}

template void check_rule_inputs<float>(Rule, const Schedule&, const RuleInputs<float>&);
template void check_rule_inputs<double>(Rule, const Schedule&, const RuleInputs<double>&);
template GradAccum<float>& zero_grads<float>(Rule, const RuleInputs<float>&, const float*);
template GradAccum<double>& zero_grads<double>(Rule, const RuleInputs<double>&, const double*);
template void copy_grads<float>(Rule, const RuleInputs<float>&, const GradAccum<float>&, const RuleGrads<float>&);
template void copy_grads<double>(Rule, const RuleInputs<double>&, const GradAccum<double>&, const RuleGrads<double>&);

}  // namespace detail

namespace {

template <class T>
void seed_tape(Rule rule, const RuleInputs<T>& in, RuleTape<T>& tape) {
  const int64_t D = in.d_k * in.d_v;
  tape.first = 0;
  tape.S.assign((in.T + 1) * D, T(0));
  if (in.S0) std::copy(in.S0, in.S0 + D, tape.S.begin());
  if (rule_has_momentum(rule)) tape.Z.assign((in.T + 1) * D, T(0));
  else tape.Z.clear();
}

}  // namespace

template <class T>
void gated_rule_forward(Rule rule, const Schedule& schedule, const RuleInputs<T>& in, T* o, T* S_final,
                        RuleTape<T>* tape) {
  detail::check_rule_inputs(rule, schedule, in);
  RuleTape<T> local;
  RuleTape<T>& t = tape ? *tape : local;
  seed_tape(rule, in, t);
  detail::family_forward(rule, schedule, in, {0, in.T}, o, t);
  const int64_t D = in.d_k * in.d_v;
  if (S_final) std::copy(t.S.end() - D, t.S.end(), S_final);
}

template <class T>
void gated_rule_backward(Rule rule, const Schedule& schedule, const RuleInputs<T>& in, const RuleTape<T>& tape,
                         const T* dO, const T* dS_final, const RuleGrads<T>& grads) {
  detail::check_rule_inputs(rule, schedule, in);
  const int64_t D = in.d_k * in.d_v;
  if (tape.first != 0 || static_cast<int64_t>(tape.S.size()) != (in.T + 1) * D ||
      (rule_has_momentum(rule) && tape.Z.size() != tape.S.size()))
    throw InputError("tape", "does not come from a forward of this rule and these shapes");
  detail::GradAccum<T>& g = detail::zero_grads(rule, in, dS_final);
  detail::family_backward(rule, schedule, in, {0, in.T}, tape, dO, g);
  detail::copy_grads(rule, in, g, grads);
}

template void gated_rule_forward<float>(Rule, const Schedule&, const RuleInputs<float>&, float*, float*, RuleTape<float>*);
template void gated_rule_forward<double>(Rule, const Schedule&, const RuleInputs<double>&, double*, double*,
                                         RuleTape<double>*);
template void gated_rule_backward<float>(Rule, const Schedule&, const RuleInputs<float>&, const RuleTape<float>&,
                                         const float*, const float*, const RuleGrads<float>&);
template void gated_rule_backward<double>(Rule, const Schedule&, const RuleInputs<double>&, const RuleTape<double>&,
                                          const double*, const double*, const RuleGrads<double>&);

}  // namespace proteus::memory
