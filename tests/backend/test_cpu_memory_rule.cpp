// The CPU backend's batched memory rule: its recurrent form equal, bit for bit in double, to
// gated_rule_forward and gated_rule_backward called head by head on gathered inputs, and its chunked
// form (every rule but titans) equal to float64 rounding (every rule, E = 4 uniform); its
// gradients against finite differences; float against double; block norms read from the states;
// bad inputs reported as errors; and same bits with 1 and 2 threads.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <tuple>

#include "core/backend/cpu/cpu_backend.hpp"
#include "core/common/input_error.hpp"
#include "core/memory/checkpointed_rule.hpp"
#include "core/memory/chunked_rule.hpp"
#include "tests/backend/op_check.hpp"

namespace {

using namespace proteus;
using namespace proteus::backend;
using namespace proteus::backend::testing;
using memory::Rule;
using memory::Schedule;

// A batch of (B, T, H) heads of one rule, in the ranges the mixer produces.
template <class F>
struct Batch {
  Rule rule;
  int B, Tn, H, d_k, d_v, window;
  std::vector<F> q, k, v, beta, a, p, eta, gamma;  // (B, T, H, width)

  Batch(Rule rule_, int B_, int Tn_, int H_, int d_k_, int d_v_, uint32_t seed)
      : rule(rule_), B(B_), Tn(Tn_), H(H_), d_k(d_k_), d_v(d_v_), window(memory::rule_uses_gamma(rule_) ? 2 : 0) {
    const int rows = B * Tn * H;
    auto unit_rows = [&](int width, uint32_t s) {
      auto x = random_vector<double>(static_cast<size_t>(rows) * width, s);
      for (int r = 0; r < rows; ++r) {
        double norm = 0;
        for (int i = 0; i < width; ++i) norm += x[r * width + i] * x[r * width + i];
        for (int i = 0; i < width; ++i) x[r * width + i] /= std::sqrt(norm);
      }
      return to<F>(x);
    };
    q = unit_rows(d_k, seed);
    k = unit_rows(d_k, seed + 1);
    v = random_vector<F>(static_cast<size_t>(rows) * d_v, seed + 2);
    if (memory::rule_uses_beta(rule)) beta = random_vector<F>(rows, seed + 3, 0.1, 0.9);
    a = random_vector<F>(rows, seed + 4, 0.5, 1.0);
    if (memory::rule_uses_p(rule)) p = unit_rows(d_k, seed + 5);
    if (memory::rule_uses_eta(rule)) eta = random_vector<F>(rows, seed + 6, 0.0, 0.9);
    if (memory::rule_uses_gamma(rule)) gamma = random_vector<F>(static_cast<size_t>(rows) * window, seed + 7, 0.1, 0.9);
  }

  MemoryRuleArgs<F> args(const Schedule& s) const {
    auto ptr = [](const std::vector<F>& x) { return x.empty() ? nullptr : x.data(); };
    MemoryRuleArgs<F> r;
    r.rule = rule;
    r.schedule = &s;
    r.B = B, r.T = Tn, r.H = H, r.d_k = d_k, r.d_v = d_v, r.window = window;
    r.q = ptr(q), r.k = ptr(k), r.v = ptr(v), r.beta = ptr(beta), r.a = ptr(a);
    r.p = ptr(p), r.eta = ptr(eta), r.gamma = ptr(gamma);
    return r;
  }
  size_t rows() const { return static_cast<size_t>(B) * Tn * H; }
};

// Head (b, h) of a (B, T, H, width) tensor, written out with its own loops.
template <class F>
std::vector<F> head_of(const std::vector<F>& x, int b, int h, int Tn, int H, int width) {
  std::vector<F> out;
  if (x.empty()) return out;  // an input this rule does not take
  for (int t = 0; t < Tn; ++t)
    for (int i = 0; i < width; ++i) out.push_back(x[((b * Tn + t) * H + h) * width + i]);
  return out;
}

std::string rule_param_name(const ::testing::TestParamInfo<Rule>& info) {
  return std::string(memory::rule_name(info.param));
}

class CpuMemoryRule : public ::testing::TestWithParam<Rule> {};

// Bit for bit where `exact` (the recurrent form), else to float64 rounding (the chunked form).
bool agrees(const std::vector<double>& got, const std::vector<double>& want, bool exact) {
  return exact ? same_bits(got, want) : rel_max_error(got, want) < 1e-12;
}

class CpuMemoryRuleForm : public ::testing::TestWithParam<std::tuple<Rule, memory::RuleForm>> {};

TEST_P(CpuMemoryRuleForm, EqualsTheRuleHeadByHead) {
  const auto [rule, form] = GetParam();
  const int B = 2, Tn = 9, d_k = 4, d_v = 4, E = 4;
  const Schedule s = Schedule::uniform(d_k * d_v, E, Tn);
  if (form == memory::RuleForm::chunked && !memory::chunked_form_applies(rule, s, d_v)) GTEST_SKIP() << "no chunked form";
  // 3 heads: each head's rows gathered into copies; 1 head: read in place (the paper-regime presets').
  // With open widths (block_axis value_rows: value columns opening by step, per head) and without.
  for (const int H : {3, 1})
    for (const bool widths : {false, true}) {
      SCOPED_TRACE("H " + std::to_string(H) + (widths ? ", open widths" : ""));
      const bool exact = form == memory::RuleForm::recurrent;
      Batch<double> x(rule, B, Tn, H, d_k, d_v, 100);
      auto be = make_cpu_backend<double>(2);
      auto args = x.args(s);
      std::vector<int32_t> open(static_cast<size_t>(Tn) * H);  // (T, H), never shrinking
      for (int t = 0; t < Tn; ++t)
        for (int h = 0; h < H; ++h) open[t * H + h] = std::min(d_v, 1 + (t + h) / 2);
      if (widths) args.open_widths = open.data(), args.open_widths_of = memory::OpenWidths::value_columns;
      args.form = form;
      args.chunk = 4;  // chunks of 4 over 9 tokens: a ragged last one
      std::vector<double> o(x.rows() * d_v, std::numeric_limits<double>::quiet_NaN());
      auto state = be->memory_rule_forward(o.data(), args);

      const auto dO = random_vector(x.rows() * d_v, 101);
      const size_t nk = x.rows() * d_k;
      std::vector<double> gq(nk, 7.0), gk(nk, 7.0), gv(x.rows() * d_v, 7.0), gbeta(x.rows(), 7.0), ga(x.rows(), 7.0),
          gp(nk, 7.0), geta(x.rows(), 7.0), ggamma(x.rows() * x.window, 7.0);
      MemoryRuleGrads<double> g;
      g.q = gq.data(), g.k = gk.data(), g.v = gv.data(), g.a = ga.data();
      if (memory::rule_uses_beta(rule)) g.beta = gbeta.data();
      if (memory::rule_uses_p(rule)) g.p = gp.data();
      if (memory::rule_uses_eta(rule)) g.eta = geta.data();
      if (memory::rule_uses_gamma(rule)) g.gamma = ggamma.data();
      be->memory_rule_backward(g, dO.data(), args, *state);

      const int n_blocks = 3;  // 16 elements: blocks of 5, 5 and 6
      std::vector<double> norms(x.rows() * n_blocks);
      be->memory_block_norms(norms.data(), args, *state, n_blocks);

      for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h) {
          const auto q = head_of(x.q, b, h, Tn, H, d_k), k = head_of(x.k, b, h, Tn, H, d_k),
                     v = head_of(x.v, b, h, Tn, H, d_v), a = head_of(x.a, b, h, Tn, H, 1);
          const auto beta = head_of(x.beta, b, h, Tn, H, 1), p = head_of(x.p, b, h, Tn, H, d_k),
                     eta = head_of(x.eta, b, h, Tn, H, 1), gamma = head_of(x.gamma, b, h, Tn, H, x.window);
          memory::RuleInputs<double> in;
          in.T = Tn, in.d_k = d_k, in.d_v = d_v, in.window = x.window;
          in.q = q.data(), in.k = k.data(), in.v = v.data(), in.a = a.data();
          in.beta = beta.empty() ? nullptr : beta.data();
          in.p = p.empty() ? nullptr : p.data();
          in.eta = eta.empty() ? nullptr : eta.data();
          in.gamma = gamma.empty() ? nullptr : gamma.data();
          std::vector<int32_t> head_open(Tn);
          for (int t = 0; t < Tn; ++t) head_open[t] = open[t * H + h];
          if (widths) in.open_widths = head_open.data(), in.open_widths_of = memory::OpenWidths::value_columns;
          std::vector<double> ref_o(Tn * d_v);
          memory::RuleTape<double> tape;
          memory::gated_rule_forward<double>(rule, s, in, ref_o.data(), nullptr, &tape);
          EXPECT_TRUE(agrees(head_of(o, b, h, Tn, H, d_v), ref_o, exact)) << "o of head " << b << "," << h;

          const auto dOh = head_of(dO, b, h, Tn, H, d_v);
          std::vector<double> rq(Tn * d_k), rk(Tn * d_k), rv(Tn * d_v), rbeta(Tn), ra(Tn), rp(Tn * d_k), reta(Tn),
              rgamma(Tn * x.window);
          memory::RuleGrads<double> rg{rq.data(), rk.data(), rv.data(), rbeta.data(), ra.data(),
                                       rp.data(), reta.data(), rgamma.data(), nullptr};
          memory::gated_rule_backward<double>(rule, s, in, tape, dOh.data(), nullptr, rg);
          EXPECT_TRUE(agrees(head_of(gq, b, h, Tn, H, d_k), rq, exact)) << "dq";
          EXPECT_TRUE(agrees(head_of(gk, b, h, Tn, H, d_k), rk, exact)) << "dk";
          EXPECT_TRUE(agrees(head_of(gv, b, h, Tn, H, d_v), rv, exact)) << "dv";
          EXPECT_TRUE(agrees(head_of(ga, b, h, Tn, H, 1), ra, exact)) << "da";
          if (memory::rule_uses_beta(rule)) {
            EXPECT_TRUE(agrees(head_of(gbeta, b, h, Tn, H, 1), rbeta, exact)) << "dbeta";
          }
          if (memory::rule_uses_p(rule)) {
            EXPECT_TRUE(agrees(head_of(gp, b, h, Tn, H, d_k), rp, exact)) << "dp";
          }
          if (memory::rule_uses_eta(rule)) {
            EXPECT_TRUE(agrees(head_of(geta, b, h, Tn, H, 1), reta, exact)) << "deta";
          }
          if (memory::rule_uses_gamma(rule)) {
            EXPECT_TRUE(agrees(head_of(ggamma, b, h, Tn, H, x.window), rgamma, exact)) << "dgamma";
          }

          // Block norms: L2 norm of elements [0,5), [5,10), [10,16) of S_t, t = 1..T.
          for (int t = 1; t <= Tn; ++t) {
            const double* St = tape.S.data() + t * d_k * d_v;
            const int edges[] = {0, 5, 10, 16};
            for (int blk = 0; blk < n_blocks; ++blk) {
              double ss = 0;
              for (int e = edges[blk]; e < edges[blk + 1]; ++e) ss += St[e] * St[e];
              EXPECT_NEAR(norms[((b * H + h) * Tn + t - 1) * n_blocks + blk], std::sqrt(ss), exact ? 0.0 : 1e-12)
                  << "head " << b << "," << h << " t " << t << " block " << blk;
            }
          }
        }
    }
}

TEST_P(CpuMemoryRule, GradientsMatchFiniteDifferences) {
  const Rule rule = GetParam();
  const int B = 2, Tn = 5, H = 2, d_k = 2, d_v = 3, E = 4;
  const Schedule s = Schedule::uniform(d_k * d_v, E, Tn);
  Batch<double> x(rule, B, Tn, H, d_k, d_v, 200);
  auto be = make_cpu_backend<double>(2);
  const auto rw = random_vector(x.rows() * d_v, 201);
  std::vector<double> o(x.rows() * d_v);
  auto loss = [&] {
    be->memory_rule_forward(o.data(), x.args(s));
    return dot(rw, o);
  };
  auto state = be->memory_rule_forward(o.data(), x.args(s));
  std::vector<double> gq(x.q.size()), gk(x.k.size()), gv(x.v.size()), gbeta(x.beta.size()), ga(x.a.size()),
      gp(x.p.size()), geta(x.eta.size()), ggamma(x.gamma.size());
  MemoryRuleGrads<double> g{gq.data(), gk.data(), gv.data(), gbeta.data(), ga.data(), gp.data(), geta.data(),
                            ggamma.data()};
  be->memory_rule_backward(g, rw.data(), x.args(s), *state);
  expect_gradient("dq", x.q, gq, loss);
  expect_gradient("dk", x.k, gk, loss);
  expect_gradient("dv", x.v, gv, loss);
  expect_gradient("da", x.a, ga, loss);
  if (memory::rule_uses_beta(rule)) expect_gradient("dbeta", x.beta, gbeta, loss);
  if (memory::rule_uses_p(rule)) expect_gradient("dp", x.p, gp, loss);
  if (memory::rule_uses_eta(rule)) expect_gradient("deta", x.eta, geta, loss);
  if (memory::rule_uses_gamma(rule)) expect_gradient("dgamma", x.gamma, ggamma, loss);
}

TEST_P(CpuMemoryRule, FloatAgreesWithDouble) {
  const Rule rule = GetParam();
  const int B = 2, Tn = 20, H = 2, d_k = 8, d_v = 8, E = 4;
  const Schedule s = Schedule::uniform(d_k * d_v, E, Tn);
  Batch<double> xd(rule, B, Tn, H, d_k, d_v, 300);
  Batch<float> xf(rule, B, Tn, H, d_k, d_v, 300);
  std::vector<double> od(xd.rows() * d_v);
  std::vector<float> of(xf.rows() * d_v);
  make_cpu_backend<double>(2)->memory_rule_forward(od.data(), xd.args(s));
  make_cpu_backend<float>(2)->memory_rule_forward(of.data(), xf.args(s));
  EXPECT_LT(rel_max_error(of, od), 1e-5);
}

INSTANTIATE_TEST_SUITE_P(
    AllRules, CpuMemoryRuleForm,
    ::testing::Combine(::testing::Values(Rule::delta, Rule::comba, Rule::titans, Rule::swla, Rule::linear),
                       ::testing::Values(memory::RuleForm::recurrent, memory::RuleForm::chunked)),
    [](const auto& info) {
      return std::string(memory::rule_name(std::get<0>(info.param))) + "_" +
             std::string(memory::rule_form_name(std::get<1>(info.param)));
    });

INSTANTIATE_TEST_SUITE_P(AllRules, CpuMemoryRule,
                         ::testing::Values(Rule::delta, Rule::comba, Rule::titans, Rule::swla, Rule::linear),
                         rule_param_name);

TEST(CpuMemoryRuleErrors, MissingInputsAndForeignStatesAreReported) {
  const Schedule s = Schedule::uniform(4, 2, 3);
  Batch<double> x(Rule::comba, 1, 3, 2, 2, 2, 400);
  auto be = make_cpu_backend<double>(2);
  std::vector<double> o(x.rows() * 2);
  auto args = x.args(s);
  args.p = nullptr;  // comba without its p: thrown from inside the parallel heads
  EXPECT_THROW(be->memory_rule_forward(o.data(), args), InputError);
  args = x.args(s);
  args.schedule = nullptr;
  EXPECT_THROW(be->memory_rule_forward(o.data(), args), InputError);

  auto state = be->memory_rule_forward(o.data(), x.args(s));
  std::vector<double> norms(x.rows() * 5);
  EXPECT_THROW(be->memory_block_norms(norms.data(), x.args(s), *state, 5), InputError);  // 5 > D = 4
  auto other = x.args(s);
  other.rule = Rule::delta;
  std::vector<double> gq(x.q.size());
  MemoryRuleGrads<double> g;
  g.q = gq.data();
  EXPECT_THROW(be->memory_rule_backward(g, o.data(), other, *state), InputError);
}

// A call whose buffers fill a huge page or more keeps them in a block the backend takes again at
// its next call (huge_page_blocks.hpp): the same bits as the rule run head by head on the heap, at
// the first call and the second, in both forms; and a call's state may outlive its backend.
TEST(CpuMemoryRuleBlock, BuffersInAKeptBlockGiveTheRulesBits) {
  const int B = 1, Tn = 512, H = 4, d = 64, chunk = 16;  // about 1 MB of buffers a head
  const Schedule s = Schedule::uniform(d * d, 1, Tn);
  for (const Rule rule : {Rule::delta, Rule::comba})
    for (const memory::RuleForm form : {memory::RuleForm::chunked, memory::RuleForm::recurrent}) {
      SCOPED_TRACE(std::string(memory::rule_name(rule)) + (form == memory::RuleForm::chunked ? " chunked" : " recurrent"));
      const Batch<float> x(rule, B, Tn, H, d, d, 600);
      auto args = x.args(s);
      args.form = form;
      args.chunk = chunk;
      const auto dO = random_vector<float>(x.rows() * d, 601);
      struct Out {
        std::vector<float> o, q, k, v, beta, a, p;
      };
      CpuBackend<float> be(2);
      auto run = [&] {
        Out r{std::vector<float>(x.rows() * d), std::vector<float>(x.rows() * d), std::vector<float>(x.rows() * d),
              std::vector<float>(x.rows() * d), std::vector<float>(x.rows()), std::vector<float>(x.rows()),
              std::vector<float>(x.rows() * d)};
        auto state = be.memory_rule_forward(r.o.data(), args);
        MemoryRuleGrads<float> g;
        g.q = r.q.data(), g.k = r.k.data(), g.v = r.v.data(), g.beta = r.beta.data(), g.a = r.a.data();
        if (memory::rule_uses_p(rule)) g.p = r.p.data();
        be.memory_rule_backward(g, dO.data(), args, *state);
        return r;
      };
      const Out first = run();
      ASSERT_EQ(be.memory_blocks_kept(), 1u) << "the call's buffers took a block and gave it back";
      const Out second = run();
      EXPECT_EQ(be.memory_blocks_kept(), 1u) << "the second call took the same block again";
      for (std::vector<float> Out::*field : {&Out::o, &Out::q, &Out::k, &Out::v, &Out::beta, &Out::a, &Out::p})
        EXPECT_TRUE(same_bits(second.*field, first.*field));

      for (int h = 0; h < H; ++h) {  // each head on the heap, by the rule itself
        const auto q = head_of(x.q, 0, h, Tn, H, d), k = head_of(x.k, 0, h, Tn, H, d), v = head_of(x.v, 0, h, Tn, H, d);
        const auto a = head_of(x.a, 0, h, Tn, H, 1), beta = head_of(x.beta, 0, h, Tn, H, 1), p = head_of(x.p, 0, h, Tn, H, d);
        memory::RuleInputs<float> in;
        in.T = Tn, in.d_k = d, in.d_v = d;
        in.q = q.data(), in.k = k.data(), in.v = v.data(), in.a = a.data(), in.beta = beta.data();
        in.p = p.empty() ? nullptr : p.data();
        std::vector<float> o(Tn * d), gq(Tn * d), gk(Tn * d), gv(Tn * d), gbeta(Tn), ga(Tn), gp(Tn * d);
        memory::RuleGrads<float> rg{gq.data(), gk.data(), gv.data(), gbeta.data(), ga.data(),
                                    in.p ? gp.data() : nullptr, nullptr, nullptr, nullptr};
        const auto dOh = head_of(dO, 0, h, Tn, H, d);
        memory::StateCheckpoints<float> ck;
        if (form == memory::RuleForm::chunked) {
          memory::chunked_rule_forward<float>(rule, s, in, chunk, o.data(), nullptr, &ck);
          memory::chunked_rule_backward<float>(rule, s, in, ck, dOh.data(), nullptr, rg);
        } else {
          memory::checkpointed_rule_forward<float>(rule, s, in, chunk, o.data(), nullptr, &ck);
          memory::checkpointed_rule_backward<float>(rule, s, in, ck, dOh.data(), nullptr, rg);
        }
        SCOPED_TRACE("head " + std::to_string(h));
        EXPECT_TRUE(same_bits(head_of(first.o, 0, h, Tn, H, d), o));
        EXPECT_TRUE(same_bits(head_of(first.q, 0, h, Tn, H, d), gq));
        EXPECT_TRUE(same_bits(head_of(first.k, 0, h, Tn, H, d), gk));
        EXPECT_TRUE(same_bits(head_of(first.v, 0, h, Tn, H, d), gv));
        EXPECT_TRUE(same_bits(head_of(first.beta, 0, h, Tn, H, 1), gbeta));
        EXPECT_TRUE(same_bits(head_of(first.a, 0, h, Tn, H, 1), ga));
        if (in.p) EXPECT_TRUE(same_bits(head_of(first.p, 0, h, Tn, H, d), gp));
      }
    }
  // the state keeps the blocks it came from alive (a sanitizer build checks)
  std::unique_ptr<OpState> state;
  const Batch<float> x(Rule::delta, B, Tn, H, d, d, 602);
  std::vector<float> o(x.rows() * d);
  {
    CpuBackend<float> be(1);
    state = be.memory_rule_forward(o.data(), x.args(s));
  }
  state.reset();
}

TEST(CpuDeterminism, OneAndTwoThreadsGiveTheSameBits) {
  // Large enough that the matmuls are cut into several pieces and two threads really share them.
  const int N = 1001, IC = 67, OC = 97;
  const auto in = random_vector<float>(N * IC, 500), w = random_vector<float>(OC * IC, 501),
             dout = random_vector<float>(N * OC, 502);
  const Schedule s = Schedule::uniform(16, 4, 12);
  Batch<float> x(Rule::titans, 3, 12, 4, 4, 4, 503);
  struct Result {
    std::vector<float> out, din, dw, o;
  };
  auto run = [&](int threads) {
    auto be = make_cpu_backend<float>(threads);
    Result r{std::vector<float>(N * OC), std::vector<float>(N * IC), std::vector<float>(OC * IC, 0.5f),
             std::vector<float>(x.rows() * 4)};
    be->matmul_forward(r.out.data(), in.data(), w.data(), N, IC, OC);
    be->matmul_backward(r.din.data(), r.dw.data(), dout.data(), in.data(), w.data(), N, IC, OC);
    be->memory_rule_forward(r.o.data(), x.args(s));
    return r;
  };
  const Result one = run(1), two = run(2);
  EXPECT_TRUE(same_bits(one.out, two.out));
  EXPECT_TRUE(same_bits(one.din, two.din));
  EXPECT_TRUE(same_bits(one.dw, two.dw));
  EXPECT_TRUE(same_bits(one.o, two.o));
  EXPECT_NE(one.out[0], 0.0f);
}

}  // namespace
