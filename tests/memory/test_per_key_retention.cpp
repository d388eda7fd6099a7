// A retention per key row (rule_traits' per_key_retention; the gla rule, math.md section 3):
// a hand-computed gated example through memory-op, the rule's reductions to the linear rule (every
// a = 1; equal retentions along a row), locked elements keeping their bits, the chunked form's
// secondary chunking against the recurrent form where naive e^{-G} would overflow, and memory-op's
// refusals of a malformed `a`.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "core/memory/chunked_rule.hpp"
#include "core/memory/gated_rule.hpp"
#include "core/memory/log_retention.hpp"
#include "core/memory/memory_op.hpp"
#include "tests/memory/random_rule_inputs.hpp"

namespace {

using namespace proteus::memory;
using nlohmann::json;
using proteus::InputError;
using proteus::memory::testing::RandomRuleInputs;

json text(const char* json_text) { return json::parse(json_text); }
json run(const json& in) { return run_memory_op(parse_memory_op(in)); }

template <class F>
bool same_bits(const std::vector<F>& x, const std::vector<F>& y) {
  return x.size() == y.size() && (x.empty() || std::memcmp(x.data(), y.data(), x.size() * sizeof(F)) == 0);
}

TEST(PerKeyRetention, IsTheGlaRowOfTheTable) {
  EXPECT_TRUE(rule_traits(Rule::gla).per_key_retention);
  EXPECT_EQ(rule_traits(Rule::gla).family, RuleFamily::hebbian);
  EXPECT_TRUE(rule_uses_beta(Rule::gla));
  EXPECT_EQ(retention_width(Rule::gla, 7), 7);
  EXPECT_EQ(retention_width(Rule::linear, 7), 1);
  for (Rule r : all_rules()) {
    if (r != Rule::gla && r != Rule::kda) {
      EXPECT_FALSE(rule_traits(r).per_key_retention) << rule_name(r);
    }
  }
  EXPECT_EQ(rule_from_name("gla"), Rule::gla);
}

// d_k = 2, d_v = 1 (one element per key row), T = 2, E = 2 blocks of one row, the second opening at
// t = 2: row 1 is locked at t = 1 and keeps S_0's 3 exactly, decay included; every number is a short
// binary fraction, so each step is exact.
TEST(PerKeyRetention, GatedStepsByHand) {
  const json in = text(R"({"rule": "gla", "E": 2, "N": 2, "schedule": {"type": "custom", "unlock": [1, 2]},
                           "q": [[1, 2], [2, 1]], "k": [[1, 0.5], [1, 1]], "v": [[2], [4]],
                           "beta": [0.5, 0.25], "a": [[0.5, 0.25], [0.75, 0.5]], "S0": [[1], [3]],
                           "dO": [[1], [1]]})");
  // t=1: row 0 = 0.5*1 + 0.5*1*2 = 1.5; row 1 locked = 3;      o = 1.5*1           = 1.5
  // t=2: row 0 = 0.75*1.5 + 0.25*1*4 = 2.125; row 1 = 0.5*3 + 0.25*1*4 = 2.5; o = 2.125*2 + 2.5*1 = 6.75
  const json out = run(in);
  EXPECT_EQ(out["o"], text("[[1.5], [6.75]]"));
  EXPECT_EQ(out["S"], text("[[2.125], [2.5]]"));
  // da is (T, d_k): dL/da_t[i] = (dS_t)_i S_{t-1,i} on open rows; row 1 at t = 1 is locked: 0.
  // dS_2 = q_2 (o_2's read) = (2, 1): da_2 = (2*1.5, 1*3) = (3, 3). dS_1 = q_1 + a_2 ⊙ dS_2 on
  // open rows = (1 + 0.75*2) = 2.5 for row 0: da_1[0] = 2.5 * 1 = 2.5.
  EXPECT_EQ(out["grad"]["a"], text("[[2.5, 0], [3, 3]]"));
}

// With every a = 1 the rule is the linear rule with a = 1, bit for bit (the same arithmetic);
// with a row of equal retentions it is the linear rule with that scalar decay, and its da summed
// over the row is the linear rule's da.
TEST(PerKeyRetention, ReducesToTheLinearRule) {
  const int64_t T = 17, d_k = 4, d_v = 3, D = d_k * d_v;
  for (int64_t E : {int64_t(1), int64_t(3), int64_t(4)}) {
    const Schedule s = Schedule::uniform(D, E, 11);
    RandomRuleInputs<double> gla(Rule::gla, T, d_k, d_v, 5);
    RandomRuleInputs<double> lin(Rule::linear, T, d_k, d_v, 5);
    lin.q = gla.q, lin.k = gla.k, lin.v = gla.v, lin.beta = gla.beta, lin.S0 = gla.S0;
    for (bool ones : {true, false}) {
      for (int64_t t = 0; t < T; ++t) {
        lin.a[t] = ones ? 1.0 : 0.5 + 0.03 * t;
        for (int64_t i = 0; i < d_k; ++i) gla.a[t * d_k + i] = lin.a[t];
      }
      std::vector<double> og(T * d_v), ol(T * d_v), Sg(D), Sl(D);
      RuleTape<double> tg, tl;
      gated_rule_forward<double>(Rule::gla, s, gla.view(), og.data(), Sg.data(), &tg);
      gated_rule_forward<double>(Rule::linear, s, lin.view(), ol.data(), Sl.data(), &tl);
      EXPECT_TRUE(same_bits(og, ol) && same_bits(Sg, Sl)) << "E=" << E << " ones=" << ones;
      std::vector<double> dO(T * d_v);
      for (size_t n = 0; n < dO.size(); ++n) dO[n] = std::sin(0.3 * n);
      std::vector<double> gq(T * d_k), gk(T * d_k), gv(T * d_v), gb(T), ga(T * d_k), lq(T * d_k), lk(T * d_k),
          lv(T * d_v), lb(T), la(T);
      RuleGrads<double> g{gq.data(), gk.data(), gv.data(), gb.data(), ga.data()};
      RuleGrads<double> l{lq.data(), lk.data(), lv.data(), lb.data(), la.data()};
      gated_rule_backward<double>(Rule::gla, s, gla.view(), tg, dO.data(), nullptr, g);
      gated_rule_backward<double>(Rule::linear, s, lin.view(), tl, dO.data(), nullptr, l);
      EXPECT_TRUE(same_bits(gq, lq) && same_bits(gk, lk) && same_bits(gv, lv) && same_bits(gb, lb));
      for (int64_t t = 0; t < T; ++t) {
        double row = 0;
        for (int64_t i = 0; i < d_k; ++i) row += ga[t * d_k + i];
        EXPECT_NEAR(row, la[t], 1e-12 * (1 + std::abs(la[t]))) << "t=" << t;
      }
    }
  }
}

// Locked elements are never written: their decay does not touch them, whatever their row's a.
TEST(PerKeyRetention, LockedElementsKeepTheirBits) {
  const int64_t T = 12, d_k = 4, d_v = 3, D = d_k * d_v;
  const Schedule s = Schedule::uniform(D, 5, 20);  // blocks cut rows: partial rows stay locked
  RandomRuleInputs<double> in(Rule::gla, T, d_k, d_v, 9);
  RuleTape<double> tape;
  std::vector<double> o(T * d_v);
  gated_rule_forward<double>(Rule::gla, s, in.view(), o.data(), nullptr, &tape);
  int locked = 0;
  for (int64_t t = 1; t <= T; ++t)
    for (int64_t x = s.active_elements(t); x < D; ++x, ++locked)
      EXPECT_EQ(std::memcmp(&tape.S[t * D + x], &in.S0[x], sizeof(double)), 0) << "t=" << t << " element " << x;
  EXPECT_GT(locked, 0);
}

// Retentions near the floor, for each rule with a row of retentions: chunks of 64 steps of
// a = 1e-3 take the cumulative log-decay to about -440, where e^{-G} overflows even a double. The chunked form's sub-chunks never
// exponentiate a positive number: float stays finite and agrees with the recurrent form in double.
TEST(PerKeyRetention, ChunkedFormSurvivesStrongDecay) {
  const int64_t T = 150, d_k = 8, d_v = 4, D = d_k * d_v;
  for (Rule rule : {Rule::gla, Rule::kda})  // the hebbian and the erasing per-key chunk
    for (int64_t E : {int64_t(1), int64_t(4)}) {
      const Schedule s = Schedule::uniform(D, E, 100);
      RandomRuleInputs<float> f(rule, T, d_k, d_v, 3, true, false);
      for (int64_t n = 0; n < T * d_k; ++n)
        if (n % 3 == 0) f.a[n] = n % 2 ? 1e-3f : 0.0f;  // strong decays, and some that underflowed
      RandomRuleInputs<double> d(rule, T, d_k, d_v, 3, true, false);
      auto widen = [](const std::vector<float>& x) { return std::vector<double>(x.begin(), x.end()); };
      d.q = widen(f.q), d.k = widen(f.k), d.v = widen(f.v), d.beta = widen(f.beta), d.a = widen(f.a);
      for (double& x : d.a) x = std::max(x, kRetentionFloor);  // the recurrent form at the chunked one's floor
      std::vector<float> of(T * d_v), Sf(D);
      StateCheckpoints<float> ck;
      chunked_rule_forward<float>(rule, s, f.view(), 64, of.data(), Sf.data(), &ck);
      std::vector<double> od(T * d_v), Sd(D);
      gated_rule_forward<double>(rule, s, d.view(), od.data(), Sd.data(), nullptr);
      double diff = 0, scale = 0;
      for (int64_t n = 0; n < T * d_v; ++n) {
        ASSERT_TRUE(std::isfinite(of[n])) << "o[" << n << "] E=" << E;
        diff = std::max(diff, std::abs(of[n] - od[n]));
        scale = std::max(scale, std::abs(od[n]));
      }
      EXPECT_LT(diff / scale, 1e-4) << rule_name(rule) << " E=" << E;
      std::vector<float> dO(T * d_v, 1.0f), gq(T * d_k), gk(T * d_k), gv(T * d_v), gb(T), ga(T * d_k);
      chunked_rule_backward<float>(rule, s, f.view(), ck, dO.data(), nullptr,
                                   RuleGrads<float>{gq.data(), gk.data(), gv.data(), gb.data(), ga.data()});
      for (const auto* x : {&gq, &gk, &gv, &gb, &ga})
        for (float e : *x) ASSERT_TRUE(std::isfinite(e)) << rule_name(rule) << " E=" << E;
    }
}

json gla_input() {
  return text(R"({"rule": "gla", "q": [[1, 0], [0, 1], [1, 1]], "k": [[1, 0], [0, 1], [1, 1]],
                  "v": [[1], [2], [3]], "beta": [0.5, 0.5, 0.5], "a": [[1, 0.5], [0.5, 1], [0.9, 0.9]]})");
}

void expect_refused(const json& in, const std::string& field, const std::string& reason) {
  try {
    parse_memory_op(in);
    ADD_FAILURE() << "accepted; expected an error on " << field << " for " << in.dump();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), field) << e.what();
    EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
  }
}

TEST(PerKeyRetention, MemoryOpReadsARowOfRetentionsAStep) {
  json in = gla_input();
  in["dO"] = text("[[1], [1], [1]]");
  const json out = run(in);
  ASSERT_EQ(out["grad"]["a"].size(), 3u);
  EXPECT_EQ(out["grad"]["a"][0].size(), 2u);  // (T, d_k), like the input
  json scalar = gla_input();
  scalar["a"] = {1, 0.5, 0.5};
  expect_refused(scalar, "a[0]", "expected");
  json short_row = gla_input();
  short_row["a"][1] = {0.5};
  expect_refused(short_row, "a[1]", "");
  json outside = gla_input();
  outside["a"][2][1] = 1.5;
  expect_refused(outside, "a[2][1]", "(0, 1]");
  outside["a"][2][1] = 0;
  expect_refused(outside, "a[2][1]", "(0, 1]");
  json rows = gla_input();
  rows["a"] = text("[[1, 1], [1, 1]]");
  expect_refused(rows, "a", "3 rows");
  // A rule with one retention a step still refuses rows.
  json linear = gla_input();
  linear["rule"] = "linear";
  expect_refused(linear, "a[0]", "");
}

}  // namespace
