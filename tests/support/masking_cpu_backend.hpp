// The CPU backend as a backend without the open-widths table sees the model (the CUDA backend's
// way): it does not support memory_rule at OpShape::open_widths, so backend::OpenWidthsRule masks
// the rule's inputs and outputs (math.md section 8's zero-state lemma), and it runs the rule
// ungated, ignoring a table it is handed (none should reach it). A rule with window writes under
// value_rows and layer is refused, as on CUDA. With it, the path every CUDA run takes under those
// axes runs on the CPU under finite differences and the PyTorch reference.
#pragma once
#include <memory>
#include <string>

#include "core/backend/cpu/cpu_backend.hpp"

namespace proteus::test_support {

template <class T>
class MaskingCpuBackend : public backend::CpuBackend<T> {
 public:
  using backend::CpuBackend<T>::CpuBackend;
  std::string name() const override { return "cpu-masking"; }
  bool supports(backend::Op op, const backend::OpShape& shape, std::string* why_not = nullptr) const override {
    if (op == backend::Op::memory_rule && shape.open_widths) {
      if (why_not) *why_not = "the masking backend takes no table of open widths";
      return false;
    }
    return backend::CpuBackend<T>::supports(op, shape, why_not);
  }
  std::unique_ptr<backend::OpState> memory_rule_forward(T* o, const backend::MemoryRuleArgs<T>& args) override {
    return backend::CpuBackend<T>::memory_rule_forward(o, ungated(args));
  }
  void memory_rule_backward(const backend::MemoryRuleGrads<T>& grads, const T* dO, const backend::MemoryRuleArgs<T>& args,
                            const backend::OpState& state) override {
    backend::CpuBackend<T>::memory_rule_backward(grads, dO, ungated(args), state);
  }
  void memory_block_norms(T* out, const backend::MemoryRuleArgs<T>& args, const backend::OpState& state,
                          int n_blocks) override {
    backend::CpuBackend<T>::memory_block_norms(out, ungated(args), state, n_blocks);
  }

 private:
  static backend::MemoryRuleArgs<T> ungated(backend::MemoryRuleArgs<T> args) {
    args.open_widths = nullptr;
    return args;
  }
};

}  // namespace proteus::test_support
