// The memory rule's and block norms' parity cases: apart, with their own inputs, schedules, locked rows and sizes.
#include "core/backend/cases/memory_rule_cases.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "core/backend/cases/case_making.hpp"
#include "core/backend/ops/open_widths_rule.hpp"
#include "core/memory/block_axis.hpp"
#include "core/memory/chunked_rule.hpp"
#include "core/memory/schedule.hpp"

namespace proteus::backend::parity {
namespace {

constexpr int kDk = 4, kDv = 3, kWindow = 2;

// The sizes of a memory-rule case. kSmall runs every rule and form in microseconds; kWide is
// large enough to see what kSmall cannot: several value tiles of a GPU state pass (d_v 40 > 32),
// loops that take more than one pass, several chunks with a ragged last one, and (window writes) a
// window wider than the chunk.
struct RuleDims {
  int B, T, H, d_k, d_v, window;
};
constexpr RuleDims kSmall{B, T, H, kDk, kDv, kWindow};
constexpr RuleDims kWide{1, 70, 2, 8, 40, 3};

// Flags the elements of a (B, T, H, d_k) gradient whose key row stays locked for as long as its
// position's input is read: the rule never touches such a row, so its gradient is exactly 0 on
// every backend. A step's q, k, p are read at that step only, except a windowed rule's k, which the
// next `window - 1` steps read again (its sum over k_{t-j}): `reach` is how many steps one is read.
std::vector<uint8_t> locked_rows(const memory::Schedule& schedule, const RuleDims& r, int reach = 1) {
  std::vector<uint8_t> m(static_cast<size_t>(r.B) * r.T * r.H * r.d_k, 0);
  for (int b = 0; b < r.B; ++b)
    for (int t = 0; t < r.T; ++t) {
      const int last = std::min(r.T - 1, t + reach - 1);  // the schedule only opens rows: the last read has the most
      const int64_t end = schedule.active_elements(last + 1);
      for (int h = 0; h < r.H; ++h)
        for (int i = 0; i < r.d_k; ++i)
          m[((static_cast<size_t>(b) * r.T + t) * r.H + h) * r.d_k + i] = int64_t(i) * r.d_v >= end;
    }
  return m;
}

// The rule's inputs as the model feeds them: unit-norm-ish keys, beta in (0, 1), retention a
// (0 at the steps `zero_retention` names: a retention that underflowed).
template <class S>
MemoryRuleArgs<Scalar<S>> rule_inputs(S& s, memory::Rule rule, const memory::Schedule& schedule,
                                      const RuleDims& r = kSmall, const std::vector<int>& zero_retention = {}) {
  const int n = r.B * r.T * r.H;
  MemoryRuleArgs<Scalar<S>> args;
  args.rule = rule;
  args.schedule = &schedule;
  args.B = r.B, args.T = r.T, args.H = r.H, args.d_k = r.d_k, args.d_v = r.d_v, args.window = r.window;
  args.q = s.input("q", values(n * r.d_k, 30, -0.5, 0.5));
  args.k = s.input("k", values(n * r.d_k, 31, -0.5, 0.5));
  args.v = s.input("v", values(n * r.d_v, 32));
  args.beta = memory::rule_uses_beta(rule) ? s.input("beta", values(n, 33, 0.1, 0.9)) : nullptr;
  const int aw = static_cast<int>(memory::retention_width(rule, r.d_k));  // a's width: 1, or d_k
  auto a = values(n * aw, 34, 0.6, 1.0);
  for (int b = 0; b < r.B; ++b)
    for (int t : zero_retention)
      for (int h = 0; h < r.H; ++h)
        for (int i = 0; i < aw; ++i) a[((static_cast<size_t>(b) * r.T + t) * r.H + h) * aw + i] = 0.0;
  args.a = s.input("a", a);
  args.p = memory::rule_uses_p(rule) ? s.input("p", values(n * r.d_k, 35, -0.5, 0.5)) : nullptr;
  args.eta = memory::rule_uses_eta(rule) ? s.input("eta", values(n, 36, 0.0, 0.9)) : nullptr;
  args.gamma = memory::rule_uses_gamma(rule) ? s.input("gamma", values(n * r.window, 37, 0.1, 0.9)) : nullptr;
  return args;
}

OpShape rule_shape(memory::Rule rule, int n_blocks, const RuleDims& r = kSmall) {
  OpShape sh;
  sh.rule = rule;
  sh.B = r.B, sh.T = r.T, sh.H = r.H, sh.d_k = r.d_k, sh.d_v = r.d_v, sh.window = r.window, sh.n_blocks = n_blocks;
  return sh;
}

constexpr int kHorizon = T - 3;  // every block open before the end

// The gradient buffers of every input `args` has (activation gradients: all overwritten).
template <class S>
MemoryRuleGrads<Scalar<S>> rule_grads(S& s, const MemoryRuleArgs<Scalar<S>>& args, const RuleDims& r) {
  const int n = r.B * r.T * r.H;
  MemoryRuleGrads<Scalar<S>> g;
  g.q = s.output("dq", n * r.d_k), g.k = s.output("dk", n * r.d_k), g.v = s.output("dv", n * r.d_v);
  g.a = s.output("da", n * memory::retention_width(args.rule, r.d_k));
  if (args.beta) g.beta = s.output("dbeta", n);
  if (args.p) g.p = s.output("dp", n * r.d_k);
  if (args.eta) g.eta = s.output("deta", n);
  if (args.gamma) g.gamma = s.output("dgamma", n * r.window);
  return g;
}

// The output o and every gradient g holds, read back whole (no element excused).
template <class S>
CaseOutputs rule_outputs(S& s, memory::Rule rule, const Scalar<S>* o, const MemoryRuleGrads<Scalar<S>>& g,
                         const RuleDims& r) {
  const int n = r.B * r.T * r.H;
  CaseOutputs out{{"o", plain(s.read(o, n * r.d_v))},
                  {"dq", plain(s.read(g.q, n * r.d_k))},
                  {"dk", plain(s.read(g.k, n * r.d_k))},
                  {"dv", plain(s.read(g.v, n * r.d_v))},
                  {"da", plain(s.read(g.a, n * memory::retention_width(rule, r.d_k)))}};
  if (g.beta) out["dbeta"] = plain(s.read(g.beta, n));
  if (g.p) out["dp"] = plain(s.read(g.p, n * r.d_k));
  if (g.eta) out["deta"] = plain(s.read(g.eta, n));
  if (g.gamma) out["dgamma"] = plain(s.read(g.gamma, n * r.window));
  return out;
}

// One memory-rule case: forward, then backward, every output and gradient with its locked rows.
struct RuleCase {
  memory::Rule rule;
  memory::RuleForm form;
  int E;
  int chunk;  // 0: the backend's own
  RuleDims dims = kSmall;
  int horizon = kHorizon;
  std::vector<int> zero_retention = {};
};

OpCase rule_case(const std::string& name, const RuleCase& rc) {
  const RuleDims r = rc.dims;
  return make_case(name, Op::memory_rule, rule_shape(rc.rule, 0, r), 1e-9, [=](auto& s) {
    const int n = r.B * r.T * r.H;
    const auto schedule = memory::Schedule::uniform(r.d_k * r.d_v, rc.E, rc.horizon);
    auto args = rule_inputs(s, rc.rule, schedule, r, rc.zero_retention);
    args.form = rc.form;
    args.chunk = rc.chunk;
    auto* o = s.output("o", n * r.d_v);
    auto state = s.backend().memory_rule_forward(o, args);
    const auto g = rule_grads(s, args, r);
    s.backend().memory_rule_backward(g, s.input("dO", values(n * r.d_v, 38)), args, *state);
    const auto locked = locked_rows(schedule, r);
    CaseOutputs out = rule_outputs(s, rc.rule, o, g, r);
    out["dq"].masked = locked;  // locked key rows take exactly 0
    const int aw = static_cast<int>(memory::retention_width(rc.rule, r.d_k));
    if (aw > 1) out["da"].masked = locked;  // a locked row does not decay
    out["dk"].masked = locked_rows(schedule, r, memory::rule_uses_gamma(rc.rule) ? r.window : 1);
    if (g.p) out["dp"].masked = locked;
    // At a zero retention the chunked form gives its floor's gradient (0), the recurrent the true
    // one: a rule sent back to its recurrent form must still pass, so those few are left out.
    for (int b = 0; b < r.B; ++b)
      for (int t : rc.zero_retention)
        for (int h = 0; h < r.H; ++h)
          for (int i = 0; i < aw; ++i) out["da"].values[((static_cast<size_t>(b) * r.T + t) * r.H + h) * aw + i] = 0.0;
    return out;
  });
}

// The rule under block_axis value_rows or layer (E = 4 at kWide: 10 value dimensions, or 4 key rows
// of a head, per block) as the model composes it: the rule gated by the table of open widths on a
// backend that takes it (the CPU, and the float64 oracle), else the ungated rule between the
// prefix masks (n ⊙ v in, n ⊙ o out, n ⊙ dO and n ⊙ dv; layer m_h ⊙ q, k, p and their gradients).
// Both must give the same outputs and gradients. A backend that refuses window writes here skips them.
OpCase axis_rule_case(const std::string& name, memory::Rule rule, memory::BlockAxis axis, memory::RuleForm form) {
  const RuleDims r = kWide;
  OpShape shape = rule_shape(rule, 0, r);
  shape.open_widths = true;
  return make_case(name, Op::memory_rule, shape, 1e-9, [=](auto& s) {
    const int n = r.B * r.T * r.H;
    const auto gated = memory::Schedule::uniform(r.d_k * r.d_v, 4, 50);
    const auto schedule = memory::rule_schedule(axis, gated);
    auto args = rule_inputs(s, rule, schedule, r);
    args.form = form;
    args.chunk = 16;
    const bool by_rows = axis == memory::BlockAxis::layer;
    const int32_t* widths = s.ids("open_widths", memory::open_widths_table(axis, gated, r.T, r.H, r.d_k, r.d_v));
    args.open_widths = widths;
    args.open_widths_of = by_rows ? memory::OpenWidths::key_rows : memory::OpenWidths::value_columns;
    OpenWidthsRule rule(s.backend());  // the model's composition: the table, or the masks
    auto* o = s.output("o", n * r.d_v);
    auto state = rule.forward(o, args);
    const auto* dO = s.input("dO", values(n * r.d_v, 38));
    const auto g = rule_grads(s, args, r);
    rule.backward(g, dO, args, *state);
    return rule_outputs(s, args.rule, o, g, r);
  });
}
}  // namespace

void memory_rule_cases(std::vector<OpCase>& cases) {
  // E = 3 cuts rows (blocks of 4 elements in rows of 3): the recurrent form. E = 4 is one row per
  // block: the chunked form where the rule has one, under auto; "_recurrent" asks for the other,
  // and "_chunked" asks for the chunked form at the backend's own chunk size (one chunk of T on
  // the CPU, a padded one on the GPU).
  using memory::RuleForm;
  for (memory::Rule rule : memory::all_rules()) {
    for (int E : {1, 3, 4})
      for (RuleForm form : {RuleForm::automatic, RuleForm::recurrent, RuleForm::chunked}) {
        const bool chunked_applies =
            memory::chunked_form_applies(rule, memory::Schedule::uniform(kDk * kDv, E, kHorizon), kDv);
        if (form == RuleForm::recurrent && !chunked_applies) continue;  // auto is already recurrent there
        if (form == RuleForm::chunked && !chunked_applies) continue;    // an input error, not a case
        const std::string name = "memory_rule_" + std::string(memory::rule_name(rule)) + "_E" + std::to_string(E) +
                                 (form == RuleForm::automatic ? "" : "_" + std::string(memory::rule_form_name(form)));
        OpCase c = rule_case(name, {rule, form, E, form == RuleForm::chunked ? 0 : 3});  // 3: a ragged last chunk
        if (form != RuleForm::recurrent && chunked_applies) c.chunked_rule = rule;
        cases.push_back(std::move(c));
      }
    if (!memory::chunked_form_applies(rule, memory::Schedule::uniform(kDk * kDv, 4, kHorizon), kDv)) continue;
    const std::string rule_prefix = "memory_rule_" + std::string(memory::rule_name(rule));
    // The chunked form at kWide (E 4: two key rows per block; chunks of 16, the last of 6), ...
    OpCase wide = rule_case(rule_prefix + "_E4_wide_chunked", {rule, RuleForm::chunked, 4, 16, kWide, 50});
    wide.chunked_rule = rule;
    cases.push_back(std::move(wide));
    // ... window writes with chunks of 2 inside a window of 3 (a write reads two chunks back), ...
    if (memory::rule_uses_gamma(rule)) {
      OpCase narrow = rule_case(rule_prefix + "_E4_wide_chunk2", {rule, RuleForm::chunked, 4, 2, kWide, 50});
      narrow.chunked_rule = rule;
      cases.push_back(std::move(narrow));
    }
    // ... and retentions that underflowed to 0 (the first step, two in a row, a chunk start), where
    // the log-retention is floored (core/memory/log_retention.hpp) instead of giving NaN.
    OpCase zero = rule_case(rule_prefix + "_E4_zero_retention", {rule, RuleForm::chunked, 4, 3, kSmall, kHorizon,
                                                                  {0, 4, 5, 6}});
    zero.chunked_rule = rule;
    cases.push_back(std::move(zero));
  }
  // The block axes (model.mixer.block_axis): the cases each rule's descriptor row names (together
  // each family, both forms, and window writes under both axes).
  for (const memory::RuleDescriptor& row : memory::rule_descriptors())
    for (const auto& [axis, form] : row.parity_axes) {
      OpCase c = axis_rule_case("memory_rule_" + std::string(row.name) + "_E4_" +
                                    std::string(memory::block_axis_name(axis)) + "_" +
                                    std::string(memory::rule_form_name(form)),
                                row.rule, axis, form);
      if (form == RuleForm::chunked) c.chunked_rule = row.rule;
      cases.push_back(std::move(c));
    }
}
namespace {

// The first rule of each family (rule_traits.hpp) in the descriptor table's order: the occupancy
// cases read one state of each kind.
std::vector<memory::Rule> one_rule_per_family() {
  std::vector<memory::Rule> rules;
  for (memory::Rule r : memory::all_rules()) {
    bool seen = false;
    for (memory::Rule s : rules) seen |= memory::rule_traits(s).family == memory::rule_traits(r).family;
    if (!seen) rules.push_back(r);
  }
  return rules;
}
}  // namespace

// Block occupancy, read from the forward's state. With one block per element the norms are
// |S_t[e]|: every locked element must still hold S_0 = 0, bit for bit. Five blocks of 12
// elements leave a remainder that the last block absorbs.
void memory_block_norms_cases(std::vector<OpCase>& cases) {
  for (memory::Rule rule : one_rule_per_family()) {
    const int D = kDk * kDv;
    const std::string name = "memory_block_norms_" + std::string(memory::rule_name(rule)) + "_E3";
    cases.push_back(make_case(name, Op::memory_block_norms, rule_shape(rule, D), 1e-9, [=](auto& s) {
      const int n = B * T * H;
      const auto schedule = memory::Schedule::uniform(D, 3, kHorizon);
      const auto args = rule_inputs(s, rule, schedule);
      auto state = s.backend().memory_rule_forward(s.output("o", n * kDv), args);
      auto* elements = s.output("norms_elements", n * D);  // (B, H, T, D)
      s.backend().memory_block_norms(elements, args, *state, D);
      auto* five = s.output("norms_5", n * 5);
      s.backend().memory_block_norms(five, args, *state, 5);
      CaseOutput e = plain(s.read(elements, n * D));
      e.masked.assign(e.values.size(), 0);
      for (int bh = 0; bh < B * H; ++bh)
        for (int t = 0; t < T; ++t) {
          const int64_t end = schedule.active_elements(t + 1);
          for (int x = 0; x < D; ++x) e.masked[(static_cast<size_t>(bh) * T + t) * D + x] = x >= end;
        }
      return CaseOutputs{{"norms_elements", std::move(e)}, {"norms_5", plain(s.read(five, n * 5))}};
    }));
  }
  // The norms replayed from a chunked forward's chunk-start states (kWide: chunks of 16, ragged).
  const RuleDims r = kWide;
  const int D = r.d_k * r.d_v;
  OpCase c = make_case("memory_block_norms_" + std::string(memory::rule_name(memory::kDefaultRule)) + "_E4_wide_chunked",
                       Op::memory_block_norms,
                       rule_shape(memory::kDefaultRule, 4, r), 1e-9, [=](auto& s) {
                         const int n = r.B * r.T * r.H;
                         const auto schedule = memory::Schedule::uniform(D, 4, 50);
                         auto args = rule_inputs(s, memory::kDefaultRule, schedule, r);
                         args.form = memory::RuleForm::chunked;
                         args.chunk = 16;
                         auto state = s.backend().memory_rule_forward(s.output("o", n * r.d_v), args);
                         auto* four = s.output("norms_4", n * 4);
                         s.backend().memory_block_norms(four, args, *state, 4);
                         return CaseOutputs{{"norms_4", plain(s.read(four, n * 4))}};
                       });
  c.chunked_rule = memory::kDefaultRule;
  cases.push_back(std::move(c));
}
}  // namespace proteus::backend::parity
