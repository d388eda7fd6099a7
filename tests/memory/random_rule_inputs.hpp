// Seeded random inputs for one head of any rule, owning their storage, in the ranges the model
// produces: unit-norm keys, beta in (0, 1), retention in (0.5, 1), eta in (0, 0.9).
#pragma once
#include <cmath>
#include <random>
#include <vector>

#include "core/memory/gated_rule.hpp"

namespace proteus::memory::testing {

template <class F>
struct RandomRuleInputs {
  Rule rule;
  int64_t T, d_k, d_v, window;
  std::vector<F> q, k, v, beta, a, p, eta, gamma, S0;

  RandomRuleInputs(Rule rule_, int64_t T_, int64_t d_k_, int64_t d_v_, uint32_t seed, bool decay = true,
                   bool nonzero_S0 = true, int64_t window_ = 3)
      : rule(rule_), T(T_), d_k(d_k_), d_v(d_v_), window(rule_uses_gamma(rule_) ? window_ : 0) {
    std::mt19937 rng(seed);
    std::normal_distribution<double> normal;
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    auto fill_unit_rows = [&](std::vector<F>& x, int64_t width) {
      x.resize(T * width);
      for (int64_t t = 0; t < T; ++t) {
        double norm = 0;
        for (int64_t i = 0; i < width; ++i) norm += std::pow(x[t * width + i] = F(normal(rng)), 2);
        for (int64_t i = 0; i < width; ++i) x[t * width + i] = F(x[t * width + i] / std::sqrt(norm));
      }
    };
    fill_unit_rows(q, d_k);
    fill_unit_rows(k, d_k);
    v.resize(T * d_v);
    for (auto& e : v) e = F(normal(rng));
    beta.resize(T);
    for (auto& e : beta) e = F(0.1 + 0.8 * unit(rng));
    if (decay) {
      a.resize(T * retention_width(rule, d_k));  // a row of d_k a step where the rule decays per key row
      for (auto& e : a) e = F(0.5 + 0.5 * unit(rng));
    }
    if (rule_uses_p(rule)) fill_unit_rows(p, d_k);
    if (rule_uses_eta(rule)) {
      eta.resize(T);
      for (auto& e : eta) e = F(0.9 * unit(rng));
    }
    if (rule_uses_gamma(rule)) {
      gamma.resize(T * window);
      for (auto& e : gamma) e = F(0.1 + 0.8 * unit(rng));
    }
    if (nonzero_S0) {
      S0.resize(d_k * d_v);
      for (auto& e : S0) e = F(0.5 * normal(rng));
    }
  }

  RuleInputs<F> view() const {
    RuleInputs<F> in;
    in.T = T;
    in.d_k = d_k;
    in.d_v = d_v;
    in.window = window;
    in.q = q.data();
    in.k = k.data();
    in.v = v.data();
    in.beta = beta.data();
    in.a = a.empty() ? nullptr : a.data();
    in.p = p.empty() ? nullptr : p.data();
    in.eta = eta.empty() ? nullptr : eta.data();
    in.gamma = gamma.empty() ? nullptr : gamma.data();
    in.S0 = S0.empty() ? nullptr : S0.data();
    return in;
  }
};

}  // namespace proteus::memory::testing
