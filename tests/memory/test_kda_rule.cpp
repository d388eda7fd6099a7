// The delta rule with a retention per key row (the kda rule, math.md section 3): a hand-computed
// gated example through memory-op, its reduction to the delta rule under a row of equal
// retentions, the chunked form (the WY form with a per-key decay) against the recurrent form under
// both block axes' open widths and with retentions down to 1e-3 (where a naive e^{-G} overflows).
// The sweeps every chunked rule runs (chunked against recurrent over E, schedules and chunk sizes;
// finite differences; locked elements; E = 1 against the ungated rule) take kda from the table.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/memory/chunked_rule.hpp"
#include "core/memory/gated_rule.hpp"
#include "core/memory/log_retention.hpp"
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

// The taped recurrent form, or the chunked form with chunks of `chunk` (0: recurrent).
Pass run(Rule rule, const Schedule& s, const RuleInputs<double>& in, int64_t chunk) {
  Pass p;
  p.o.assign(in.T * in.d_v, 0), p.S.assign(in.d_k * in.d_v, 0);
  p.q.assign(in.T * in.d_k, 0), p.k.assign(in.T * in.d_k, 0), p.v.assign(in.T * in.d_v, 0);
  p.beta.assign(in.T, 0), p.a.assign(in.T * retention_width(rule, in.d_k), 0);
  std::vector<double> dO(in.T * in.d_v), dS(in.d_k * in.d_v);
  for (size_t n = 0; n < dO.size(); ++n) dO[n] = std::sin(0.7 * double(n) + 0.3);
  for (size_t n = 0; n < dS.size(); ++n) dS[n] = std::cos(0.4 * double(n));
  const RuleGrads<double> g{p.q.data(), p.k.data(), p.v.data(), p.beta.data(), p.a.data()};
  if (chunk == 0) {
    RuleTape<double> tape;
    gated_rule_forward<double>(rule, s, in, p.o.data(), p.S.data(), &tape);
    gated_rule_backward<double>(rule, s, in, tape, dO.data(), dS.data(), g);
  } else {
    StateCheckpoints<double> ck;
    chunked_rule_forward<double>(rule, s, in, chunk, p.o.data(), p.S.data(), &ck);
    chunked_rule_backward<double>(rule, s, in, ck, dO.data(), dS.data(), g);
  }
  return p;
}

void expect_close(const Pass& got, const Pass& want, double tol, const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_LT(relative_error(got.o, want.o), tol) << "o";
  EXPECT_LT(relative_error(got.S, want.S), tol) << "S_T";
  EXPECT_LT(relative_error(got.q, want.q), tol) << "dq";
  EXPECT_LT(relative_error(got.k, want.k), tol) << "dk";
  EXPECT_LT(relative_error(got.v, want.v), tol) << "dv";
  EXPECT_LT(relative_error(got.beta, want.beta), tol) << "dbeta";
  EXPECT_LT(relative_error(got.a, want.a), tol) << "da";
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
    const Pass got = run(Rule::kda, s, kda.view(), 0), want = run(Rule::delta, s, delta.view(), 0);
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

// Under block_axis value_rows (open value columns) and layer (open key rows), widths that grow
// inside chunks: the chunked form against the recurrent one, in double.
TEST(KdaRule, ChunkedFormFollowsTheOpenWidthsOfBothBlockAxes) {
  const int64_t T = 29, d_k = 6, d_v = 4, D = d_k * d_v;
  for (OpenWidths of : {OpenWidths::value_columns, OpenWidths::key_rows})
    for (int64_t chunk : {int64_t(1), int64_t(4), int64_t(16)}) {
      const Schedule s = Schedule::uniform(D, 2, 20);
      const RandomRuleInputs<double> r(Rule::kda, T, d_k, d_v, 17, true, false);
      const int64_t widest = of == OpenWidths::key_rows ? d_k : d_v;
      std::vector<int32_t> widths(T);
      for (int64_t t = 0; t < T; ++t) widths[t] = static_cast<int32_t>(std::min<int64_t>(widest, 1 + t / 5));
      RuleInputs<double> in = r.view();
      in.open_widths = widths.data(), in.open_widths_of = of;
      expect_close(run(Rule::kda, s, in, chunk), run(Rule::kda, s, in, 0), 1e-10,
                   std::string(of == OpenWidths::key_rows ? "key rows" : "value columns") + " chunk=" + std::to_string(chunk));
    }
}

// Retentions down to 1e-3 (and some at 0, floored): over 64 steps the cumulative log-decay of a row
// reaches about -440, where e^{-G} overflows even a double. The chunked form's sub-chunks never
// exponentiate a positive number: float stays finite and follows the recurrent form in double.
TEST(KdaRule, ChunkedFormSurvivesStrongDecay) {
  const int64_t T = 150, d_k = 8, d_v = 4, D = d_k * d_v;
  for (int64_t E : {int64_t(1), int64_t(4)}) {
    const Schedule s = Schedule::uniform(D, E, 100);
    RandomRuleInputs<float> f(Rule::kda, T, d_k, d_v, 3, true, false);
    for (int64_t n = 0; n < T * d_k; ++n)
      if (n % 3 == 0) f.a[n] = n % 2 ? 1e-3f : 0.0f;
    RandomRuleInputs<double> d(Rule::kda, T, d_k, d_v, 3, true, false);
    auto widen = [](const std::vector<float>& x) { return std::vector<double>(x.begin(), x.end()); };
    d.q = widen(f.q), d.k = widen(f.k), d.v = widen(f.v), d.beta = widen(f.beta), d.a = widen(f.a);
    for (double& x : d.a) x = std::max(x, kRetentionFloor);  // the recurrent form at the chunked one's floor
    std::vector<float> of(T * d_v), Sf(D);
    StateCheckpoints<float> ck;
    chunked_rule_forward<float>(Rule::kda, s, f.view(), 64, of.data(), Sf.data(), &ck);
    std::vector<double> od(T * d_v), Sd(D);
    gated_rule_forward<double>(Rule::kda, s, d.view(), od.data(), Sd.data(), nullptr);
    EXPECT_LT(relative_error(std::vector<double>(of.begin(), of.end()), od), 1e-4) << "E=" << E;
    for (float x : of) ASSERT_TRUE(std::isfinite(x)) << "E=" << E;
    std::vector<float> dO(T * d_v, 1.0f), gq(T * d_k), gk(T * d_k), gv(T * d_v), gb(T), ga(T * d_k);
    chunked_rule_backward<float>(Rule::kda, s, f.view(), ck, dO.data(), nullptr,
                                 RuleGrads<float>{gq.data(), gk.data(), gv.data(), gb.data(), ga.data()});
    for (const auto* x : {&gq, &gk, &gv, &gb, &ga})
      for (float e : *x) ASSERT_TRUE(std::isfinite(e)) << "E=" << E;
  }
}

}  // namespace
