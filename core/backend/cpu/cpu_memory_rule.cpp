// The CPU backend's memory rule: apart from the dense ops, as it keeps per-head state from the forward to the backward.
#include <algorithm>
#include <cmath>
#include <memory>
#include <memory_resource>
#include <string>
#include <vector>

#include "core/backend/cpu/cpu_backend.hpp"
#include "core/backend/cpu/huge_page_blocks.hpp"
#include "core/backend/cpu/parallel_loops.hpp"
#include "core/common/input_error.hpp"
#include "core/common/uninitialized_vector.hpp"
#include "core/memory/checkpointed_rule.hpp"
#include "core/memory/chunked_rule.hpp"

namespace proteus::backend {
namespace {

using cpu::parallel_for;

// One head's own copies of its rows, and what its forward keeps for its backward.
template <class T>
struct HeadRows {
  UninitializedVector<T> q, k, v, beta, a, p, eta, gamma;  // this head's rows, contiguous: (T, width); empty in place
  std::vector<int32_t> open_widths;                 // (T) block_axis value_rows / layer; empty = none
  memory::StateCheckpoints<T> checkpoints;         // chunk-start states: T / chunk of them, no tape
};

// The rule's per-token inputs, one row each: where the args, a head's copies, the rule's inputs and
// both gradients hold it, its width a token, and whether the rule takes it (else it stays null).
template <class T>
struct InputRow {
  const T* MemoryRuleArgs<T>::*arg;
  UninitializedVector<T> HeadRows<T>::*copy;
  const T* memory::RuleInputs<T>::*in;
  T* MemoryRuleGrads<T>::*grad;
  T* memory::RuleGrads<T>::*rule_grad;
  int64_t (*width)(Rule rule, int64_t d_k, int64_t d_v, int64_t window);
  bool (*taken)(Rule rule);
};

template <class T>
constexpr InputRow<T> kInputRows[] = {
    {&MemoryRuleArgs<T>::q, &HeadRows<T>::q, &memory::RuleInputs<T>::q, &MemoryRuleGrads<T>::q,
     &memory::RuleGrads<T>::q, [](Rule, int64_t d_k, int64_t, int64_t) { return d_k; }, [](Rule) { return true; }},
    {&MemoryRuleArgs<T>::k, &HeadRows<T>::k, &memory::RuleInputs<T>::k, &MemoryRuleGrads<T>::k,
     &memory::RuleGrads<T>::k, [](Rule, int64_t d_k, int64_t, int64_t) { return d_k; }, [](Rule) { return true; }},
    {&MemoryRuleArgs<T>::v, &HeadRows<T>::v, &memory::RuleInputs<T>::v, &MemoryRuleGrads<T>::v,
     &memory::RuleGrads<T>::v, [](Rule, int64_t, int64_t d_v, int64_t) { return d_v; }, [](Rule) { return true; }},
    {&MemoryRuleArgs<T>::beta, &HeadRows<T>::beta, &memory::RuleInputs<T>::beta, &MemoryRuleGrads<T>::beta,
     &memory::RuleGrads<T>::beta, [](Rule, int64_t, int64_t, int64_t) { return int64_t{1}; }, memory::rule_uses_beta},
    {&MemoryRuleArgs<T>::a, &HeadRows<T>::a, &memory::RuleInputs<T>::a, &MemoryRuleGrads<T>::a,
     &memory::RuleGrads<T>::a,
     [](Rule rule, int64_t d_k, int64_t, int64_t) { return static_cast<int64_t>(memory::retention_width(rule, d_k)); },
     [](Rule) { return true; }},  // null: no decay
    {&MemoryRuleArgs<T>::p, &HeadRows<T>::p, &memory::RuleInputs<T>::p, &MemoryRuleGrads<T>::p,
     &memory::RuleGrads<T>::p, [](Rule, int64_t d_k, int64_t, int64_t) { return d_k; }, memory::rule_uses_p},
    {&MemoryRuleArgs<T>::eta, &HeadRows<T>::eta, &memory::RuleInputs<T>::eta, &MemoryRuleGrads<T>::eta,
     &memory::RuleGrads<T>::eta, [](Rule, int64_t, int64_t, int64_t) { return int64_t{1}; }, memory::rule_uses_eta},
    {&MemoryRuleArgs<T>::gamma, &HeadRows<T>::gamma, &memory::RuleInputs<T>::gamma, &MemoryRuleGrads<T>::gamma,
     &memory::RuleGrads<T>::gamma, [](Rule, int64_t, int64_t, int64_t window) { return window; },
     memory::rule_uses_gamma},
};

template <class T>
struct CpuRuleState final : OpState {
  Rule rule = memory::kDefaultRule;
  int B = 0, Tn = 0, H = 0, d_k = 0, d_v = 0, window = 0;
  memory::RuleForm form = memory::RuleForm::recurrent;  // resolved: chunked or recurrent
  int64_t chunk = 0;
  memory::OpenWidths open_widths_of = memory::OpenWidths::value_columns;
  // One head a batch row: its rows are already contiguous in the args' tensors, read in place (the
  // args are the same in the backward); with more heads each head's rows are gathered into copies.
  bool in_place = false;
  using Head = HeadRows<T>;
  // Where the heads' buffers live (declared before them, so they go first): a block kept by the
  // backend from call to call, a slice of it a head (a head's thread allocates alone); a call too
  // small for a huge page uses the heap.
  std::unique_ptr<cpu::BlockLease> block;
  std::vector<std::unique_ptr<std::pmr::monotonic_buffer_resource>> head_memory;  // (B, H)
  std::vector<Head> heads;  // (B, H)

  // Head (b, h)'s first row in a (B, T, H, width) tensor, in rows of that width.
  size_t first_row(int b, int h) const { return static_cast<size_t>(b) * Tn * H + h; }

  // Head bh's inputs: its copies, or (in place) its rows of the args' tensors.
  memory::RuleInputs<T> inputs(int64_t bh, const MemoryRuleArgs<T>& args) const {
    memory::RuleInputs<T> in = shape();
    if (!in_place) return with_copies(in, heads[bh]);
    const size_t row0 = static_cast<size_t>(bh) * Tn;  // H == 1
    for (const InputRow<T>& r : kInputRows<T>) {
      const T* x = args.*r.arg;
      in.*r.in = x && r.taken(rule) ? x + row0 * r.width(rule, d_k, d_v, window) : nullptr;
    }
    in.open_widths = args.open_widths;  // (T, 1)
    return in;
  }

  memory::RuleInputs<T> shape() const {
    memory::RuleInputs<T> in;
    in.T = Tn;
    in.d_k = d_k;
    in.d_v = d_v;
    in.window = window;
    in.open_widths_of = open_widths_of;
    return in;
  }

  static memory::RuleInputs<T> with_copies(memory::RuleInputs<T> in, const Head& hd) {
    for (const InputRow<T>& r : kInputRows<T>) {
      const UninitializedVector<T>& x = hd.*r.copy;
      in.*r.in = x.empty() ? nullptr : x.data();
    }
    in.open_widths = hd.open_widths.empty() ? nullptr : hd.open_widths.data();
    return in;
  }
};

// Head (b, h)'s strided rows of a (B, T, H, width) tensor, gathered into (T, width).
template <class T, class Vector>
void gather_head(Vector& dst, const T* src, int b, int h, int Tn, int H, int width) {
  dst.clear();
  if (!src) return;
  dst.resize(static_cast<size_t>(Tn) * width);
  for (int t = 0; t < Tn; ++t) {
    const T* row = src + ((static_cast<size_t>(b) * Tn + t) * H + h) * width;
    std::copy(row, row + width, dst.data() + static_cast<size_t>(t) * width);
  }
}

template <class T>
void scatter_head(T* dst, const T* src, int b, int h, int Tn, int H, int width) {
  if (!dst) return;
  for (int t = 0; t < Tn; ++t)
    std::copy(src + static_cast<size_t>(t) * width, src + static_cast<size_t>(t + 1) * width,
              dst + ((static_cast<size_t>(b) * Tn + t) * H + h) * width);
}

// Head (b, h)'s rows of every input the rule takes, into its own contiguous copies.
template <class T>
void gather_inputs(HeadRows<T>& hd, const MemoryRuleArgs<T>& args, int b, int h, int window) {
  const int Tn = args.T, H = args.H;
  for (const InputRow<T>& r : kInputRows<T>) {
    const int width = static_cast<int>(r.width(args.rule, args.d_k, args.d_v, window));
    gather_head(hd.*r.copy, r.taken(args.rule) ? args.*r.arg : nullptr, b, h, Tn, H, width);
  }
  if (args.open_widths) {  // (T, H): the same for every batch row
    hd.open_widths.resize(Tn);
    for (int t = 0; t < Tn; ++t) hd.open_widths[t] = args.open_widths[static_cast<size_t>(t) * H + h];
  }
}

// Bytes of a head's buffers in its slice of the call's block: its gathered rows, its checkpoints
// and, for the chunked form, its kept products, each with room for its alignment. A buffer that
// does not fit comes from the heap instead (right, only slower).
template <class T>
size_t head_bytes(const CpuRuleState<T>& st, const MemoryRuleArgs<T>& args) {
  auto room = [](int64_t n) { return static_cast<size_t>(n) * sizeof(T) + UninitializedAllocator<T>::kAlignment; };
  size_t bytes = 0;
  for (const InputRow<T>& r : kInputRows<T>)
    if (!st.in_place && args.*r.arg && r.taken(args.rule)) bytes += room(int64_t{args.T} * r.width(args.rule, args.d_k, args.d_v, st.window));
  const int64_t ranges = st.chunk > 0 ? memory::checkpoint_ranges(args.T, st.chunk) : 0;
  bytes += room(ranges * args.d_k * args.d_v);
  if (st.form == memory::RuleForm::chunked) bytes += room(ranges * memory::chunk_products_kept(args.rule, st.chunk, args.d_v));
  return bytes;
}

// Each head's buffers allocate from its slice of a block taken from `blocks`, when the call's
// buffers fill at least a huge page.
template <class T>
void place_heads(CpuRuleState<T>& st, const MemoryRuleArgs<T>& args, const std::shared_ptr<cpu::HugePageBlocks>& blocks) {
  const size_t per_head = head_bytes(st, args), n = st.heads.size();
  if (n == 0 || per_head * n < cpu::HugePageBlocks::kHugePage) return;
  st.block = std::make_unique<cpu::BlockLease>(blocks, per_head * n);
  st.head_memory.reserve(n);
  for (size_t bh = 0; bh < n; ++bh) {
    auto* slice = static_cast<char*>(st.block->data()) + bh * per_head;
    st.head_memory.push_back(std::make_unique<std::pmr::monotonic_buffer_resource>(slice, per_head));
    const UninitializedAllocator<T> alloc(st.head_memory.back().get());
    HeadRows<T>& hd = st.heads[bh];
    for (const InputRow<T>& r : kInputRows<T>) hd.*r.copy = UninitializedVector<T>(alloc);
    hd.checkpoints.S = UninitializedVector<T>(alloc);
    hd.checkpoints.products = UninitializedVector<T>(alloc);
  }
}

template <class T>
void check_rule_args(const MemoryRuleArgs<T>& args) {
  if (!args.schedule) throw InputError("schedule", "required");
  if (args.B < 0 || args.T < 0 || args.H < 0) throw InputError("B", "batch, tokens and heads must be >= 0");
  if (args.d_k < 1 || args.d_v < 1) throw InputError("d_k", "key and value widths must be >= 1");
  if (memory::rule_uses_gamma(args.rule) && args.window < 1) throw InputError("window", std::string(memory::rule_name(args.rule)) + " needs a window >= 1");
}

template <class T>
const CpuRuleState<T>& rule_state(const OpState& state, const MemoryRuleArgs<T>& args) {
  const auto* s = dynamic_cast<const CpuRuleState<T>*>(&state);
  if (!s) throw InputError("state", "does not come from this backend's memory_rule_forward");
  if (s->rule != args.rule || s->B != args.B || s->Tn != args.T || s->H != args.H || s->d_k != args.d_k ||
      s->d_v != args.d_v)
    throw InputError("state", "comes from a forward of another rule or other shapes");
  return *s;
}

}  // namespace

template <class T>
std::unique_ptr<OpState> CpuBackend<T>::memory_rule_forward(T* o, const MemoryRuleArgs<T>& args) {
  check_rule_args(args);
  auto state = std::make_unique<CpuRuleState<T>>();
  state->rule = args.rule;
  state->B = args.B;
  state->Tn = args.T;
  state->H = args.H;
  state->d_k = args.d_k;
  state->d_v = args.d_v;
  state->window = memory::rule_uses_gamma(args.rule) ? args.window : 0;
  state->form = this->form_to_run(args);
  state->chunk = this->chunk_to_run(args);
  state->open_widths_of = args.open_widths_of;
  state->heads.resize(static_cast<size_t>(args.B) * args.H);
  // At one head the gathers were copies of contiguous rows (3% of the paper-regime step, perf). At 8
  // heads the chunked form reading the interleaved rows in place measured 5-10% slower than gathering.
  state->in_place = args.H == 1;
  place_heads(*state, args, blocks_);
  const int Tn = args.T, H = args.H, d_v = args.d_v;
  parallel_for(static_cast<int64_t>(args.B) * H, *pool_, [&](int64_t bh) {
    const int b = static_cast<int>(bh / H), h = static_cast<int>(bh % H);
    auto& hd = state->heads[bh];
    if (!state->in_place) gather_inputs(hd, args, b, h, state->window);
    thread_local std::vector<T> oh;  // (T, d_v): a pool thread's, kept from call to call (no fresh pages)
    T* out = o && state->in_place ? o + state->first_row(b, h) * d_v : nullptr;
    if (!out) {
      oh.resize(static_cast<size_t>(Tn) * d_v);
      out = oh.data();
    }
    std::fill(out, out + static_cast<size_t>(Tn) * d_v, T(0));  // a form may write only the open columns
    if (state->form == memory::RuleForm::chunked)
      memory::chunked_rule_forward<T>(args.rule, *args.schedule, state->inputs(bh, args), state->chunk, out, nullptr,
                                      &hd.checkpoints);
    else
      memory::checkpointed_rule_forward<T>(args.rule, *args.schedule, state->inputs(bh, args), state->chunk, out,
                                           nullptr, &hd.checkpoints);
    if (out == oh.data()) scatter_head(o, oh.data(), b, h, Tn, H, d_v);
  });
  return state;
}

template <class T>
void CpuBackend<T>::memory_rule_backward(const MemoryRuleGrads<T>& grads, const T* dO, const MemoryRuleArgs<T>& args,
                                         const OpState& state) {
  check_rule_args(args);
  const CpuRuleState<T>& st = rule_state(state, args);
  const int Tn = args.T, H = args.H, d_v = args.d_v;
  parallel_for(static_cast<int64_t>(args.B) * H, *pool_, [&](int64_t bh) {
    const int b = static_cast<int>(bh / H), h = static_cast<int>(bh % H);
    const auto& hd = st.heads[bh];
    // A pool thread's buffer, kept from call to call: no allocation, no first touch of fresh pages.
    thread_local std::vector<T> dOh;
    if (!st.in_place) gather_head(dOh, dO, b, h, Tn, H, d_v);
    // The gradients go straight to the caller's rows of this head, H rows apart (RuleGrads::interleave):
    // the rule overwrites every one it hands back; one it does not take stays null.
    const size_t row0 = st.first_row(b, h);
    memory::RuleGrads<T> g;
    for (const InputRow<T>& r : kInputRows<T>) {
      T* x = grads.*r.grad;
      g.*r.rule_grad = x && r.taken(args.rule) ? x + row0 * r.width(args.rule, args.d_k, d_v, st.window) : nullptr;
    }
    g.interleave = H;
    const T* dOp = st.in_place ? (dO ? dO + row0 * d_v : nullptr) : dOh.empty() ? nullptr : dOh.data();
    if (st.form == memory::RuleForm::chunked)
      memory::chunked_rule_backward<T>(args.rule, *args.schedule, st.inputs(bh, args), hd.checkpoints, dOp, nullptr, g);
    else
      memory::checkpointed_rule_backward<T>(args.rule, *args.schedule, st.inputs(bh, args), hd.checkpoints, dOp,
                                            nullptr, g);
  });
}

template <class T>
void CpuBackend<T>::memory_block_norms(T* out, const MemoryRuleArgs<T>& args, const OpState& state, int n_blocks) {
  const CpuRuleState<T>& st = rule_state(state, args);
  const int64_t D = static_cast<int64_t>(args.d_k) * args.d_v;
  if (n_blocks < 1 || n_blocks > D)
    throw InputError("n_blocks", "must be in [1, " + std::to_string(D) + "], got " + std::to_string(n_blocks));
  const int64_t size = D / n_blocks;
  const int Tn = args.T;
  parallel_for(static_cast<int64_t>(args.B) * args.H, *pool_, [&](int64_t bh) {
    // States are recomputed from the forward's checkpoints, range by range (no tape is kept).
    const auto& hd = st.heads[bh];
    const memory::RuleInputs<T> in = st.inputs(bh, args);
    memory::replay_rule_states<T>(st.rule, *args.schedule, in, hd.checkpoints, [&](int64_t n, const T* St) {
      T* dst = out + (static_cast<size_t>(bh) * Tn + (n - 1)) * n_blocks;
      for (int blk = 0; blk < n_blocks; ++blk) {
        const int64_t e0 = blk * size, e1 = blk + 1 == n_blocks ? D : e0 + size;  // the last absorbs the rest
        double ss = 0;
        for (int64_t e = e0; e < e1; ++e) ss += static_cast<double>(St[e]) * St[e];
        dst[blk] = static_cast<T>(std::sqrt(ss));
      }
    });
  });
}

// CpuBackend<T> itself is instantiated in cpu_backend.cpp; its memory-rule members here.
template std::unique_ptr<OpState> CpuBackend<float>::memory_rule_forward(float*, const MemoryRuleArgs<float>&);
template std::unique_ptr<OpState> CpuBackend<double>::memory_rule_forward(double*, const MemoryRuleArgs<double>&);
template void CpuBackend<float>::memory_rule_backward(const MemoryRuleGrads<float>&, const float*,
                                                      const MemoryRuleArgs<float>&, const OpState&);
template void CpuBackend<double>::memory_rule_backward(const MemoryRuleGrads<double>&, const double*,
                                                       const MemoryRuleArgs<double>&, const OpState&);
template void CpuBackend<float>::memory_block_norms(float*, const MemoryRuleArgs<float>&, const OpState&, int);
template void CpuBackend<double>::memory_block_norms(double*, const MemoryRuleArgs<double>&, const OpState&, int);

}  // namespace proteus::backend
