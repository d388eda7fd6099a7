// The gated rules of math.md section 3 with block_axis value_rows (math.md section 8), in the elementwise
// form that is the definition: any E in [1, D], any schedule, any S_0. Blocks run over M = S^T
// flattened row-major, so at step t column j of S has c_j(t) = clamp(end(k(t)) - j d_k, 0, d_k)
// open key rows. Every rule updates and reads each column of S from that column alone (the error
// v - S^T k is per value dimension; a momentum Z likewise), so each column runs as its own head of
// width d_v = 1, gated on its open key rows by the key-row rules of gated_rule.hpp. A column with
// no open row is the case those rules cannot express (k(t) >= 1): each column gets one extra key
// row in front, always open, with zero q, k, p and S_0, which stays exactly 0 and adds nothing.
// Float64 and memory-op's; the model runs value_rows as the ungated rule on n_t ⊙ v instead.
#pragma once
#include <vector>

#include "core/memory/gated_rule.hpp"

namespace proteus::memory {

// What the forward keeps for the backward: each column's tape.
template <class T>
struct ValueRowsTape {
  std::vector<RuleTape<T>> columns;  // (d_v)
};

// o: (T, d_v); S_final: (d_k, d_v) or null; tape: null when no backward follows.
template <class T>
void value_rows_rule_forward(Rule rule, const Schedule& schedule, const RuleInputs<T>& in, T* o, T* S_final,
                             ValueRowsTape<T>* tape);

// dO: (T, d_v) or null (= 0); dS_final: (d_k, d_v) or null (= 0). Gradients overwrite, as
// gated_rule_backward's.
template <class T>
void value_rows_rule_backward(Rule rule, const Schedule& schedule, const RuleInputs<T>& in,
                              const ValueRowsTape<T>& tape, const T* dO, const T* dS_final,
                              const RuleGrads<T>& grads);

}  // namespace proteus::memory
