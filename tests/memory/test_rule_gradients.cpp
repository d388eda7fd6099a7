// Hand-written backward through time against central finite differences in float64, for every
// input of every rule (q, k, v, beta, a, p, eta, gamma, S_0), with E row-aligned, cutting rows,
// and one block per element, and positions past the horizon N.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

#include "core/memory/gated_rule.hpp"
#include "tests/memory/random_rule_inputs.hpp"

namespace {

using namespace proteus::memory;
using proteus::memory::testing::RandomRuleInputs;

struct Case {
  Rule rule;
  int64_t E;
  ScheduleType schedule;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << rule_name(c.rule) << " E=" << c.E << " " << schedule_type_name(c.schedule);
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return std::string(rule_name(info.param.rule)) + "_E" + std::to_string(info.param.E) + "_" + std::string(schedule_type_name(info.param.schedule));
}

class RuleGradient : public ::testing::TestWithParam<Case> {};

TEST_P(RuleGradient, MatchesCentralFiniteDifferences) {
  const Case c = GetParam();
  const int64_t T = 11, d_k = 3, d_v = 4, D = d_k * d_v;
  RandomRuleInputs<double> r(c.rule, T, d_k, d_v, 1234 + c.E);
  ScheduleSpec spec;
  spec.type = c.schedule;
  const auto s = Schedule::make(spec, D, c.E, 8);  // N = 8 < T: the last steps run on full memory

  std::mt19937 rng(99);
  std::normal_distribution<double> normal;
  std::vector<double> dO(T * d_v), dS(D);
  for (auto& e : dO) e = normal(rng);
  for (auto& e : dS) e = normal(rng);

  auto loss = [&]() {
    std::vector<double> o(T * d_v), S(D);
    gated_rule_forward<double>(c.rule, s, r.view(), o.data(), S.data(), nullptr);
    double L = 0;
    for (int64_t n = 0; n < T * d_v; ++n) L += dO[n] * o[n];
    for (int64_t x = 0; x < D; ++x) L += dS[x] * S[x];
    return L;
  };

  RuleTape<double> tape;
  std::vector<double> o(T * d_v);
  gated_rule_forward<double>(c.rule, s, r.view(), o.data(), nullptr, &tape);
  std::vector<double> gq(r.q.size()), gk(r.k.size()), gv(r.v.size()), gbeta(T), ga(r.a.size()), gp(r.p.size()),
      geta(r.eta.size()), ggamma(r.gamma.size()), gS0(D);
  RuleGrads<double> grads{gq.data(), gk.data(), gv.data(), gbeta.data(), ga.data(),
                          gp.data(), geta.data(), ggamma.data(), gS0.data()};
  gated_rule_backward<double>(c.rule, s, r.view(), tape, dO.data(), dS.data(), grads);

  struct Input {
    const char* name;
    std::vector<double>* x;
    const std::vector<double>* g;
  };
  const std::vector<Input> inputs = {{"q", &r.q, &gq},       {"k", &r.k, &gk},     {"v", &r.v, &gv},
                                     {"beta", &r.beta, &gbeta}, {"a", &r.a, &ga},     {"p", &r.p, &gp},
                                     {"eta", &r.eta, &geta},  {"gamma", &r.gamma, &ggamma}, {"S0", &r.S0, &gS0}};
  const double h = 1e-6;
  int checked = 0;
  for (const auto& input : inputs) {
    if (input.x->empty()) continue;
    double worst = 0, scale = 1e-3;
    for (size_t n = 0; n < input.x->size(); ++n) {
      double& x = (*input.x)[n];
      const double x0 = x;
      x = x0 + h;
      const double up = loss();
      x = x0 - h;
      const double down = loss();
      x = x0;
      const double numeric = (up - down) / (2 * h);
      worst = std::max(worst, std::fabs(numeric - (*input.g)[n]));
      scale = std::max(scale, std::fabs(numeric));
      ++checked;
    }
    EXPECT_LT(worst / scale, 1e-7) << "d" << input.name << ": max abs error " << worst << " at scale " << scale;
  }
  EXPECT_GE(checked, T * (2 * d_k + d_v) + D);
  if (c.rule == Rule::swla) {
    for (double g : gbeta) EXPECT_EQ(g, 0.0) << "swla does not read beta";
  }
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (Rule rule : all_rules())
    for (int64_t E : {1, 3, 5, 12}) cases.push_back({rule, E, E == 5 ? ScheduleType::geometric : ScheduleType::uniform});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(AllRules, RuleGradient, ::testing::ValuesIn(all_cases()), case_name);

TEST(RuleGradientDefaults, MissingOptionalInputsStillGiveStateAndOutputGradients) {
  // No decay and no S_0: dS_0 is still the gradient at S_0 = 0, and dO alone drives it.
  const int64_t T = 6, d_k = 2, d_v = 2, D = 4;
  RandomRuleInputs<double> r(Rule::delta, T, d_k, d_v, 3, /*decay=*/false, /*nonzero_S0=*/false);
  const auto s = Schedule::uniform(D, 2, T);
  RuleTape<double> tape;
  std::vector<double> o(T * d_v), dO(T * d_v, 1.0), gS0(D, 42.0), ga(T, 42.0);
  gated_rule_forward<double>(Rule::delta, s, r.view(), o.data(), nullptr, &tape);
  RuleGrads<double> grads;
  grads.S0 = gS0.data();
  grads.a = ga.data();
  gated_rule_backward<double>(Rule::delta, s, r.view(), tape, dO.data(), nullptr, grads);
  // Finite difference on one S_0 element around zero.
  const double h = 1e-6;
  auto loss_with_s0 = [&](double x00) {
    std::vector<double> S0(D, 0.0);
    S0[0] = x00;
    auto in = r.view();
    in.S0 = S0.data();
    std::vector<double> out(T * d_v);
    gated_rule_forward<double>(Rule::delta, s, in, out.data(), nullptr, nullptr);
    double L = 0;
    for (double e : out) L += e;
    return L;
  };
  EXPECT_NEAR(gS0[0], (loss_with_s0(h) - loss_with_s0(-h)) / (2 * h), 1e-7);
  EXPECT_NE(ga[0], 42.0);  // overwritten, not accumulated into
}

}  // namespace
