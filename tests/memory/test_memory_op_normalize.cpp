// memory-op's `normalize` (the model's model.mixer.normalize): with E = 1 every variant is the
// ungated rule bit for bit; with E > 1 a hand-checked case shows what each variant does to a key
// written while only some key rows are open; grad.q and grad.k go back through the
// re-normalisation (central differences in float64); bad names are refused by field.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/memory/memory_op.hpp"
#include "tests/memory/random_rule_inputs.hpp"

namespace {

using nlohmann::json;
using proteus::InputError;
using proteus::memory::parse_memory_op;
using proteus::memory::run_memory_op;

const char* const kVariants[] = {"normalize_then_mask", "mask_then_normalize", "capped_renormalize"};

json rows(const std::vector<double>& x, int64_t T, int64_t w) {
  json out = json::array();
  for (int64_t t = 0; t < T; ++t) out.push_back(std::vector<double>(x.begin() + t * w, x.begin() + (t + 1) * w));
  return out;
}

// A random input for `rule` (unit-norm q, k) as IN.json, with dO so grads are computed too.
json random_input(proteus::memory::Rule rule, int64_t E, uint32_t seed) {
  const int64_t T = 7, d_k = 4, d_v = 3;
  proteus::memory::testing::RandomRuleInputs<double> r(rule, T, d_k, d_v, seed);
  json in;
  in["rule"] = proteus::memory::rule_name(rule);
  in["E"] = E;
  in["q"] = rows(r.q, T, d_k);
  in["k"] = rows(r.k, T, d_k);
  in["v"] = rows(r.v, T, d_v);
  if (proteus::memory::rule_uses_beta(rule)) in["beta"] = r.beta;
  if (proteus::memory::rule_traits(rule).per_key_retention) in["a"] = rows(r.a, T, d_k);
  else in["a"] = r.a;
  if (proteus::memory::rule_uses_p(rule)) in["p"] = rows(r.p, T, d_k);
  if (proteus::memory::rule_uses_eta(rule)) in["eta"] = r.eta;
  if (proteus::memory::rule_uses_gamma(rule)) in["gamma"] = rows(r.gamma, T, r.window);
  std::vector<double> dO(T * d_v);
  for (size_t i = 0; i < dO.size(); ++i) dO[i] = std::sin(1.0 + double(i));
  in["dO"] = rows(dO, T, d_v);
  in["recall"] = true;
  return in;
}

TEST(MemoryOpNormalize, EveryVariantIsTheUngatedRuleAtE1) {
  for (auto rule : proteus::memory::all_rules()) {
    json in = random_input(rule, 1, 5);
    const json base = run_memory_op(parse_memory_op(in));  // no normalize field: the default
    EXPECT_EQ(base["normalize"], "normalize_then_mask");
    for (const char* variant : kVariants) {
      in["normalize"] = variant;
      json out = run_memory_op(parse_memory_op(in));
      EXPECT_EQ(out["normalize"], variant);
      out["normalize"] = base["normalize"];
      EXPECT_EQ(out, base) << proteus::memory::rule_name(rule) << " " << variant << ": not bit for bit";
    }
  }
}

// Linear rule, d_k = 2, d_v = 1, E = 2, N = 2: token 1 sees key row 0 only, token 2 both.
// k_1 = q_1 = (0.6, 0.8), v_1 = 1; k_2 = q_2 = (0, 1), v_2 = 1; beta = 1.
//   normalize_then_mask: k~_1 = (0.6, .) -> S_1 = (0.6, 0),   o_1 = 0.6 * 0.6 = 0.36
//   mask_then_normalize: k~_1 = (1, .)   -> S_1 = (1, 0),     o_1 = 1
//   capped_renormalize:  0.6 < floor sqrt(1/2), so k~_1 = 0.6 / sqrt(1/2) = 0.6 sqrt 2
//                        -> S_1 = (0.6 sqrt 2, 0),  o_1 = 0.72
// Token 2 has every row open: no variant touches it, S_2 = S_1 + (0, 1) and o_2 = 1 for all.
json hand_case(const char* variant, double k1_row0, double k1_row1) {
  json in = json::parse(R"({"rule": "linear", "E": 2, "N": 2, "v": [[1], [1]], "beta": [1, 1], "recall": true})");
  in["k"] = json::array({json::array({k1_row0, k1_row1}), json::array({0.0, 1.0})});
  in["q"] = in["k"];
  in["normalize"] = variant;
  return run_memory_op(parse_memory_op(in));
}

TEST(MemoryOpNormalize, HandCheckedKeyWrittenWhileHalfTheRowsAreOpen) {
  const double s2 = std::sqrt(2.0);
  const struct {
    const char* variant;
    double S0, o1;
  } want[] = {{"normalize_then_mask", 0.6, 0.36}, {"mask_then_normalize", 1.0, 1.0}, {"capped_renormalize", 0.6 * s2, 0.72}};
  for (const auto& w : want) {
    const json out = hand_case(w.variant, 0.6, 0.8);
    EXPECT_NEAR(out["o"][0][0].get<double>(), w.o1, 1e-15) << w.variant;
    EXPECT_NEAR(out["o"][1][0].get<double>(), 1.0, 1e-15) << w.variant;
    EXPECT_NEAR(out["S"][0][0].get<double>(), w.S0, 1e-15) << w.variant;
    EXPECT_EQ(out["S"][1][0].get<double>(), 1.0) << w.variant;
    // Recall of association 1 at t = 1 reads S_1 with k~_1: |S_1[0] k~_1[0] - 1|.
    EXPECT_NEAR(out["recall_error"][0][0].get<double>(), std::abs(w.o1 - 1.0), 1e-15) << w.variant;
  }
  // Above the floor (0.8 > sqrt(1/2)) the cap does nothing: capped = mask_then_normalize, and
  // both write k~_1 = (1, .): S_1 = (1, 0).
  const json capped = hand_case("capped_renormalize", 0.8, 0.6);
  const json renorm = hand_case("mask_then_normalize", 0.8, 0.6);
  EXPECT_EQ(capped["S"], renorm["S"]);
  EXPECT_EQ(capped["o"], renorm["o"]);
  EXPECT_DOUBLE_EQ(renorm["S"][0][0].get<double>(), 1.0);
  EXPECT_NEAR(hand_case("normalize_then_mask", 0.8, 0.6)["S"][0][0].get<double>(), 0.8, 1e-15);
}

// L = sum_t <dO_t, o_t>, recomputed from IN.json.
double loss(const json& in) {
  const json out = run_memory_op(parse_memory_op(in));
  double L = 0;
  for (size_t t = 0; t < out["o"].size(); ++t)
    for (size_t j = 0; j < out["o"][t].size(); ++j) L += in["dO"][t][j].get<double>() * out["o"][t][j].get<double>();
  return L;
}

TEST(MemoryOpNormalize, GradientsOfQAndKGoThroughTheRenormalisation) {
  // E = 5 of D = 12: blocks of 2, the prefix ends inside key rows; uniform over N = 7.
  for (auto rule : {proteus::memory::Rule::delta, proteus::memory::Rule::linear, proteus::memory::Rule::titans}) {
    for (const char* variant : {"mask_then_normalize", "capped_renormalize"}) {
      json in = random_input(rule, 5, 9);
      in["normalize"] = variant;
      in.erase("recall");
      const json grad = run_memory_op(parse_memory_op(in))["grad"];
      const double h = 1e-6;
      for (const char* name : {"q", "k"})
        for (size_t t = 0; t < 7; ++t)
          for (size_t i = 0; i < 4; ++i) {
            json up = in, down = in;
            up[name][t][i] = in[name][t][i].get<double>() + h;
            down[name][t][i] = in[name][t][i].get<double>() - h;
            const double fd = (loss(up) - loss(down)) / (2 * h);
            EXPECT_NEAR(grad[name][t][i].get<double>(), fd, 1e-6)
                << proteus::memory::rule_name(rule) << " " << variant << " d" << name << "[" << t << "][" << i << "]";
          }
    }
  }
}

TEST(MemoryOpNormalize, UnknownVariantIsRefusedByField) {
  json in = json::parse(R"({"rule": "linear", "q": [[1, 0]], "k": [[1, 0]], "v": [[1]], "beta": [1]})");
  for (const json& bad : {json("renormalize"), json(1), json(nullptr)}) {
    in["normalize"] = bad;
    try {
      parse_memory_op(in);
      ADD_FAILURE() << "normalize = " << bad.dump() << " accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), "normalize");
      EXPECT_NE(std::string(e.what()).find("mask_then_normalize"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
