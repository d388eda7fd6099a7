// The readings of math.md section 8 in the model: output_gate none is the mixer without a gate (against a gate held at exactly 1/2); E = 1 ignores the
// schedule and the block axis bit for bit under each gate; and block_axis value_rows on the
// backend's ops, both ways it runs (the rule gated by the open widths on raw inputs, the CPU's; the
// ungated rule between masks n ⊙ v, n ⊙ o, what a backend without the table runs) equals the
// elementwise reference (value_rows_rule.hpp), outputs and gradients, in the recurrent and chunked
// forms, swla's window (step t's widths on earlier tokens) by the widths only; block_axis layer equals
// math.md section 3's elementwise rule with r_h(t) open rows (delta both ways, swla by the widths).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "core/backend/cpu/cpu_backend.hpp"
#include "core/memory/block_axis.hpp"
#include "core/memory/value_rows_rule.hpp"
#include "core/model/model.hpp"

namespace {

using namespace proteus;

config::ModelConfig small_config() {
  config::ModelConfig m;
  m.vocab = 17;
  m.d_model = 16;
  m.layers = 2;
  m.d_hidden = 24;
  m.init_std = 0.2;
  m.mixer.rule = memory::Rule::delta;
  m.mixer.heads = 2;
  m.mixer.d_head = 4;
  return m;
}

struct Result {
  double loss = 0;
  std::vector<float> grads;
  std::vector<std::string> names;
};

Result run(const config::ModelConfig& cfg, int horizon) {
  auto be = backend::make_cpu_backend<float>(1);
  model::Model<float> m(cfg, horizon, *be, 9);
  std::mt19937 rng(4);
  std::vector<int32_t> tokens(2 * 12), targets(2 * 12);
  for (auto& x : tokens) x = static_cast<int32_t>(rng() % cfg.vocab);
  for (auto& x : targets) x = static_cast<int32_t>(rng() % cfg.vocab);
  Result r;
  r.loss = m.forward(tokens.data(), targets.data(), nullptr, 2, 12);
  m.backward();
  r.grads.resize(m.num_params());
  be->download(r.grads.data(), m.grads(), r.grads.size());
  for (const auto& e : m.table().entries()) r.names.push_back(e.name);
  return r;
}

bool same_bits(const Result& a, const Result& b) {
  return a.loss == b.loss && a.grads.size() == b.grads.size() &&
         std::memcmp(a.grads.data(), b.grads.data(), a.grads.size() * sizeof(float)) == 0;
}

// output_gate none is the mixer with no gate at all. The oracle: the sigmoid gate held at exactly
// 1/2 (W_g = 0, so sigmoid(0) = 0.5) with W_o doubled computes the same numbers, since scaling by 2
// and by 1/2 is exact in floating point. The loss and every gradient but W_o's agree bit for bit;
// W_o's is exactly half. A `none` that gated, normalised or projected differently would differ.
struct Named {
  std::vector<float> values;
  const model::ParamTable* table = nullptr;
  std::vector<float>::iterator at(const std::string& name) {
    for (const auto& e : table->entries())
      if (e.name == name) return values.begin() + static_cast<std::ptrdiff_t>(e.offset);
    ADD_FAILURE() << "no parameter " << name;
    return values.begin();
  }
};

TEST(OutputGate, NoneIsTheMixerWithoutAGate) {
  auto cfg = small_config();
  cfg.mixer.E = 2;
  auto be = backend::make_cpu_backend<float>(1);
  model::Model<float> none(cfg, 6, *be, 9);
  cfg.mixer.output_gate = config::OutputGate::sigmoid;
  model::Model<float> half(cfg, 6, *be, 9);
  ASSERT_EQ(half.table().entries().size(), none.table().entries().size() + 2) << "one W_g per layer";
  Named a{std::vector<float>(none.num_params()), &none.table()};
  Named b{std::vector<float>(half.num_params(), 0.0f), &half.table()};
  be->download(a.values.data(), none.params(), a.values.size());
  for (const auto& e : none.table().entries()) {
    std::copy_n(a.at(e.name), e.size, b.at(e.name));  // W_g stays 0
    if (e.name.find("o_proj") != std::string::npos)
      for (size_t i = 0; i < e.size; ++i) b.at(e.name)[static_cast<std::ptrdiff_t>(i)] *= 2.0f;
  }
  be->upload(half.params(), b.values.data(), b.values.size());
  std::mt19937 rng(4);
  std::vector<int32_t> tokens(2 * 12), targets(2 * 12);
  for (auto* v : {&tokens, &targets})
    for (auto& x : *v) x = static_cast<int32_t>(rng() % cfg.vocab);
  const double loss_none = none.forward(tokens.data(), targets.data(), nullptr, 2, 12);
  none.backward();
  const double loss_half = half.forward(tokens.data(), targets.data(), nullptr, 2, 12);
  half.backward();
  EXPECT_EQ(loss_none, loss_half);
  Named ga{std::vector<float>(none.num_params()), &none.table()};
  Named gb{std::vector<float>(half.num_params()), &half.table()};
  be->download(ga.values.data(), none.grads(), ga.values.size());
  be->download(gb.values.data(), half.grads(), gb.values.size());
  int o_proj = 0;
  for (const auto& e : none.table().entries()) {
    const bool wo = e.name.find("o_proj") != std::string::npos;
    o_proj += wo;
    for (size_t i = 0; i < e.size; ++i) {
      const auto k = static_cast<std::ptrdiff_t>(i);
      ASSERT_EQ(ga.at(e.name)[k], wo ? 2.0f * gb.at(e.name)[k] : gb.at(e.name)[k]) << e.name << "[" << i << "]";
    }
  }
  EXPECT_EQ(o_proj, cfg.layers) << "the test must find each layer's W_o";
}

TEST(OutputGate, AGateAddsOneWeightPerLayerAndChangesTheModel) {
  auto cfg = small_config();
  cfg.mixer.E = 2;
  const Result none = run(cfg, 6);
  for (const auto& name : none.names) EXPECT_EQ(name.find("g_proj"), std::string::npos) << name;
  cfg.mixer.output_gate = config::OutputGate::swish;
  const Result gated = run(cfg, 6);
  EXPECT_EQ(gated.names.size(), none.names.size() + 2) << "one W_g per layer";
  EXPECT_NE(gated.loss, none.loss);
}

TEST(OutputGate, EOneIgnoresScheduleAndBlockAxisUnderEachGate) {
  for (const config::OutputGate gate : common::choice_values<config::OutputGate>()) {
    auto cfg = small_config();
    cfg.mixer.output_gate = gate;
    const Result ungated = run(cfg, 6);
    cfg.mixer.schedule.type = memory::ScheduleType::geometric;
    cfg.mixer.block_axis = memory::BlockAxis::value_rows;
    EXPECT_TRUE(same_bits(ungated, run(cfg, 3))) << common::choice_name(gate);
  }
}

TEST(ValueRows, DiffersFromKeyRowsOnceGated) {
  auto cfg = small_config();
  cfg.mixer.E = 4;
  const Result keys = run(cfg, 8);
  cfg.mixer.block_axis = memory::BlockAxis::value_rows;
  EXPECT_NE(keys.loss, run(cfg, 8).loss);
}

// ---- value_rows on the backend's ops against the elementwise reference ----

struct Heads {
  static constexpr int B = 2, T = 9, H = 2, d = 4;
  static constexpr size_t n = size_t(B) * T * H * d, nh = size_t(B) * T * H;
  std::vector<double> q, k, v, beta, a, p, eta, gamma, dO;
  explicit Heads(int window) {
    std::mt19937 rng(31);
    std::uniform_real_distribution<double> u(-1, 1), pos(0.1, 0.9);
    for (auto* x : {&q, &k, &v, &p, &dO}) {
      x->resize(n);
      for (auto& e : *x) e = u(rng);
    }
    for (auto* x : {&beta, &a, &eta}) {
      x->resize(nh);
      for (auto& e : *x) e = pos(rng);
    }
    gamma.resize(nh * window);
    for (auto& e : gamma) e = pos(rng);
  }
  // The op's arguments over these inputs, every one `rule` reads, under `schedule`.
  backend::MemoryRuleArgs<double> rule_args(memory::Rule rule, const memory::Schedule& schedule, memory::RuleForm form,
                                            int window) const {
    backend::MemoryRuleArgs<double> args;
    args.rule = rule, args.schedule = &schedule, args.form = form;
    args.B = B, args.T = T, args.H = H, args.d_k = d, args.d_v = d, args.window = window;
    args.q = q.data(), args.k = k.data(), args.v = v.data(), args.a = a.data();
    args.beta = memory::rule_uses_beta(rule) ? beta.data() : nullptr;
    args.p = memory::rule_uses_p(rule) ? p.data() : nullptr;
    args.eta = memory::rule_uses_eta(rule) ? eta.data() : nullptr;
    args.gamma = memory::rule_uses_gamma(rule) ? gamma.data() : nullptr;
    return args;
  }
  // One head's rows (T, width) out of a (B, T, H, width) tensor.
  static std::vector<double> head(const std::vector<double>& x, int b, int h, int width) {
    std::vector<double> out;
    for (int t = 0; t < T; ++t) {
      const size_t at = ((size_t(b) * T + t) * H + h) * width;
      out.insert(out.end(), x.begin() + at, x.begin() + at + width);
    }
    return out;
  }
};

// How the op meets the block axis: the rule gated by the (T, H) table, or ungated between masks.
enum class Path { open_widths, masked_inputs };

class ValueRowsOps : public ::testing::TestWithParam<std::tuple<memory::Rule, memory::RuleForm, Path>> {};

TEST_P(ValueRowsOps, EqualTheElementwiseReference) {
  const auto [rule, form, path] = GetParam();
  const bool masked = path == Path::masked_inputs;
  using H = Heads;
  const int window = 2;
  Heads x(window);
  auto be = backend::make_cpu_backend<double>(1);
  const auto gated = memory::Schedule::uniform(H::d * H::d, 4, 7);  // one value dimension per block
  const auto open = memory::Schedule::uniform(H::d * H::d, 1, 7);
  const auto dims = memory::open_widths_table(memory::BlockAxis::value_rows, gated, H::T, H::H, H::d, H::d);
  int32_t* rows = be->alloc_int32(dims.size());
  be->upload_int32(rows, dims.data(), dims.size());

  // The mixer's composition: n ⊙ v, the ungated rule, n ⊙ o; back through the same masks.
  std::vector<double> vm(H::n), o_rule(H::n), o(H::n), dOm(H::n), dvm(H::n), dv(H::n), dq(H::n), dk(H::n), dp(H::n);
  std::vector<double> dbeta(H::nh), da(H::nh), deta(H::nh), dgamma(H::nh * window);
  if (masked) be->prefix_mask(vm.data(), x.v.data(), rows, H::B, H::T, H::H, H::d);
  else vm = x.v;
  auto args = x.rule_args(rule, open, form, window);
  args.v = vm.data();
  if (!masked) args.open_widths = rows, args.open_widths_of = memory::OpenWidths::value_columns;
  auto state = be->memory_rule_forward(o_rule.data(), args);
  backend::MemoryRuleGrads<double> g{dq.data(), dk.data(), dvm.data(), dbeta.data(), da.data(), dp.data(),
                                     deta.data(), dgamma.data()};
  if (masked) {
    be->prefix_mask(o.data(), o_rule.data(), rows, H::B, H::T, H::H, H::d);
    be->prefix_mask(dOm.data(), x.dO.data(), rows, H::B, H::T, H::H, H::d);
    be->memory_rule_backward(g, dOm.data(), args, *state);
    be->prefix_mask(dv.data(), dvm.data(), rows, H::B, H::T, H::H, H::d);
  } else {  // the rule alone: locked columns read 0 and take no gradient
    o = o_rule;
    be->memory_rule_backward(g, x.dO.data(), args, *state);
    dv = dvm;
  }

  for (int b = 0; b < H::B; ++b)
    for (int h = 0; h < H::H; ++h) {
      const auto hq = H::head(x.q, b, h, H::d), hk = H::head(x.k, b, h, H::d), hv = H::head(x.v, b, h, H::d);
      const auto hp = H::head(x.p, b, h, H::d), hbeta = H::head(x.beta, b, h, 1), ha = H::head(x.a, b, h, 1);
      const auto heta = H::head(x.eta, b, h, 1), hgamma = H::head(x.gamma, b, h, window);
      memory::RuleInputs<double> in;
      in.T = H::T, in.d_k = H::d, in.d_v = H::d, in.window = window;
      in.q = hq.data(), in.k = hk.data(), in.v = hv.data(), in.a = ha.data(), in.beta = hbeta.data();
      in.p = hp.data(), in.eta = heta.data(), in.gamma = hgamma.data();
      std::vector<double> want_o(H::T * H::d);
      memory::ValueRowsTape<double> tape;
      memory::value_rows_rule_forward(rule, gated, in, want_o.data(), static_cast<double*>(nullptr), &tape);
      const auto hdO = H::head(x.dO, b, h, H::d);
      std::vector<double> wq(H::T * H::d), wk(H::T * H::d), wv(H::T * H::d), wp(H::T * H::d), wbeta(H::T), wa(H::T);
      std::vector<double> weta(H::T), wgamma(H::T * window);
      memory::RuleGrads<double> wg{wq.data(), wk.data(), wv.data(), wbeta.data(), wa.data(),
                                   wp.data(), weta.data(), wgamma.data(), nullptr};
      memory::value_rows_rule_backward(rule, gated, in, tape, hdO.data(), static_cast<const double*>(nullptr), wg);
      const auto expect_near = [&](const std::vector<double>& got, const std::vector<double>& ref, const char* name) {
        for (size_t i = 0; i < ref.size(); ++i)
          EXPECT_NEAR(got[i], ref[i], 1e-10) << name << "[" << i << "] head (" << b << ", " << h << ")";
      };
      expect_near(H::head(o, b, h, H::d), want_o, "o");
      expect_near(H::head(dq, b, h, H::d), wq, "dq");
      expect_near(H::head(dk, b, h, H::d), wk, "dk");
      expect_near(H::head(dv, b, h, H::d), wv, "dv");
      expect_near(H::head(da, b, h, 1), wa, "da");
      if (memory::rule_uses_beta(rule)) expect_near(H::head(dbeta, b, h, 1), wbeta, "dbeta");
      if (memory::rule_uses_p(rule)) expect_near(H::head(dp, b, h, H::d), wp, "dp");
      if (memory::rule_uses_eta(rule)) expect_near(H::head(deta, b, h, 1), weta, "deta");
      if (memory::rule_uses_gamma(rule)) expect_near(H::head(dgamma, b, h, window), wgamma, "dgamma");
      // Locked value dimensions read exactly 0 and take no gradient (but for swla, whose window
      // writes v_t again at later steps, under their widths).
      for (int t = 0; t < H::T; ++t)
        for (int j = dims[t * H::H + h]; j < H::d; ++j) {
          EXPECT_EQ(H::head(o, b, h, H::d)[t * H::d + j], 0.0);
          if (rule != memory::Rule::swla) {
            EXPECT_EQ(H::head(dv, b, h, H::d)[t * H::d + j], 0.0);
          }
        }
    }
  be->free_int32(rows);
}

INSTANTIATE_TEST_SUITE_P(
    RulesAndForms, ValueRowsOps,
    ::testing::Values(std::tuple{memory::Rule::linear, memory::RuleForm::recurrent, Path::masked_inputs},
                      std::tuple{memory::Rule::linear, memory::RuleForm::chunked, Path::masked_inputs},
                      std::tuple{memory::Rule::delta, memory::RuleForm::recurrent, Path::masked_inputs},
                      std::tuple{memory::Rule::delta, memory::RuleForm::chunked, Path::masked_inputs},
                      std::tuple{memory::Rule::comba, memory::RuleForm::chunked, Path::masked_inputs},
                      std::tuple{memory::Rule::titans, memory::RuleForm::recurrent, Path::masked_inputs},
                      std::tuple{memory::Rule::linear, memory::RuleForm::recurrent, Path::open_widths},
                      std::tuple{memory::Rule::linear, memory::RuleForm::chunked, Path::open_widths},
                      std::tuple{memory::Rule::delta, memory::RuleForm::recurrent, Path::open_widths},
                      std::tuple{memory::Rule::delta, memory::RuleForm::chunked, Path::open_widths},
                      std::tuple{memory::Rule::comba, memory::RuleForm::recurrent, Path::open_widths},
                      std::tuple{memory::Rule::comba, memory::RuleForm::chunked, Path::open_widths},
                      std::tuple{memory::Rule::titans, memory::RuleForm::recurrent, Path::open_widths},
                      std::tuple{memory::Rule::swla, memory::RuleForm::recurrent, Path::open_widths},
                      std::tuple{memory::Rule::swla, memory::RuleForm::chunked, Path::open_widths}),
    [](const auto& info) {
      return std::string(memory::rule_name(std::get<0>(info.param))) + "_" +
             std::string(memory::rule_form_name(std::get<1>(info.param))) +
             (std::get<2>(info.param) == Path::masked_inputs ? "_masked" : "_widths");
    });

// ---- layer on the backend's ops against the elementwise delta rule per head ----

// One head of math.md section 3's gated delta rule (or swla), elementwise, with `rows[t]` open key
// rows (0 too); swla writes its window's earlier tokens on step t's open rows.
std::vector<double> rule_with_open_rows(memory::Rule rule, const memory::RuleInputs<double>& in,
                                        const std::vector<int>& rows) {
  const int64_t K = in.d_k, V = in.d_v;
  std::vector<double> S(K * V, 0.0), o(in.T * V, 0.0), err(V);
  for (int64_t t = 0; t < in.T; ++t) {
    const int64_t r = rows[t];
    if (rule == memory::Rule::swla) {
      for (int64_t i = 0; i < r; ++i)
        for (int64_t j = 0; j < V; ++j) {
          double x = in.a[t] * S[i * V + j];
          for (int64_t w = 0; w < std::min<int64_t>(in.window, t + 1); ++w)
            x += in.gamma[t * in.window + w] * in.k[(t - w) * K + i] * in.v[(t - w) * V + j];
          S[i * V + j] = x;
        }
      for (int64_t j = 0; j < V; ++j)
        for (int64_t i = 0; i < r; ++i) o[t * V + j] += S[i * V + j] * in.q[t * K + i];
      continue;
    }
    for (int64_t j = 0; j < V; ++j) {
      double pred = 0;
      for (int64_t i = 0; i < r; ++i) pred += S[i * V + j] * in.k[t * K + i];
      err[j] = in.v[t * V + j] - in.a[t] * pred;
    }
    for (int64_t i = 0; i < r; ++i)
      for (int64_t j = 0; j < V; ++j)
        S[i * V + j] += (in.a[t] - 1) * S[i * V + j] + in.beta[t] * in.k[t * K + i] * err[j];
    for (int64_t j = 0; j < V; ++j)
      for (int64_t i = 0; i < r; ++i) o[t * V + j] += S[i * V + j] * in.q[t * K + i];
  }
  return o;
}

struct LayerCase {
  memory::Rule rule;
  memory::RuleForm form;
  Path path;
};

// E = 4 over 2 heads of 4 rows (head 0 opens 2 rows a block, then head 1 does): the ungated
// schedule the rule runs under and the (T, H) open key rows, on the backend too.
struct LayerWidths {
  using H = Heads;
  backend::Backend<double>& be;
  memory::Schedule open = memory::Schedule::uniform(H::d * H::d, 1, 8);
  std::vector<int32_t> rows = memory::open_widths_table(memory::BlockAxis::layer, memory::Schedule::uniform(H::d * H::d, 4, 8),
                                                        H::T, H::H, H::d, H::d);
  int32_t* table = nullptr;
  explicit LayerWidths(backend::Backend<double>& b) : be(b) {
    table = be.alloc_int32(rows.size());
    be.upload_int32(table, rows.data(), rows.size());
  }
  ~LayerWidths() { be.free_int32(table); }
};

TEST(LayerOps, EqualTheElementwiseRuleWithEachHeadsOpenRows) {
  using H = Heads;
  const int window = 3;
  Heads x(window);
  auto be = backend::make_cpu_backend<double>(1);
  const LayerWidths widths(*be);
  const auto& rows = widths.rows;
  int32_t* table = widths.table;
  using memory::Rule, memory::RuleForm;
  for (const LayerCase c : {LayerCase{Rule::delta, RuleForm::recurrent, Path::masked_inputs},
                            LayerCase{Rule::delta, RuleForm::chunked, Path::masked_inputs},
                            LayerCase{Rule::delta, RuleForm::recurrent, Path::open_widths},
                            LayerCase{Rule::delta, RuleForm::chunked, Path::open_widths},
                            LayerCase{Rule::swla, RuleForm::recurrent, Path::open_widths},
                            LayerCase{Rule::swla, RuleForm::chunked, Path::open_widths}}) {
    SCOPED_TRACE(std::string(memory::rule_name(c.rule)) + " " + std::string(memory::rule_form_name(c.form)) +
                 (c.path == Path::masked_inputs ? " masked" : " widths"));
    std::vector<double> qm = x.q, km = x.k, o(H::n);
    if (c.path == Path::masked_inputs) {
      be->prefix_mask(qm.data(), x.q.data(), table, H::B, H::T, H::H, H::d);
      be->prefix_mask(km.data(), x.k.data(), table, H::B, H::T, H::H, H::d);
    }
    auto args = x.rule_args(c.rule, widths.open, c.form, window);
    args.q = qm.data(), args.k = km.data();
    if (c.path == Path::open_widths) args.open_widths = table, args.open_widths_of = memory::OpenWidths::key_rows;
    be->memory_rule_forward(o.data(), args);
    for (int b = 0; b < H::B; ++b)
      for (int h = 0; h < H::H; ++h) {
        const auto hq = H::head(x.q, b, h, H::d), hk = H::head(x.k, b, h, H::d), hv = H::head(x.v, b, h, H::d);
        const auto hbeta = H::head(x.beta, b, h, 1), ha = H::head(x.a, b, h, 1);
        const auto hgamma = H::head(x.gamma, b, h, window);
        memory::RuleInputs<double> in;
        in.T = H::T, in.d_k = H::d, in.d_v = H::d, in.window = window;
        in.q = hq.data(), in.k = hk.data(), in.v = hv.data(), in.beta = hbeta.data(), in.a = ha.data();
        in.gamma = hgamma.data();
        std::vector<int> head_rows(H::T);
        for (int t = 0; t < H::T; ++t) head_rows[t] = rows[t * H::H + h];
        const auto want = rule_with_open_rows(c.rule, in, head_rows);
        const auto got = H::head(o, b, h, H::d);
        for (size_t i = 0; i < want.size(); ++i) {
          EXPECT_NEAR(got[i], want[i], 1e-10) << "o[" << i << "] head (" << b << ", " << h << ")";
          if (head_rows[i / H::d] == 0) {
            EXPECT_EQ(got[i], 0.0) << "a locked head reads exactly 0";
          }
        }
      }
  }
  EXPECT_EQ(rows[0 * H::H + 1], 0) << "head 1 starts locked";
}

// The gradients under layer's open widths agree between the forms (the outputs are checked above),
// and locked rows take none (q always; k but under swla).
TEST(LayerOps, GradientsUnderOpenWidthsAgreeBetweenForms) {
  using H = Heads;
  const int window = 3;
  Heads x(window);
  auto be = backend::make_cpu_backend<double>(1);
  const LayerWidths widths(*be);
  const auto& rows = widths.rows;
  for (auto rule : {memory::Rule::linear, memory::Rule::delta, memory::Rule::comba, memory::Rule::swla}) {
    std::vector<std::vector<double>> by_form;
    for (auto form : {memory::RuleForm::recurrent, memory::RuleForm::chunked}) {
      auto args = x.rule_args(rule, widths.open, form, window);
      args.open_widths = widths.table, args.open_widths_of = memory::OpenWidths::key_rows;
      std::vector<double> o(H::n), dq(H::n), dk(H::n), dv(H::n), dp(H::n), dbeta(H::nh), da(H::nh), dgamma(H::nh * window);
      auto state = be->memory_rule_forward(o.data(), args);
      backend::MemoryRuleGrads<double> g{dq.data(), dk.data(), dv.data(), dbeta.data(), da.data(), dp.data(),
                                         nullptr, dgamma.data()};
      be->memory_rule_backward(g, x.dO.data(), args, *state);
      for (size_t i = 0; i < H::n; ++i)
        if (int(i % H::d) >= rows[(i / (H::H * H::d)) % H::T * H::H + (i / H::d) % H::H]) {
          EXPECT_EQ(dq[i], 0.0) << memory::rule_name(rule) << " dq[" << i << "] on a locked row";
          if (rule != memory::Rule::swla) {  // swla's window writes k_t again at later steps, under their rows
            EXPECT_EQ(dk[i], 0.0) << memory::rule_name(rule) << " dk[" << i << "] on a locked row";
          }
        }
      std::vector<double> all;
      for (auto* v : {&o, &dq, &dk, &dv, &da}) all.insert(all.end(), v->begin(), v->end());
      if (memory::rule_uses_beta(rule)) all.insert(all.end(), dbeta.begin(), dbeta.end());
      if (memory::rule_uses_p(rule)) all.insert(all.end(), dp.begin(), dp.end());
      if (memory::rule_uses_gamma(rule)) all.insert(all.end(), dgamma.begin(), dgamma.end());
      by_form.push_back(all);
    }
    ASSERT_EQ(by_form[0].size(), by_form[1].size());
    for (size_t i = 0; i < by_form[0].size(); ++i)
      EXPECT_NEAR(by_form[0][i], by_form[1][i], 1e-10) << memory::rule_name(rule) << " value " << i;
  }
}

}  // namespace

namespace {

// The open-widths table is made for one length T and kept until T changes: one value_rows or layer
// model run at 7, then 12, then 7 positions gives each length's loss and gradients of a model that
// only ever saw that length (a table kept from the wrong T would gate the wrong positions).
TEST(OpenWidths, OneModelAtTwoLengthsEqualsAFreshModelAtEach) {
  for (const auto axis : {memory::BlockAxis::value_rows, memory::BlockAxis::layer}) {
    auto cfg = small_config();
    cfg.mixer.E = 4;
    cfg.mixer.block_axis = axis;
    auto be = backend::make_cpu_backend<float>(1);
    model::Model<float> reused(cfg, 8, *be, 9);
    auto pass = [&](model::Model<float>& m, int T) {
      std::mt19937 rng(100 + T);
      std::vector<int32_t> tokens(2 * T), targets(2 * T);
      for (auto* v : {&tokens, &targets})
        for (auto& x : *v) x = static_cast<int32_t>(rng() % cfg.vocab);
      Result r;
      r.loss = m.forward(tokens.data(), targets.data(), nullptr, 2, T);
      m.backward();
      r.grads.resize(m.num_params());
      be->download(r.grads.data(), m.grads(), r.grads.size());
      return r;
    };
    for (int T : {7, 12, 7}) {
      model::Model<float> fresh(cfg, 8, *be, 9);
      const Result a = pass(reused, T), b = pass(fresh, T);
      EXPECT_TRUE(same_bits(a, b)) << memory::block_axis_name(axis) << " at T = " << T;
    }
  }
}

}  // namespace
