#include "core/backend/ops/open_widths_rule.hpp"

#include <algorithm>

#include "core/common/input_error.hpp"

namespace proteus::backend {
namespace {

enum Slot { kQ = 0, kK = 1, kP = 2, kV = 0, kDO = 3 };  // layer masks q, k, p; value_rows masks v (and dO)

template <class T>
bool by_key_rows(const MemoryRuleArgs<T>& a) { return a.open_widths_of == memory::OpenWidths::key_rows; }

}  // namespace

template <class T>
OpenWidthsRule<T>::~OpenWidthsRule() {
  for (T* p : buffers_)
    if (p) be_.free(p);
}

template <class T>
bool OpenWidthsRule<T>::supported(const Backend<T>& be, const OpShape& shape, std::string* why_not) {
  if (!shape.open_widths) return be.supports(Op::memory_rule, shape, why_not);
  std::string gates_why;
  if (be.supports(Op::memory_rule, shape, &gates_why)) return true;
  if (!memory::rule_masks_as_gates(shape.rule)) {
    if (why_not)
      *why_not = "rule " + std::string(memory::rule_name(shape.rule)) +
                 " under block_axis value_rows or layer gates its window by open widths, which this backend's "
                 "memory rule does not take (" + gates_why + ")";
    return false;
  }
  OpShape ungated = shape;
  ungated.open_widths = false;
  OpShape rows;
  rows.B = shape.B, rows.T = shape.T, rows.H = shape.H, rows.d = std::max(shape.d_k, shape.d_v);
  return be.supports(Op::memory_rule, ungated, why_not) && be.supports(Op::prefix_mask, rows, why_not);
}

template <class T>
bool OpenWidthsRule<T>::masks(const MemoryRuleArgs<T>& args) const {
  if (!args.open_widths) return false;
  OpShape s;
  s.rule = args.rule, s.B = args.B, s.T = args.T, s.H = args.H, s.d_k = args.d_k, s.d_v = args.d_v;
  s.window = args.window, s.open_widths = true;
  return !be_.supports(Op::memory_rule, s);
}

template <class T>
T* OpenWidthsRule<T>::scratch(int slot, size_t n) {
  if (n > sizes_[slot]) {
    if (buffers_[slot]) be_.free(buffers_[slot]);
    buffers_[slot] = nullptr;  // alloc may throw: never free twice
    buffers_[slot] = be_.alloc(n);
    sizes_[slot] = n;
  }
  return buffers_[slot];
}

template <class T>
void OpenWidthsRule<T>::mask(T* out, const T* x, const MemoryRuleArgs<T>& args) {
  const int width = by_key_rows(args) ? args.d_k : args.d_v;
  be_.prefix_mask(out, x, args.open_widths, args.B, args.T, args.H, width);
}

template <class T>
MemoryRuleArgs<T> OpenWidthsRule<T>::masked(const MemoryRuleArgs<T>& args) const {
  MemoryRuleArgs<T> m = args;
  m.open_widths = nullptr;
  if (by_key_rows(args)) {
    m.q = buffers_[kQ], m.k = buffers_[kK];
    if (args.p) m.p = args.p == args.k ? buffers_[kK] : buffers_[kP];  // the model's p is its k
  } else {
    m.v = buffers_[kV];
  }
  return m;
}

template <class T>
std::unique_ptr<OpState> OpenWidthsRule<T>::forward(T* o, const MemoryRuleArgs<T>& args) {
  if (!masks(args)) return be_.memory_rule_forward(o, args);
  const size_t rows = static_cast<size_t>(args.B) * args.T * args.H;
  if (!memory::rule_masks_as_gates(args.rule))
    throw InputError("block_axis", "rule " + std::string(memory::rule_name(args.rule)) + " on the " + be_.name() +
                                       " backend: its window writes are not its inputs masked");
  if (by_key_rows(args)) {
    mask(scratch(kQ, rows * args.d_k), args.q, args);
    mask(scratch(kK, rows * args.d_k), args.k, args);
    if (args.p && args.p != args.k) mask(scratch(kP, rows * args.d_k), args.p, args);
    return be_.memory_rule_forward(o, masked(args));
  }
  mask(scratch(kV, rows * args.d_v), args.v, args);
  auto state = be_.memory_rule_forward(o, masked(args));
  mask(o, o, args);  // n ⊙ o: the read of locked value dimensions is 0
  return state;
}

template <class T>
void OpenWidthsRule<T>::backward(const MemoryRuleGrads<T>& g, const T* dO, const MemoryRuleArgs<T>& args,
                                 const OpState& state) {
  if (!masks(args)) return be_.memory_rule_backward(g, dO, args, state);
  const size_t rows = static_cast<size_t>(args.B) * args.T * args.H;
  if (by_key_rows(args)) {
    be_.memory_rule_backward(g, dO, masked(args), state);
    for (T* x : {g.q, g.k, g.p})
      if (x) mask(x, x, args);  // through m_h ⊙ q, k, p
    return;
  }
  T* dOm = scratch(kDO, rows * args.d_v);
  mask(dOm, dO, args);
  be_.memory_rule_backward(g, dOm, masked(args), state);
  if (g.v) mask(g.v, g.v, args);  // through n ⊙ v
}

template <class T>
void OpenWidthsRule<T>::block_norms(T* out, const MemoryRuleArgs<T>& args, const OpState& state, int n_blocks) const {
  be_.memory_block_norms(out, masks(args) ? masked(args) : args, state, n_blocks);
}

template class OpenWidthsRule<float>;
template class OpenWidthsRule<double>;

}  // namespace proteus::backend
