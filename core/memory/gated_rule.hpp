// The gated memory rules of math.md section 3, one head, recurrent, in the elementwise form that is
// the definition: any E in [1, D], any schedule. Forward saves the states it needs (a tape);
// backward walks time in reverse and returns dL/d of every input for
//   L = sum_t <dO_t, o_t> + <dS_T, S_T>.
// Active elements take the ungated update (so E = 1 is the ungated rule bit for bit); locked
// elements are never written (so they keep their exact bits, decay and momentum included).
// Templated on the scalar (F in the structs, T in the functions): float for work, double for checks. Buffers are row-major and
// contiguous per head; shapes are noted as (T, d_k) etc.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/memory/rule_descriptor.hpp"
#include "core/memory/schedule.hpp"

namespace proteus::memory {

// What a table of open widths counts (block_axis layer: key rows; value_rows: value columns).
enum class OpenWidths { key_rows, value_columns };

// One head's inputs. Optional ones may be null: a = 1 (no decay), eta = 0, S0 = 0.
template <class F>
struct RuleInputs {
  int64_t T = 0;         // tokens
  int64_t d_k = 0;       // key width (rows of S)
  int64_t d_v = 0;       // value width (columns of S)
  int64_t window = 0;    // window c (columns of gamma), for a rule with window writes
  const F* q = nullptr;      // (T, d_k)
  const F* k = nullptr;      // (T, d_k)
  const F* v = nullptr;      // (T, d_v)
  const F* beta = nullptr;   // (T)            write strength (rule_uses_beta)
  const F* a = nullptr;      // (T)            retention in (0, 1], null = 1
  const F* p = nullptr;      // (T, d_k)       erase direction (rule_uses_p)
  const F* eta = nullptr;    // (T)            momentum factor (rule_uses_eta), null = 0
  const F* gamma = nullptr;  // (T, window)    window weights (rule_uses_gamma)
  const F* S0 = nullptr;     // (d_k, d_v)     initial state, null = 0
  // block_axis value_rows / layer (math.md section 8): at step n only the first open_widths[n *
  // open_widths_stride] value columns (value_columns) or key rows (key_rows) of S are open, on
  // top of the schedule; the rest are locked like any gated element (never read, never written).
  // The rule then skips them, and window writes write earlier tokens under step n's widths.
  const int32_t* open_widths = nullptr;  // (T) at a stride; null = every row and column
  int64_t open_widths_stride = 1;
  OpenWidths open_widths_of = OpenWidths::value_columns;
};

// Gradient outputs, overwritten (activation gradients overwrite, as in llm.c). A null pointer
// means "not wanted"; pointers for inputs the rule does not take are ignored.
template <class F>
struct RuleGrads {
  F* q = nullptr;      // (T, d_k)
  F* k = nullptr;      // (T, d_k)
  F* v = nullptr;      // (T, d_v)
  F* beta = nullptr;   // (T)   zeros for a rule that does not read beta
  F* a = nullptr;      // (T)
  F* p = nullptr;      // (T, d_k)
  F* eta = nullptr;    // (T)
  F* gamma = nullptr;  // (T, window)
  F* S0 = nullptr;     // (d_k, d_v)
  // Heads interleaved in the caller's (T, heads, width) tensors: row n of a (T, width) gradient is
  // written at n * interleave * width, in place (S0 is one state).
  int64_t interleave = 1;
};

// What the forward keeps for the backward: every state S_0..S_T, and Z_0..Z_T for a rule with
// momentum.
// (A recomputing form keeps a short tape of one range, starting at state `first`.)
template <class F>
struct RuleTape {
  std::vector<F> S;   // (T+1, d_k, d_v)
  std::vector<F> Z;   // (T+1, d_k, d_v), momentum only
  int64_t first = 0;  // the step of S[0]
};

// o: (T, d_v); S_final: (d_k, d_v) or null; tape: null when no backward follows.
// Throws InputError when the shapes disagree with the schedule (D != d_k * d_v) or a required
// input is missing.
template <class T>
void gated_rule_forward(Rule rule, const Schedule& schedule, const RuleInputs<T>& in, T* o,
                        T* S_final, RuleTape<T>* tape);

// dO: (T, d_v) or null (= 0); dS_final: (d_k, d_v) or null (= 0).
template <class T>
void gated_rule_backward(Rule rule, const Schedule& schedule, const RuleInputs<T>& in,
                         const RuleTape<T>& tape, const T* dO, const T* dS_final,
                         const RuleGrads<T>& grads);

}  // namespace proteus::memory
