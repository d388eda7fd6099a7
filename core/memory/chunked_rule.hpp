// The chunked (WY / UT) form of the hebbian and erasing rules (rule_traits.hpp), forward and backward, after
// flash-linear-attention's chunk_gated_delta_rule. It rests on math.md section 3's zero-state lemma:
// with S_0 = 0 and row-aligned blocks whose open prefix never shrinks, the gated rule equals its
// ungated form on m_t ⊙ q, m_t ⊙ k, m_t ⊙ p with the scalar decay a_t, so a chunk is a few dense
// products over the rows open in it (early chunks of E = 16 touch d_k / 16 rows, not d_k).
// Inside a chunk of L tokens starting from state H, with g_t the chunk-local cumulative log-decay
// and the erase taken at ĝ_t (g_t for a decayed prediction, else g_{t-1}: that erase reads S_{t-1}):
//   U  = (I + diag(beta) [(E K^T) ⊙ exp(ĝ_t - g_s)]_{s<t})^-1 diag(beta) (V - diag(e^ĝ) E H)
//   O  = diag(e^g) Q H + [(Q K^T) ⊙ exp(g_t - g_s)]_{s<=t} U
//   H' = e^{g_L} H + (diag(e^{g_L - g}) K)^T U
// (hebbian: U = diag(beta) V; window writes: c per step, gamma_t[j] k_{t-j} v_{t-j}^T with the key
// masked by m_t, a linear rule over c L writes). Only non-positive numbers are exponentiated;
// masks are applied by selection. The forward keeps each chunk's start state in StateCheckpoints
// (T / C states) and, for the erasing scalar-decay rules, the chunk's products its backward reads
// (U, the pairwise products and decays, IA's inverse, the residual: chunk_products_kept's count
// per chunk, about 0.8 of a state at C 16, d 64); the backward reloads each chunk's inputs and reads
// them back. The other rules' backward remakes each chunk's products from its start state.
#pragma once
#include <cstdint>
#include <string>

#include "core/memory/checkpointed_rule.hpp"
#include "core/memory/gated_rule.hpp"

namespace proteus::memory {

// Whether the chunked form computes `rule` under `schedule` for a (d_k, d_v) state: every rule
// without momentum (a second recurrence: rule_has_chunked_form), with row-aligned blocks. why_not (if given) says which condition fails, in a phrase.
bool chunked_form_applies(Rule rule, const Schedule& schedule, int64_t d_v, std::string* why_not = nullptr);

// The CPU's chunk size for a key width (chunk_size.hpp has every backend's and why).
int64_t default_chunk_size(int64_t d_k);

// The elements a forward keeps per chunk of `chunk` steps besides its start state, at most (every
// key row and value column open): the products its backward reads instead of making them again
// (0: the rule's backward remakes them).
int64_t chunk_products_kept(Rule rule, int64_t chunk, int64_t d_v);

// o: (T, d_v); S_final: (d_k, d_v) or null; checkpoints: the chunk-start states, null when no
// backward follows. Throws InputError: "rule" / "E" (the form does not apply), "S0" (the form
// starts from zero), "chunk_size" (< 1), and the shape errors of gated_rule_forward.
template <class T>
void chunked_rule_forward(Rule rule, const Schedule& schedule, const RuleInputs<T>& in, int64_t chunk_size, T* o,
                          T* S_final, StateCheckpoints<T>* checkpoints);

// The gradients of gated_rule_backward (grads.S0 must be null: the form starts from zero).
template <class T>
void chunked_rule_backward(Rule rule, const Schedule& schedule, const RuleInputs<T>& in,
                           const StateCheckpoints<T>& checkpoints, const T* dO, const T* dS_final,
                           const RuleGrads<T>& grads);

}  // namespace proteus::memory
