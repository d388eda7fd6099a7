// memory-op's recall_error against a direct computation (tests/support/direct_recall.hpp: a plain
// loop with hand-written masks), for the linear and delta rules, every normalize variant, a
// row-aligned and a ragged schedule; and its shape, its ungated limit and its refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <tuple>

#include "core/memory/memory_op.hpp"
#include "tests/support/direct_recall.hpp"

namespace {

using nlohmann::json;
using proteus::InputError;
using proteus::memory::parse_memory_op;
using proteus::memory::run_memory_op;

// T = 6 associations with random unit keys (d_k = 3) and values (d_v = 2) from a fixed seed.
proteus::test::DirectStream stream(const std::string& rule, const std::string& normalize) {
  proteus::test::DirectStream s;
  s.rule = rule, s.normalize = normalize, s.d_k = 3, s.d_v = 2;
  std::mt19937_64 rng(11);
  std::normal_distribution<double> normal;
  for (int t = 0; t < 6; ++t) {
    std::vector<double> k(3), v(2);
    double n = 0;
    for (auto& x : k) x = normal(rng), n += x * x;
    for (auto& x : k) x /= std::sqrt(n);
    for (auto& x : v) x = normal(rng);
    s.k.push_back(k), s.v.push_back(v), s.beta.push_back(t % 2 ? 1.0 : 0.7);
  }
  return s;
}

json request(const proteus::test::DirectStream& s, int E) {
  json in;
  in["rule"] = s.rule;
  in["E"] = E;
  in["normalize"] = s.normalize;
  in["q"] = s.k;  // the token reads with its own key; recall does not depend on q
  in["k"] = s.k;
  in["v"] = s.v;
  in["beta"] = s.beta;
  in["recall"] = true;
  return in;
}

class RecallAgainstDirect : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(RecallAgainstDirect, EveryStepEveryAssociation) {
  const auto& [rule, normalize] = GetParam();
  // D = 6, N = T = 6. E = 3: blocks of 2 = key rows, Delta = 2: k(t) = 1 1 2 2 3 3.
  // E = 4: blocks of 1 (the last [3, 6)), Delta = 1: k(t) = 1 2 3 4 4 4, ends 1 2 3 6 6 6, so
  // the prefix ends inside a key row at t = 1 and 3.
  for (const auto& [E, ends] : {std::pair{3, std::vector<int>{2, 2, 4, 4, 6, 6}},
                                std::pair{4, std::vector<int>{1, 2, 3, 6, 6, 6}},
                                std::pair{1, std::vector<int>{6, 6, 6, 6, 6, 6}}}) {
    auto s = stream(rule, normalize);
    s.ends = ends;
    const auto direct = proteus::test::direct_recall(s);
    const json out = run_memory_op(parse_memory_op(request(s, E)));
    ASSERT_EQ(out["active_elements"], json(ends)) << "the hand-written masks are the schedule's";
    const json& recall = out["recall_error"];
    ASSERT_EQ(recall.size(), 6u);
    for (size_t t = 0; t < 6; ++t) {
      ASSERT_EQ(recall[t].size(), t + 1) << "row t holds associations 1..t";
      for (size_t i = 0; i <= t; ++i)
        EXPECT_NEAR(recall[t][i].get<double>(), direct[t][i], 1e-12) << "E " << E << " t " << t + 1 << " i " << i + 1;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Rules, RecallAgainstDirect,
                         ::testing::Combine(::testing::Values("linear", "delta"),
                                            ::testing::Values("normalize_then_mask", "mask_then_normalize",
                                                              "capped_renormalize")));

TEST(MemoryOpRecall, DeltaWithOrthonormalKeysRecallsEverythingUngated) {
  // beta = 1 and orthonormal keys: the delta rule stores each association exactly, so every
  // error is 0 at every step (up to rounding); gated (E = 2 of 2 rows) the first token wrote
  // only row 0, whose key is e_0: still exact.
  json in = json::parse(R"({"rule": "delta", "recall": true,
                            "q": [[1, 0], [0, 1]], "k": [[1, 0], [0, 1]], "v": [[2, -1], [0.5, 3]],
                            "beta": [1, 1]})");
  for (int E : {1, 2}) {
    in["E"] = E;
    const json out = run_memory_op(parse_memory_op(in));
    for (const auto& row : out["recall_error"])
      for (const auto& e : row) EXPECT_NEAR(e.get<double>(), 0.0, 1e-15) << "E " << E;
  }
  // A key written while locked: the second key reads row 1, which E = 2 opens only at t = 2.
  in["k"] = json::parse("[[0, 1], [1, 0]]");
  in["q"] = in["k"];
  in["E"] = 2;
  const json out = run_memory_op(parse_memory_op(in));
  // t = 1: k_1 = e_1 is masked to 0, nothing is written; the read is 0, so the error is 1.
  EXPECT_DOUBLE_EQ(out["recall_error"][0][0].get<double>(), 1.0);
}

TEST(MemoryOpRecall, OffByDefaultAndRefusedWhenBad) {
  json in = json::parse(R"({"rule": "linear", "q": [[1, 0]], "k": [[1, 0]], "v": [[1]], "beta": [1]})");
  EXPECT_FALSE(run_memory_op(parse_memory_op(in)).contains("recall_error"));
  in["recall"] = "yes";
  try {
    parse_memory_op(in);
    ADD_FAILURE() << "recall = \"yes\" accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "recall");
  }
  // T (T + 1) / 2 x D reads are bounded before anything runs.
  const int T = 4096;
  in["q"] = json(std::vector<std::vector<double>>(T, {1.0, 0.0}));
  in["k"] = in["q"];
  in["v"] = json(std::vector<std::vector<double>>(T, {1.0, 1.0, 1.0, 1.0}));
  in["beta"] = json(std::vector<double>(T, 1.0));
  in["recall"] = true;
  try {
    parse_memory_op(in);
    ADD_FAILURE() << "a recall of " << T << " tokens accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "recall");
    EXPECT_NE(std::string(e.what()).find("limit"), std::string::npos) << e.what();
  }
  in["recall"] = false;
  EXPECT_NO_THROW(parse_memory_op(in));
}

}  // namespace
