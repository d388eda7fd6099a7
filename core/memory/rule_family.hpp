// The contract between the dispatchers (gated_rule.cpp: a tape of every state;
// checkpointed_rule.cpp: states every C steps, recomputed) and the three families of rules
// (RuleFamily: hebbian, erasing, momentum; rule_traits.hpp says which rule is which). A dispatcher validates, seeds the
// tape and owns the gradient buffers; a family only runs steps [n0, n1) forward or backward,
// reading states from a tape that starts at step tape.first.
// Internal to core/memory.
#pragma once
#include <vector>

#include "core/memory/gated_rule.hpp"

namespace proteus::memory::detail {

// Gradient accumulators, zeroed by the dispatcher. S enters as dS_T and leaves as dS_0; Z is
// the momentum's adjoint, carried between the ranges of a checkpointed backward.
template <class T>
struct GradAccum {
  std::vector<T> q, k, v, beta, a, p, eta, gamma, S, Z;
};

// Steps [n0, n1) of one head (0-based; step n reads S_n and writes S_{n+1}).
struct StepRange {
  int64_t n0 = 0, n1 = 0;
};

// State n of a tape that holds S_first, S_first+1, ...
template <class T>
inline T* state_at(std::vector<T>& states, const RuleTape<T>& tape, int64_t n, int64_t D) {
  return states.data() + (n - tape.first) * D;
}
template <class T>
inline const T* state_at(const std::vector<T>& states, const RuleTape<T>& tape, int64_t n, int64_t D) {
  return states.data() + (n - tape.first) * D;
}

// Forward: the tape holds S_{n0} (and Z_{n0} with momentum); fill S_{n0+1..n1} and o's rows n0..n1-1
// (o null: states only, for recomputation).
template <class T>
void hebbian_rule_forward(Rule rule, const Schedule& s, const RuleInputs<T>& in, StepRange r, T* o,
                          RuleTape<T>& tape);
template <class T>
void hebbian_rule_backward(Rule rule, const Schedule& s, const RuleInputs<T>& in, StepRange r,
                           const RuleTape<T>& tape, const T* dO, GradAccum<T>& g);

template <class T>
void delta_rule_forward(Rule rule, const Schedule& s, const RuleInputs<T>& in, StepRange r, T* o, RuleTape<T>& tape);
template <class T>
void delta_rule_backward(Rule rule, const Schedule& s, const RuleInputs<T>& in, StepRange r,
                         const RuleTape<T>& tape, const T* dO, GradAccum<T>& g);

template <class T>
void momentum_rule_forward(Rule rule, const Schedule& s, const RuleInputs<T>& in, StepRange r, T* o, RuleTape<T>& tape);
template <class T>
void momentum_rule_backward(Rule rule, const Schedule& s, const RuleInputs<T>& in, StepRange r,
                            const RuleTape<T>& tape, const T* dO, GradAccum<T>& g);

// The family of `rule`, over steps r.
template <class T>
void family_forward(Rule rule, const Schedule& s, const RuleInputs<T>& in, StepRange r, T* o, RuleTape<T>& tape) {
  switch (rule_traits(rule).family) {
    case RuleFamily::hebbian: hebbian_rule_forward(rule, s, in, r, o, tape); break;
    case RuleFamily::erasing: delta_rule_forward(rule, s, in, r, o, tape); break;
    case RuleFamily::momentum: momentum_rule_forward(rule, s, in, r, o, tape); break;
  }
}
template <class T>
void family_backward(Rule rule, const Schedule& s, const RuleInputs<T>& in, StepRange r, const RuleTape<T>& tape,
                     const T* dO, GradAccum<T>& g) {
  switch (rule_traits(rule).family) {
    case RuleFamily::hebbian: hebbian_rule_backward(rule, s, in, r, tape, dO, g); break;
    case RuleFamily::erasing: delta_rule_backward(rule, s, in, r, tape, dO, g); break;
    case RuleFamily::momentum: momentum_rule_backward(rule, s, in, r, tape, dO, g); break;
  }
}

// Shapes and required inputs (InputError naming the field); shared by every form.
template <class T>
void check_rule_inputs(Rule rule, const Schedule& s, const RuleInputs<T>& in);

// The calling thread's gradient accumulators for one head, zeroed; S starts as dS_final (null = 0).
// Kept from call to call (a backward per head and step): no allocation and no first touch of fresh
// pages each time. Valid until the thread's next call.
template <class T>
GradAccum<T>& zero_grads(Rule rule, const RuleInputs<T>& in, const T* dS_final);
// Copies the accumulators to the caller's buffers (null = not wanted), grads.interleave rows apart.
template <class T>
void copy_grads(Rule rule, const RuleInputs<T>& in, const GradAccum<T>& g, const RuleGrads<T>& grads);

// Retention a_t, 1 when the input has none (a rule with one scalar a step).
template <class T>
inline T retention(const RuleInputs<T>& in, int64_t n) { return in.a ? in.a[n] : T(1); }
// Retention of key row i at step n, for a rule of either kind (rule_traits' per_key_retention).
template <class T>
inline T retention(Rule rule, const RuleInputs<T>& in, int64_t n, int64_t i) {
  if (!in.a) return T(1);
  return rule_traits(rule).per_key_retention ? in.a[n * in.d_k + i] : in.a[n];
}

}  // namespace proteus::memory::detail
