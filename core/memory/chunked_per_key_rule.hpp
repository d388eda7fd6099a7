// One chunk of the chunked form for a rule whose retention is a row of d_k numbers
// (rule_traits' per_key_retention), hebbian (S_t = diag(a_t) S + beta k v^T, after
// flash-linear-attention's chunk_gla) or erasing along k from the decayed state
// (S_t = (I - beta k k^T) diag(a_t) S + beta k v^T, after its chunk_kda: rule_coverage.hpp's
// ChunkKind). Internal to core/memory: chunked_rule.cpp runs the chunks, checks and keeps the
// chunk-start states. With G (L, R) the chunk-local cumulative log-decays of the open key rows:
//   O  = (Q ⊙ e^G) H + A U,   A[t, s] = sum_i Q[t,i] K[s,i] e^{G[t,i] - G[s,i]} (s <= t)
//   H' = diag(e^{G_L}) H + (K ⊙ e^{G_L - G})^T U
// with U = diag(beta) V for the hebbian write, and for the erasing one the WY values
//   U = (I + diag(beta) AK)^-1 diag(beta) (V - (K ⊙ e^G) H),   AK[t, s] = A's sum with K for Q, s < t.
// A and AK are never formed as (Q ⊙ e^G)(K ⊙ e^-G)^T, whose e^-G overflows once the decays add up: the
// chunk is cut into sub-chunks of kPerKeySubChunk steps (fla's secondary chunking); a pair of
// sub-chunks is one product about the step before the later one starts, both factors' exponents
// <= 0, and a sub-chunk with itself is summed pair by pair, e^{G[t] - G[s]} as the product of the
// retentions between them. No exp of a positive number appears.
#pragma once
#include <cstdint>

#include "core/memory/rule_family.hpp"

namespace proteus::memory::detail {

inline constexpr int64_t kPerKeySubChunk = 16;

// Steps [n0, n0 + L) from the chunk-start state H (d_k, d_v), which becomes the chunk-end state;
// o's rows n0.. are written when o is not null.
template <class T>
void per_key_chunk_forward(bool erase, const Schedule& s, const RuleInputs<T>& in, int64_t n0, int64_t L, T* H, T* o);

// The adjoint of per_key_chunk_forward: H is the chunk-start state, dH the adjoint of the chunk's
// end state on entry and of its start on return; g's rows of q, k, v, beta and a for these steps
// are written (open rows and columns; the rest stay 0).
template <class T>
void per_key_chunk_backward(bool erase, const Schedule& s, const RuleInputs<T>& in, int64_t n0, int64_t L, const T* H, T* dH,
                            const T* dO, GradAccum<T>& g);

}  // namespace proteus::memory::detail
