// The contract between the dispatcher (gated_rule.cpp) and the three families of rules:
// Hebbian (linear, swla), delta (delta, comba) and titans. The dispatcher validates, seeds the
// tape with S_0 and owns the gradient buffers; a family only runs time forward or backward.
// Internal to core/memory.
#pragma once
#include <vector>

#include "core/memory/gated_rule.hpp"

namespace proteus::memory::detail {

// Gradient accumulators, zeroed by the dispatcher. S enters as dS_T and leaves as dS_0.
template <class T>
struct GradAccum {
  std::vector<T> q, k, v, beta, a, p, eta, gamma, S;
};

// Forward: tape.S[0] (and tape.Z[0] for titans) are set; fill tape.S[1..T] and o (T, d_v).
template <class T>
void hebbian_rule_forward(Rule rule, const Schedule& s, const RuleInputs<T>& in, T* o, RuleTape<T>& tape);
template <class T>
void hebbian_rule_backward(Rule rule, const Schedule& s, const RuleInputs<T>& in, const RuleTape<T>& tape,
                           const T* dO, GradAccum<T>& g);

template <class T>
void delta_rule_forward(Rule rule, const Schedule& s, const RuleInputs<T>& in, T* o, RuleTape<T>& tape);
template <class T>
void delta_rule_backward(Rule rule, const Schedule& s, const RuleInputs<T>& in, const RuleTape<T>& tape,
                         const T* dO, GradAccum<T>& g);

template <class T>
void titans_rule_forward(const Schedule& s, const RuleInputs<T>& in, T* o, RuleTape<T>& tape);
template <class T>
void titans_rule_backward(const Schedule& s, const RuleInputs<T>& in, const RuleTape<T>& tape,
                          const T* dO, GradAccum<T>& g);

// Retention a_t, 1 when the input has none.
template <class T>
inline T retention(const RuleInputs<T>& in, int64_t n) { return in.a ? in.a[n] : T(1); }

}  // namespace proteus::memory::detail
