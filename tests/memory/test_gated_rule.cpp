// The gating invariants of math.md section 3: locked elements keep their exact bits (decay,
// momentum and a non-zero S_0 included), E = 1 is the ungated rule bit for bit, and the gated
// rule equals math.md section 3's elementwise formula for any E, row-aligned or not.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "core/memory/gated_rule.hpp"
#include "tests/memory/random_rule_inputs.hpp"

namespace {

using namespace proteus::memory;
using proteus::memory::testing::RandomRuleInputs;

template <class T>
bool same_bits(T x, T y) {
  return std::memcmp(&x, &y, sizeof(T)) == 0;
}

TEST(GatedRule, LockedElementsKeepTheirExactBits) {
  const int64_t T = 40, d_k = 4, d_v = 5, D = d_k * d_v;
  for (Rule rule : all_rules())
    for (int64_t E : {2, 3, 7, 20}) {
      RandomRuleInputs<double> r(rule, T, d_k, d_v, 100 + E);
      r.S0[D - 1] = -0.0;  // a signed zero survives only if the element is never written
      const auto s = Schedule::uniform(D, E, 32);
      RuleTape<double> tape;
      std::vector<double> o(T * d_v);
      gated_rule_forward<double>(rule, s, r.view(), o.data(), nullptr, &tape);
      int64_t locked_seen = 0;
      for (int64_t t = 1; t <= T; ++t) {
        const int64_t end = s.active_elements(t);
        for (int64_t x = end; x < D; ++x) {
          ++locked_seen;
          ASSERT_TRUE(same_bits(tape.S[t * D + x], tape.S[(t - 1) * D + x]))
              << rule_name(rule) << " E=" << E << " t=" << t << " element " << x;
          if (rule == Rule::titans) {
            ASSERT_TRUE(same_bits(tape.Z[t * D + x], tape.Z[(t - 1) * D + x]));
          }
        }
        // And the active part does move: the test would pass vacuously if nothing were written.
        bool moved = false;
        for (int64_t x = 0; x < end; ++x) moved |= tape.S[t * D + x] != tape.S[(t - 1) * D + x];
        ASSERT_TRUE(moved) << rule_name(rule) << " E=" << E << " t=" << t;
      }
      EXPECT_GT(locked_seen, 0);
      EXPECT_TRUE(std::signbit(tape.S[(s.unlock().back() - 1) * D + D - 1]));
    }
}

// The ungated rules as math.md section 3's left column reads, with no schedule anywhere.
template <class T>
void ungated_forward(const RandomRuleInputs<T>& r, std::vector<T>& o, std::vector<T>& S) {
  const int64_t d_k = r.d_k, d_v = r.d_v;
  S = r.S0.empty() ? std::vector<T>(d_k * d_v, T(0)) : r.S0;
  std::vector<T> Z(d_k * d_v, T(0)), pred(d_v), pred_decayed(d_v);
  o.assign(r.T * d_v, T(0));
  for (int64_t t = 0; t < r.T; ++t) {
    const T a = r.a.empty() ? T(1) : r.a[t];
    const T beta = r.beta[t];
    const T* k = &r.k[t * d_k];
    const T* v = &r.v[t * d_v];
    const T* e = r.rule == Rule::comba ? &r.p[t * d_k] : k;
    std::fill(pred.begin(), pred.end(), T(0));
    std::fill(pred_decayed.begin(), pred_decayed.end(), T(0));
    for (int64_t i = 0; i < d_k; ++i)
      for (int64_t j = 0; j < d_v; ++j) {
        pred[j] += S[i * d_v + j] * e[i];  // S^T k or S^T p
        if (r.rule == Rule::kda) pred_decayed[j] += S[i * d_v + j] * ((r.a.empty() ? T(1) : r.a[t * d_k + i]) * k[i]);
      }
    for (int64_t i = 0; i < d_k; ++i)
      for (int64_t j = 0; j < d_v; ++j) {
        T& s = S[i * d_v + j];
        switch (r.rule) {
          case Rule::linear: s = a * s + (beta * k[i]) * v[j]; break;
          case Rule::delta: s = a * s + (beta * k[i]) * (v[j] - a * pred[j]); break;
          case Rule::comba: s = a * s + (beta * k[i]) * (v[j] - pred[j]); break;
          case Rule::titans:
            Z[i * d_v + j] = r.eta[t] * Z[i * d_v + j] - (beta * k[i]) * (pred[j] - v[j]);
            s = a * s + Z[i * d_v + j];
            break;
          case Rule::gla: {  // a row of d_k retentions a step
            const T a_i = r.a.empty() ? T(1) : r.a[t * d_k + i];
            s = a_i * s + (beta * k[i]) * v[j];
            break;
          }
          case Rule::kda: {  // (diag(a) S)^T k predicts
            const T a_i = r.a.empty() ? T(1) : r.a[t * d_k + i];
            s = a_i * s + (beta * k[i]) * (v[j] - pred_decayed[j]);
            break;
          }
          case Rule::swla: {
            T x = a * s;
            for (int64_t w = 0; w < r.window && w <= t; ++w)
              x += (r.gamma[t * r.window + w] * r.k[(t - w) * d_k + i]) * r.v[(t - w) * d_v + j];
            s = x;
            break;
          }
        }
      }
    for (int64_t i = 0; i < d_k; ++i)
      for (int64_t j = 0; j < d_v; ++j) o[t * d_v + j] += S[i * d_v + j] * r.q[t * d_k + i];
  }
}

template <class F>
void expect_e1_is_ungated() {
  const int64_t T = 33, d_k = 6, d_v = 5;
  for (Rule rule : all_rules())
    for (bool decay : {false, true}) {
      RandomRuleInputs<F> r(rule, T, d_k, d_v, 7, decay);
      std::vector<F> want_o, want_S;
      ungated_forward(r, want_o, want_S);
      for (ScheduleType type : {ScheduleType::uniform, ScheduleType::geometric, ScheduleType::power}) {
        ScheduleSpec spec;
        spec.type = type;
        const auto s = Schedule::make(spec, d_k * d_v, 1, 8);
        std::vector<F> o(T * d_v), S(d_k * d_v);
        gated_rule_forward<F>(rule, s, r.view(), o.data(), S.data(), nullptr);
        EXPECT_EQ(0, std::memcmp(o.data(), want_o.data(), o.size() * sizeof(F))) << rule_name(rule) << " " << schedule_type_name(type);
        EXPECT_EQ(0, std::memcmp(S.data(), want_S.data(), S.size() * sizeof(F))) << rule_name(rule) << " " << schedule_type_name(type);
      }
    }
}

TEST(GatedRule, EOneIsTheUngatedRuleBitForBitInDouble) { expect_e1_is_ungated<double>(); }
TEST(GatedRule, EOneIsTheUngatedRuleBitForBitInFloat) { expect_e1_is_ungated<float>(); }

// math.md section 3's right column literally: full-size masks, S + G ⊙ (...), read (G ⊙ S)^T q.
void spec_gated_forward(const RandomRuleInputs<double>& r, const Schedule& s, std::vector<double>& o,
                        std::vector<double>& S) {
  const int64_t d_k = r.d_k, d_v = r.d_v, D = d_k * d_v;
  S = r.S0.empty() ? std::vector<double>(D, 0.0) : r.S0;
  std::vector<double> Z(D, 0.0), Sg(D), pred(d_v), pred_decayed(d_v), U(D), ZU(D);
  o.assign(r.T * d_v, 0.0);
  for (int64_t t = 0; t < r.T; ++t) {
    const auto G = s.mask(t + 1);
    const double a = r.a.empty() ? 1.0 : r.a[t];
    const double beta = r.beta[t];
    const double* k = &r.k[t * d_k];
    const double* v = &r.v[t * d_v];
    for (int64_t x = 0; x < D; ++x) Sg[x] = G[x] * S[x];
    const double* e = r.rule == Rule::comba ? &r.p[t * d_k] : k;
    std::fill(pred.begin(), pred.end(), 0.0);
    std::fill(pred_decayed.begin(), pred_decayed.end(), 0.0);  // (diag(a) Sg)^T k, a row of retentions
    for (int64_t i = 0; i < d_k; ++i)
      for (int64_t j = 0; j < d_v; ++j) {
        pred[j] += Sg[i * d_v + j] * e[i];
        if (r.rule == Rule::kda) pred_decayed[j] += (r.a.empty() ? 1.0 : r.a[t * d_k + i]) * Sg[i * d_v + j] * k[i];
      }
    for (int64_t i = 0; i < d_k; ++i)
      for (int64_t j = 0; j < d_v; ++j) {
        const int64_t x = i * d_v + j;
        switch (r.rule) {
          case Rule::linear: U[x] = (a - 1) * S[x] + beta * k[i] * v[j]; break;
          case Rule::delta: U[x] = (a - 1) * S[x] + beta * k[i] * (v[j] - a * pred[j]); break;
          case Rule::comba: U[x] = (a - 1) * S[x] + beta * k[i] * (v[j] - pred[j]); break;
          case Rule::titans:
            ZU[x] = (r.eta[t] - 1) * Z[x] - beta * k[i] * (pred[j] - v[j]);
            Z[x] = Z[x] + G[x] * ZU[x];
            U[x] = (a - 1) * S[x] + Z[x];
            break;
          case Rule::gla: {  // (diag(a) - I) S: row i by its own retention
            const double a_i = r.a.empty() ? 1.0 : r.a[t * d_k + i];
            U[x] = (a_i - 1) * S[x] + beta * k[i] * v[j];
            break;
          }
          case Rule::kda: {  // (diag(a) - I) S, and the erase predicts from diag(a) Sg
            const double a_i = r.a.empty() ? 1.0 : r.a[t * d_k + i];
            U[x] = (a_i - 1) * S[x] + beta * k[i] * (v[j] - pred_decayed[j]);
            break;
          }
          case Rule::swla:
            U[x] = (a - 1) * S[x];
            for (int64_t w = 0; w < r.window && w <= t; ++w)
              U[x] += r.gamma[t * r.window + w] * r.k[(t - w) * d_k + i] * r.v[(t - w) * d_v + j];
            break;
        }
      }
    for (int64_t x = 0; x < D; ++x) S[x] = S[x] + G[x] * U[x];
    for (int64_t i = 0; i < d_k; ++i)
      for (int64_t j = 0; j < d_v; ++j) o[t * d_v + j] += G[i * d_v + j] * S[i * d_v + j] * r.q[t * d_k + i];
  }
}

double max_rel_diff(const std::vector<double>& got, const std::vector<double>& want) {
  double num = 0, den = 1e-300;
  for (size_t n = 0; n < want.size(); ++n) {
    num = std::max(num, std::fabs(got[n] - want[n]));
    den = std::max(den, std::fabs(want[n]));
  }
  return num / den;
}

TEST(GatedRule, MatchesTheSpecFormulaForAnyE) {
  const int64_t T = 50, d_k = 4, d_v = 5, D = d_k * d_v;
  for (Rule rule : all_rules())
    for (int64_t E : {1, 2, 3, 4, 6, 20}) {
      RandomRuleInputs<double> r(rule, T, d_k, d_v, 31 * E + 3);
      for (const auto& s : {Schedule::uniform(D, E, 40), Schedule::geometric(D, E, 40), Schedule::power(D, E, 64, 2.0)}) {
        std::vector<double> want_o, want_S, o(T * d_v), S(D);
        spec_gated_forward(r, s, want_o, want_S);
        gated_rule_forward<double>(rule, s, r.view(), o.data(), S.data(), nullptr);
        EXPECT_LT(max_rel_diff(o, want_o), 1e-12) << rule_name(rule) << " E=" << E;
        EXPECT_LT(max_rel_diff(S, want_S), 1e-12) << rule_name(rule) << " E=" << E;
      }
    }
}

TEST(GatedRule, FloatFollowsDouble) {
  const int64_t T = 64, d_k = 8, d_v = 8, D = d_k * d_v;
  for (Rule rule : all_rules()) {
    RandomRuleInputs<double> rd(rule, T, d_k, d_v, 5);
    RandomRuleInputs<float> rf(rule, T, d_k, d_v, 5);
    const auto s = Schedule::uniform(D, 4, T);
    std::vector<double> od(T * d_v);
    std::vector<float> of(T * d_v);
    gated_rule_forward<double>(rule, s, rd.view(), od.data(), nullptr, nullptr);
    gated_rule_forward<float>(rule, s, rf.view(), of.data(), nullptr, nullptr);
    std::vector<double> ofd(of.begin(), of.end());
    EXPECT_LT(max_rel_diff(ofd, od), 1e-4) << rule_name(rule);
  }
}

TEST(GatedRule, RefusesInconsistentInputs) {
  RandomRuleInputs<double> r(Rule::comba, 4, 2, 3, 1);
  std::vector<double> o(4 * 3);
  auto in = r.view();
  try {
    gated_rule_forward<double>(Rule::comba, Schedule::uniform(8, 2, 4), in, o.data(), nullptr, nullptr);
    ADD_FAILURE() << "D mismatch accepted";
  } catch (const proteus::InputError& e) {
    EXPECT_EQ(e.field(), "D");
  }
  in.p = nullptr;
  try {
    gated_rule_forward<double>(Rule::comba, Schedule::uniform(6, 2, 4), in, o.data(), nullptr, nullptr);
    ADD_FAILURE() << "comba without p accepted";
  } catch (const proteus::InputError& e) {
    EXPECT_EQ(e.field(), "p");
  }
}

}  // namespace
