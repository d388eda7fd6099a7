// The delta rule with a retention per key row (the kda rule, math.md section 3): a hand-computed
// gated example through memory-op, memory-op's refusals, and its reduction to the delta rule under
// a row of equal retentions. The sweeps every rule or chunked rule runs take kda from the table:
// chunked against recurrent over E, schedules, chunk sizes and both block axes' open widths
// (test_chunked_rule.cpp), finite differences, locked elements, E = 1 against the ungated rule,
// retentions down to 1e-3 in the chunked form (test_per_key_retention.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/memory/gated_rule.hpp"
#include "core/memory/memory_op.hpp"
#include "kernels/rule_limits.hpp"
#include "tests/memory/random_rule_inputs.hpp"

namespace {

using namespace proteus::memory;
using nlohmann::json;
using proteus::memory::testing::RandomRuleInputs;

// Everything one pass returns: o, S_T and the gradient of each input.
struct Pass {
  std::vector<double> o, S, q, k, v, beta, a;
};

double relative_error(const std::vector<double>& got, const std::vector<double>& want) {
  double diff = 0, scale = 0;
  for (size_t n = 0; n < want.size(); ++n) {
    diff = std::max(diff, std::abs(got[n] - want[n]));
    scale = std::max(scale, std::abs(want[n]));
  }
  return scale == 0 ? diff : diff / scale;
}

// The taped recurrent form, forward and backward.
Pass run(Rule rule, const Schedule& s, const RuleInputs<double>& in) {
  Pass p;
  p.o.assign(in.T * in.d_v, 0), p.S.assign(in.d_k * in.d_v, 0);
  p.q.assign(in.T * in.d_k, 0), p.k.assign(in.T * in.d_k, 0), p.v.assign(in.T * in.d_v, 0);
  p.beta.assign(in.T, 0), p.a.assign(in.T * retention_width(rule, in.d_k), 0);
  std::vector<double> dO(in.T * in.d_v), dS(in.d_k * in.d_v);
  for (size_t n = 0; n < dO.size(); ++n) dO[n] = std::sin(0.7 * double(n) + 0.3);
  for (size_t n = 0; n < dS.size(); ++n) dS[n] = std::cos(0.4 * double(n));
  const RuleGrads<double> g{p.q.data(), p.k.data(), p.v.data(), p.beta.data(), p.a.data()};
  RuleTape<double> tape;
  gated_rule_forward<double>(rule, s, in, p.o.data(), p.S.data(), &tape);
  gated_rule_backward<double>(rule, s, in, tape, dO.data(), dS.data(), g);
  return p;
}

TEST(KdaRule, IsTheErasingRowWithARowOfRetentions) {
  const RuleTraits t = rule_traits(Rule::kda);
  EXPECT_EQ(t.family, RuleFamily::erasing);
  EXPECT_TRUE(t.per_key_retention && t.decayed_prediction && t.uses_beta);
  EXPECT_FALSE(t.uses_p || t.uses_gamma || t.uses_eta);
  EXPECT_EQ(retention_width(Rule::kda, 5), 5);
  EXPECT_EQ(rule_from_name("kda"), Rule::kda);
  // The CUDA kernels read a row of retentions in the hebbian write only: kda is refused there by
  // name (CudaBackend::supports) and its models run on the CPU (tests/model/test_model_backend.cpp).
  EXPECT_FALSE(proteus::cuda::kernels_read_retention_of(Rule::kda));
  EXPECT_TRUE(proteus::cuda::kernels_read_retention_of(Rule::gla));
}

// d_k = 2, d_v = 1, T = 2, E = 2 blocks of one row, the second opening at t = 2; short binary
// fractions, so every step is exact.
//   t=1: row 1 locked. pred = a_0 S_0 k_0 = 0.5; r = 2 - 0.5 = 1.5; row 0 = 0.5*1 + 0.5*1*1.5 = 1.25;
//        row 1 keeps 3; o = 1.25*1 = 1.25
//   t=2: pred = 0.75*1.25*1 + 0.5*3*1 = 2.4375; r = 4 - 2.4375 = 1.5625;
//        row 0 = 0.75*1.25 + 0.25*1*1.5625 = 1.328125; row 1 = 0.5*3 + 0.25*1*1.5625 = 1.890625;
//        o = 1.328125*2 + 1.890625*1 = 4.546875
TEST(KdaRule, GatedStepsByHand) {
  const json in = json::parse(R"({"rule": "kda", "E": 2, "N": 2, "schedule": {"type": "custom", "unlock": [1, 2]},
                                  "q": [[1, 2], [2, 1]], "k": [[1, 0.5], [1, 1]], "v": [[2], [4]],
                                  "beta": [0.5, 0.25], "a": [[0.5, 0.25], [0.75, 0.5]], "S0": [[1], [3]]})");
  const json out = run_memory_op(parse_memory_op(in));
  EXPECT_EQ(out["o"], json::parse("[[1.25], [4.546875]]"));
  EXPECT_EQ(out["S"], json::parse("[[1.328125], [1.890625]]"));
}

// memory-op reads kda's a as T rows of d_k and refuses what gla's refuses, naming the element.
TEST(KdaRule, MemoryOpRefusesAMalformedRowOfRetentions) {
  const auto refused = [](const char* a, const std::string& field) {
    json in = json::parse(R"({"rule": "kda", "q": [[1, 0], [0, 1]], "k": [[1, 0], [0, 1]], "v": [[1], [2]],
                              "beta": [0.5, 0.5]})");
    in["a"] = json::parse(a);
    try {
      parse_memory_op(in);
      ADD_FAILURE() << "accepted a = " << a;
    } catch (const proteus::InputError& e) {
      EXPECT_EQ(e.field(), field) << e.what();
    }
  };
  refused("[0.5, 0.5]", "a[0]");              // one retention a step: kda takes a row
  refused("[[0.5, 0.5], [0.5]]", "a[1]");     // a short row
  refused("[[0.5, 0.5], [0.5, 1.5]]", "a[1][1]");  // outside (0, 1]
  refused("[[0.5, 0.5], [0, 1]]", "a[1][0]");
}

// A row of equal retentions is the delta rule with that scalar decay: the same outputs and state,
// the same gradients of q, k, v and beta, and kda's da summed over the row is delta's da.
TEST(KdaRule, ARowOfEqualRetentionsIsTheDeltaRule) {
  const int64_t T = 19, d_k = 4, d_v = 3, D = d_k * d_v;
  for (int64_t E : {int64_t(1), int64_t(3), int64_t(4)}) {
    const Schedule s = Schedule::uniform(D, E, 13);
    RandomRuleInputs<double> kda(Rule::kda, T, d_k, d_v, 5);
    RandomRuleInputs<double> delta(Rule::delta, T, d_k, d_v, 5);
    delta.q = kda.q, delta.k = kda.k, delta.v = kda.v, delta.beta = kda.beta, delta.S0 = kda.S0;
    for (int64_t t = 0; t < T; ++t)
      for (int64_t i = 0; i < d_k; ++i) kda.a[t * d_k + i] = delta.a[t];
    const Pass got = run(Rule::kda, s, kda.view()), want = run(Rule::delta, s, delta.view());
    const std::string what = "E=" + std::to_string(E);
    for (auto [name, x, y] : {std::tuple{"o", &got.o, &want.o}, {"S", &got.S, &want.S}, {"dq", &got.q, &want.q},
                              {"dk", &got.k, &want.k}, {"dv", &got.v, &want.v}, {"dbeta", &got.beta, &want.beta}})
      EXPECT_LT(relative_error(*x, *y), 1e-12) << what << " " << name;
    for (int64_t t = 0; t < T; ++t) {
      double row = 0;
      for (int64_t i = 0; i < d_k; ++i) row += got.a[t * d_k + i];
      EXPECT_NEAR(row, want.a[t], 1e-12 * (1 + std::abs(want.a[t]))) << what << " t=" << t;
    }
  }
}

}  // namespace
