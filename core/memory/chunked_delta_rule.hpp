// The row-aligned fast form of SPEC section 3, chunked: the form the GPU kernels take.
// When every block boundary is a row boundary (schedule.row_aligned(d_v)), G_t = m_t 1^T and the
// gated rule equals its ungated form with q, k masked by m_t and the decay applied per key
// dimension, diag(m_t a_t + 1 - m_t). Inside a chunk of C tokens the recurrence is solved in
// closed form (cumulative log-decay, a strictly lower-triangular system for the delta rule's
// corrections by forward substitution, then one state update per chunk), as in
// flash-linear-attention's chunk_gated_delta_rule / KDA. Rows past the chunk's largest active
// prefix are neither read nor written.
// Forward only; gradients come from the recurrent reference (gated_rule_backward), which
// computes the same function.
#pragma once
#include <cstdint>

#include "core/memory/gated_rule.hpp"

namespace proteus::memory {

// rule: Rule::linear or Rule::delta (both with optional decay a). Reads in.q, k, v, beta, a, S0.
// o: (T, d_v); S_final: (d_k, d_v) or null.
// Throws InputError: "rule" (not linear/delta), "chunk_size" (< 1), "E" (schedule not row
// aligned for d_v), "D" (schedule.D() != d_k * d_v).
template <class T>
void chunked_rule_forward(Rule rule, const Schedule& schedule, const RuleInputs<T>& in,
                          int64_t chunk_size, T* o, T* S_final);

}  // namespace proteus::memory
