// block_axis value_rows in the float64 reference (value_rows_rule.hpp): against a brute-force
// elementwise form of math.md section 3 with G_t laid over M = S^T (any E, S_0 != 0), its gradients
// against central differences, and `memory-op`'s "block_axis".
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/common/input_error.hpp"
#include "core/memory/block_axis.hpp"
#include "core/memory/memory_op.hpp"
#include "core/memory/value_rows_rule.hpp"
#include "tests/memory/random_rule_inputs.hpp"

namespace {

using namespace proteus;
using namespace proteus::memory;
using proteus::memory::testing::RandomRuleInputs;

// The delta rule (or linear, erase = false) written elementwise straight from math.md section 3:
// S_t = S + G ⊙ ((a-1) S + beta k (v - a Sg^T k)^T), o_t = (G ⊙ S_t)^T q, G over M = S^T.
void brute_force(const RuleInputs<double>& in, const Schedule& s, bool erase, std::vector<double>& o,
                 std::vector<double>& S) {
  const int64_t K = in.d_k, V = in.d_v;
  S.assign(K * V, 0.0);
  if (in.S0) S.assign(in.S0, in.S0 + K * V);
  o.assign(in.T * V, 0.0);
  for (int64_t t = 0; t < in.T; ++t) {
    const int64_t end = s.active_elements(t + 1);
    const double a = in.a ? in.a[t] : 1.0;
    const auto open = [&](int64_t i, int64_t j) { return value_rows_open(end, i, j, K); };
    std::vector<double> err(V);
    for (int64_t j = 0; j < V; ++j) {
      double pred = 0;
      for (int64_t i = 0; i < K; ++i) pred += open(i, j) ? S[i * V + j] * in.k[t * K + i] : 0.0;
      err[j] = in.v[t * V + j] - (erase ? a * pred : 0.0);
    }
    for (int64_t i = 0; i < K; ++i)
      for (int64_t j = 0; j < V; ++j)
        if (open(i, j)) S[i * V + j] += (a - 1) * S[i * V + j] + in.beta[t] * in.k[t * K + i] * err[j];
    for (int64_t j = 0; j < V; ++j)
      for (int64_t i = 0; i < K; ++i) o[t * V + j] += open(i, j) ? S[i * V + j] * in.q[t * K + i] : 0.0;
  }
}

TEST(ValueRowsRule, EqualsTheElementwiseDefinitionForAnyE) {
  for (Rule rule : {Rule::linear, Rule::delta})
    for (int64_t E : {1, 2, 5, 12}) {  // 5 cuts value dimensions mid-way; 12 = D, one element per block
      RandomRuleInputs<double> r(rule, 9, 3, 4, 11 + static_cast<uint32_t>(E));
      const auto in = r.view();
      const Schedule s = Schedule::uniform(12, E, 7);
      std::vector<double> o(9 * 4), S(12), want_o, want_S;
      value_rows_rule_forward(rule, s, in, o.data(), S.data(), static_cast<ValueRowsTape<double>*>(nullptr));
      brute_force(in, s, rule == Rule::delta, want_o, want_S);
      for (size_t n = 0; n < o.size(); ++n) EXPECT_NEAR(o[n], want_o[n], 1e-12) << "o[" << n << "] E = " << E;
      for (size_t n = 0; n < S.size(); ++n) EXPECT_NEAR(S[n], want_S[n], 1e-12) << "S[" << n << "] E = " << E;
    }
}

TEST(ValueRowsRule, LockedColumnsKeepTheirBitsAndZeroStaysZero) {
  RandomRuleInputs<double> r(Rule::titans, 6, 3, 4, 3);
  auto in = r.view();
  const Schedule s = Schedule::uniform(12, 4, 100);  // one value dimension per block, never all open
  std::vector<double> o(6 * 4), S(12);
  value_rows_rule_forward(Rule::titans, s, in, o.data(), S.data(), static_cast<ValueRowsTape<double>*>(nullptr));
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 1; j < 4; ++j) EXPECT_EQ(S[i * 4 + j], r.S0[i * 4 + j]) << "column " << j << " is locked";
  in.S0 = nullptr;
  value_rows_rule_forward(Rule::titans, s, in, o.data(), S.data(), static_cast<ValueRowsTape<double>*>(nullptr));
  for (int64_t t = 0; t < 6; ++t)
    for (int64_t j = 1; j < 4; ++j) EXPECT_EQ(o[t * 4 + j], 0.0);
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 1; j < 4; ++j) EXPECT_EQ(S[i * 4 + j], 0.0);
}

// L = <dO, o> + <dS, S_T>, and its gradient by the backward against central differences.
TEST(ValueRowsRule, GradientsMatchCentralDifferences) {
  for (Rule rule : all_rules()) {
    RandomRuleInputs<double> r(rule, 6, 3, 2, 21);
    const Schedule s = Schedule::uniform(6, 4, 5);  // blocks of 1.5 elements: partial columns
    std::vector<double> dO(6 * 2), dS(6);
    for (size_t n = 0; n < dO.size(); ++n) dO[n] = std::sin(1.0 + n);
    for (size_t n = 0; n < dS.size(); ++n) dS[n] = std::cos(2.0 + n);
    const auto loss = [&] {
      std::vector<double> o(6 * 2), S(6);
      value_rows_rule_forward(rule, s, r.view(), o.data(), S.data(), static_cast<ValueRowsTape<double>*>(nullptr));
      double L = 0;
      for (size_t n = 0; n < o.size(); ++n) L += dO[n] * o[n];
      for (size_t n = 0; n < S.size(); ++n) L += dS[n] * S[n];
      return L;
    };
    ValueRowsTape<double> tape;
    std::vector<double> o(12), S(6), gq(18), gk(18), gv(12), gbeta(6), ga(r.a.size()), gp(18), geta(6), ggamma(18), gS0(6);
    value_rows_rule_forward(rule, s, r.view(), o.data(), S.data(), &tape);
    RuleGrads<double> g{gq.data(), gk.data(), gv.data(), gbeta.data(), ga.data(), gp.data(), geta.data(), ggamma.data(), gS0.data()};
    value_rows_rule_backward(rule, s, r.view(), tape, dO.data(), dS.data(), g);
    const auto check = [&](std::vector<double>& x, const std::vector<double>& grad, const char* name) {
      for (size_t n = 0; n < x.size(); ++n) {
        const double keep = x[n], h = 1e-6;
        x[n] = keep + h;
        const double up = loss();
        x[n] = keep - h;
        const double down = loss();
        x[n] = keep;
        EXPECT_NEAR(grad[n], (up - down) / (2 * h), 1e-7) << rule_name(rule) << " grad." << name << "[" << n << "]";
      }
    };
    check(r.q, gq, "q");
    check(r.k, gk, "k");
    check(r.v, gv, "v");
    if (rule_uses_beta(rule)) check(r.beta, gbeta, "beta");
    check(r.a, ga, "a");
    check(r.S0, gS0, "S0");
    if (rule_uses_p(rule)) check(r.p, gp, "p");
    if (rule_uses_eta(rule)) check(r.eta, geta, "eta");
    if (rule_uses_gamma(rule)) check(r.gamma, ggamma, "gamma");
  }
}

nlohmann::json request(const std::string& axis) {
  return {{"rule", "delta"}, {"E", 2}, {"N", 3}, {"block_axis", axis},
          {"q", {{0.6, 0.8}, {0, 1}, {0.6, 0.8}}}, {"k", {{0, 1}, {1, 0}, {0.8, -0.6}}},
          {"v", {{1, 2}, {3, 4}, {5, 6}}}, {"beta", {0.5, 0.5, 0.5}}, {"dO", {{1, 1}, {1, 1}, {1, 1}}}};
}

TEST(MemoryOpBlockAxis, ValueRowsLocksTheSecondValueDimension) {
  const auto out = run_memory_op(parse_memory_op(request("value_rows")));
  EXPECT_EQ(out["block_axis"], "value_rows");
  // E = 2 over d_v = 2, N = 3: at t = 1 only value dimension 0 is open, so v_1's second one is never
  // written (its gradient is exactly 0) and nothing is read from it.
  EXPECT_EQ(out["o"][0][1].get<double>(), 0.0);
  EXPECT_NE(out["o"][0][0].get<double>(), 0.0);
  EXPECT_EQ(out["grad"]["v"][0][1].get<double>(), 0.0);
  EXPECT_NE(out["grad"]["v"][0][0].get<double>(), 0.0);
  EXPECT_NE(out["o"][2][1].get<double>(), 0.0);
  EXPECT_EQ(run_memory_op(parse_memory_op(request("key_rows")))["block_axis"], "key_rows");
}

// recall reads through value_rows' mask: at t = 1 only value dimension 0 of the read exists, so
// association 1's error is that of a read which recovers v_1[0] alone (the Teach tab's bars).
TEST(MemoryOpBlockAxis, RecallReadsThroughTheValueMask) {
  auto in = request("value_rows");
  in["recall"] = true;
  in.erase("dO");
  const auto out = run_memory_op(parse_memory_op(in));
  // S_1 column 0 = beta k_1 v_1[0] = (0, 0.5); read with k_1 = (0, 1): (0.5, locked 0); v_1 = (1, 2).
  const double miss = std::hypot(0.5 - 1.0, 0.0 - 2.0), size = std::hypot(1.0, 2.0);
  EXPECT_NEAR(out["recall_error"][0][0].get<double>(), miss / size, 1e-12);
  EXPECT_EQ(out["recall_error"].size(), 3u);
}

TEST(MemoryOpBlockAxis, RefusesLayerAndKeyRowReadingsNamingTheField) {
  for (const auto& [field, value] : std::vector<std::pair<std::string, nlohmann::json>>{
           {"block_axis", "layer"}, {"block_axis", 3}, {"normalize", "mask_then_normalize"}}) {
    auto in = request("value_rows");
    in[field] = value;
    try {
      parse_memory_op(in);
      ADD_FAILURE() << field << " accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), "block_axis") << e.what();
    }
  }
}

}  // namespace
