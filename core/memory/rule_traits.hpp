// The memory rules and what the code asks of each, in one row per rule (math.md section 3): the
// traits that the time loops, the chunked form, the checks, the model, the benches and the CUDA
// kernels read, so that none of them names a rule. The rows' text (names, one-line description,
// the Teach picture) is rule_descriptor.cpp's. Adding a rule: one enum value, one row here, one row
// there, and its time loop (docs/architecture.md, "Adding a rule").
// C++17 and host/device: the CUDA kernels branch on these traits at compile time.
#pragma once
#include <cstdint>
#include <type_traits>
#include <utility>

#include "core/common/host_device.hpp"

namespace proteus::memory {

enum class Rule { linear, delta, comba, titans, swla, gla, kda };
inline constexpr int kRuleCount = 7;
// The rule a config, a bench or a parity case runs when none is named (Gated DeltaNet's).
inline constexpr Rule kDefaultRule = Rule::delta;

// How a step writes, which decides the time loop that runs the rule (rule_family.hpp).
enum class RuleFamily {
  hebbian,   // S_t = a S + sum of weighted k v^T writes (hebbian_rule.cpp)
  erasing,   // S_t = a S + beta k (v - sigma (G ⊙ S)^T e)^T: erase along e, then write (delta_rule.cpp)
  momentum,  // Z_t = eta Z - beta k err^T, S_t = a S + Z_t: a second recurrence (titans_rule.cpp)
};

struct RuleTraits {
  RuleFamily family = RuleFamily::hebbian;
  bool uses_beta = true;            // a write strength beta_t per step
  bool uses_p = false;              // an erase direction p_t of its own (else the erase is along k_t)
  bool uses_eta = false;            // a momentum factor eta_t per step
  bool uses_gamma = false;          // window weights gamma_t[j]: c writes per step, of earlier keys too
  bool decayed_prediction = false;  // the erase predicts from a_t S_{t-1} (else from S_{t-1})
  bool per_key_retention = false;   // a_t is a row of d_k retentions, one per key row of S (else one scalar)
};

// Which trait combinations the CPU's time loops and chunks implement is not this header's to say:
// core/memory/rule_coverage.hpp holds the one guard every path asks before it runs a rule.

PROTEUS_HOST_DEVICE PROTEUS_ALWAYS_INLINE constexpr RuleTraits rule_traits(Rule rule) {
  RuleTraits t;
  switch (rule) {
    case Rule::linear: break;
    case Rule::delta: t.family = RuleFamily::erasing, t.decayed_prediction = true; break;
    case Rule::comba: t.family = RuleFamily::erasing, t.uses_p = true; break;
    case Rule::titans: t.family = RuleFamily::momentum, t.uses_eta = true; break;
    case Rule::swla: t.uses_beta = false, t.uses_gamma = true; break;
    case Rule::gla: t.per_key_retention = true; break;
    case Rule::kda: t.family = RuleFamily::erasing, t.decayed_prediction = true, t.per_key_retention = true; break;
  }
  return t;
}

// A second recurrence (Z): the tape keeps it, the chunked form does not exist, the work doubles.
PROTEUS_HOST_DEVICE constexpr bool rule_has_momentum(Rule rule) {
  return rule_traits(rule).family == RuleFamily::momentum;
}
// The chunked (WY) form covers every rule without a second recurrence.
PROTEUS_HOST_DEVICE constexpr bool rule_has_chunked_form(Rule rule) { return !rule_has_momentum(rule); }
// A step writes its own token only: a value_rows / layer mask on its inputs equals the gate (the
// zero-state lemma). A rule with window writes reads earlier tokens under step t's widths.
PROTEUS_HOST_DEVICE constexpr bool rule_masks_as_gates(Rule rule) { return !rule_traits(rule).uses_gamma; }
// A step predicts from the state before writing (the erasing and momentum families).
PROTEUS_HOST_DEVICE constexpr bool rule_predicts(Rule rule) { return rule_traits(rule).family != RuleFamily::hebbian; }

// The retentions a step reads: d_k (one per key row, diag(a_t) S) or 1 (a_t S); a is (T, this).
PROTEUS_HOST_DEVICE constexpr int64_t retention_width(Rule rule, int64_t d_k) {
  return rule_traits(rule).per_key_retention ? d_k : 1;
}

// Calls f(std::integral_constant<Rule, rule>{}): a runtime rule to a compile-time one, for the
// kernels and loops templated on the rule, without a switch that names each rule.
template <class F, int... I>
void visit_rule_in(Rule rule, F&& f, std::integer_sequence<int, I...>) {
  ((rule == static_cast<Rule>(I) ? (void)f(std::integral_constant<Rule, static_cast<Rule>(I)>{}) : void()), ...);
}
template <class F>
void visit_rule(Rule rule, F&& f) {
  visit_rule_in(rule, std::forward<F>(f), std::make_integer_sequence<int, kRuleCount>{});
}

}  // namespace proteus::memory
