// The CUDA memory-rule kernels' size limits, in a plain C++ header: the kernels check them, the
// backend states them (CudaBackend::supports), and host-compiled tests read them.
#pragma once
#include <cstddef>
#include <cstdint>

#include "core/memory/rule_traits.hpp"

namespace proteus::cuda {

// The kernels keep value-width vectors in shared memory; beyond the default 48 KiB (static
// arrays included: the backward's 32-float reduction scratch) they would need an opt-in.
constexpr size_t kRuleSharedBytes = 48 * 1024;
constexpr size_t kRuleStaticSharedBytes = 32 * sizeof(float);
constexpr int kRuleBackwardVectors = 3;  // the backward's pred, corr, dcorr; the forward keeps 1
// The widest d_v both directions run (4085), and the most state elements (int32 offsets).
constexpr int kMaxRuleValueWidth =
    static_cast<int>((kRuleSharedBytes - kRuleStaticSharedBytes) / (kRuleBackwardVectors * sizeof(float)));
constexpr int64_t kMaxRuleStateElements = 2147483647;

// The retentions the recurrent kernels read: one a step for every rule; a row of d_k
// (per_key_retention) only in the hebbian family's single write, where row i of the state
// decays by a_t[i]. A per-key rule of another family (KDA's erasing write, say) is refused.
constexpr bool kernels_read_retention_of(memory::Rule rule) {
  const memory::RuleTraits t = memory::rule_traits(rule);
  return !t.per_key_retention || (t.family == memory::RuleFamily::hebbian && !t.uses_gamma);
}

}  // namespace proteus::cuda
