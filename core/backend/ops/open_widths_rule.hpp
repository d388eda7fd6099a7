// The memory rule under a table of open widths (block_axis value_rows / layer, math.md section 8),
// composed once for every caller: the model's mixer, the parity cases and the bench. A backend
// whose memory_rule gates by the table itself (it supports Op::memory_rule at OpShape::open_widths,
// as the CPU does) gets one call. Any other runs the ungated rule between prefix masks, which the
// zero-state lemma makes the same function: n ⊙ v in and n ⊙ o out (value_rows), m_h ⊙ q, k, p in
// (layer), and the same masks on the way back. A rule whose masked inputs are not its gate (window
// writes read earlier tokens under step t's widths: memory::rule_masks_as_gates) is refused there.
// Callers never ask which backend they have.
#pragma once
#include <memory>
#include <string>

#include "core/backend/ops/backend.hpp"

namespace proteus::backend {

template <class T>
class OpenWidthsRule {
 public:
  explicit OpenWidthsRule(Backend<T>& be) : be_(be) {}
  ~OpenWidthsRule();
  OpenWidthsRule(const OpenWidthsRule&) = delete;
  OpenWidthsRule& operator=(const OpenWidthsRule&) = delete;

  // Whether `be` runs the rule at `shape` (shape.open_widths: under a table), by either path;
  // why_not (if given) names the limit, in a phrase.
  static bool supported(const Backend<T>& be, const OpShape& shape, std::string* why_not = nullptr);

  // The rule forward on `args` (args.open_widths null: the schedule alone, one plain call). The
  // masked inputs stay here for backward and block_norms, which take the same args.
  std::unique_ptr<OpState> forward(T* o, const MemoryRuleArgs<T>& args);
  void backward(const MemoryRuleGrads<T>& grads, const T* dO, const MemoryRuleArgs<T>& args, const OpState& state);
  void block_norms(T* out, const MemoryRuleArgs<T>& args, const OpState& state, int n_blocks) const;

 private:
  bool masks(const MemoryRuleArgs<T>& args) const;
  // args as the backend sees them on the masked path: masked inputs, no table.
  MemoryRuleArgs<T> masked(const MemoryRuleArgs<T>& args) const;
  void mask(T* out, const T* x, const MemoryRuleArgs<T>& args);
  T* scratch(int slot, size_t n);

  Backend<T>& be_;
  T* buffers_[4] = {};  // masked q, k, p (layer) or v (value_rows); the masked dO
  size_t sizes_[4] = {};
};

}  // namespace proteus::backend
