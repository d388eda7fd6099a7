// The recurrent form without a tape of every state: the forward keeps the state every C steps,
// and the backward recomputes each range of C steps from its checkpoint before walking it in
// reverse. Same operations in the same order as gated_rule_forward/backward, so the outputs and
// every gradient are bit-identical to the taped reference; memory is T/C states, not T.
// Any rule, any E, any S_0 (math.md section 3's definition, elementwise).
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "core/common/uninitialized_vector.hpp"
#include "core/memory/gated_rule.hpp"

namespace proteus::memory {

// States kept every `every` steps: S_0, S_every, S_2every, ... (one per range of steps), and
// the momentum Z (a rule with momentum) at the same steps. The chunked form keeps its chunk-start states here too.
template <class F>
struct StateCheckpoints {
  int64_t every = 0;
  UninitializedVector<F> S;  // (ranges, d_k, d_v); sized, then written in full
  std::vector<F> Z;  // (ranges, d_k, d_v), momentum only
  // The chunked form's products of each chunk that its backward reads (chunked_rule.cpp):
  // chunk c's at products[products_at[c]...]; empty when the form keeps none.
  UninitializedVector<F> products;  // sized for every chunk, then written in full
  std::vector<size_t> products_at;  // (ranges + 1)
};

// Ranges of `every` steps over T tokens (the last may be shorter).
inline int64_t checkpoint_ranges(int64_t T, int64_t every) { return T <= 0 ? 0 : (T + every - 1) / every; }

// o: (T, d_v); S_final: (d_k, d_v) or null; checkpoints: null when no backward follows.
// Throws InputError as gated_rule_forward does, and "every" (< 1).
template <class T>
void checkpointed_rule_forward(Rule rule, const Schedule& schedule, const RuleInputs<T>& in, int64_t every, T* o,
                               T* S_final, StateCheckpoints<T>* checkpoints);

// The same gradients as gated_rule_backward, from the checkpoints of checkpointed_rule_forward.
template <class T>
void checkpointed_rule_backward(Rule rule, const Schedule& schedule, const RuleInputs<T>& in,
                                const StateCheckpoints<T>& checkpoints, const T* dO, const T* dS_final,
                                const RuleGrads<T>& grads);

// Calls visit(n, S_n) for n = 1..T in order, recomputing each range from its checkpoint with the
// recurrent gated rule (block occupancy reads states this way, for either form).
template <class T>
void replay_rule_states(Rule rule, const Schedule& schedule, const RuleInputs<T>& in,
                        const StateCheckpoints<T>& checkpoints, const std::function<void(int64_t, const T*)>& visit);

}  // namespace proteus::memory
