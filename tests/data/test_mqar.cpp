// MQAR against math.md section 6 / Zoology: keys and values in their vocab halves, the context
// layout, every key asked once with its own value as the target, the mask only on answers, the
// power-law gaps, random query order, the spread layout's pair and query positions, and the input
// checks.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>
#include <string>

#include "core/data/mqar.hpp"
#include "core/common/input_error.hpp"
#include "tests/support/input_error_field.hpp"

namespace {

using proteus::InputError;
namespace mqar = proteus::data::mqar;

using proteus::test_support::field_of;

struct Case {
  int T, vocab, pairs;
};

TEST(Mqar, LayoutKeysValuesAndAnswers) {
  std::mt19937_64 rng(1);
  for (const Case c : {Case{64, 8192, 4}, Case{128, 8192, 8}, Case{256, 8192, 16}, Case{64, 65, 16}, Case{9, 10, 2}})
    for (int rep = 0; rep < 50; ++rep) {
      SCOPED_TRACE("T=" + std::to_string(c.T) + " vocab=" + std::to_string(c.vocab) +
                   " pairs=" + std::to_string(c.pairs));
      const auto s = mqar::generate(rng, c.T, c.vocab, c.pairs, 0.01);
      ASSERT_EQ(s.inputs.size(), size_t(c.T));
      ASSERT_EQ(s.targets.size(), size_t(c.T));
      ASSERT_EQ(s.mask.size(), size_t(c.T));
      const int half = c.vocab / 2;
      const size_t context = 2 * size_t(c.pairs);
      std::map<int32_t, int32_t> value_of;
      for (size_t i = 0; i < context; i += 2) {
        const int32_t k = s.inputs[i], v = s.inputs[i + 1];
        EXPECT_TRUE(k >= 1 && k < half) << k;
        EXPECT_TRUE(v >= half && v < c.vocab) << v;
        EXPECT_TRUE(value_of.emplace(k, v).second) << "key " << k << " twice in the context";
      }
      std::set<int32_t> values;
      for (const auto& [k, v] : value_of) values.insert(v);
      EXPECT_EQ(values.size(), size_t(c.pairs)) << "values are distinct";

      std::set<int32_t> asked;
      for (size_t t = context; t < size_t(c.T); ++t) {
        if (s.mask[t] == 1.0f) {
          ASSERT_EQ((t - context) % 2, 0u) << "queries sit at even offsets after the context";
          ASSERT_TRUE(value_of.count(s.inputs[t])) << "a query is a key of the context";
          EXPECT_EQ(s.targets[t], value_of[s.inputs[t]]);
          EXPECT_TRUE(asked.insert(s.inputs[t]).second) << "key asked twice";
        } else {
          EXPECT_EQ(s.mask[t], 0.0f);
          EXPECT_EQ(s.inputs[t], 0) << "filler is token 0";
        }
      }
      EXPECT_EQ(asked.size(), size_t(c.pairs)) << "every key asked once";
      for (size_t t = 0; t < context; ++t) EXPECT_EQ(s.mask[t], 0.0f);
      for (size_t t = 0; t + 1 < size_t(c.T); ++t) {
        if (s.mask[t] == 0.0f) {
          EXPECT_EQ(s.targets[t], s.inputs[t + 1]) << "elsewhere the target is the next input";
        }
      }
    }
}

TEST(Mqar, GapsFollowThePowerLawAndQueriesComeInRandomOrder) {
  std::mt19937_64 rng(2);
  const int T = 256, pairs = 4;
  const size_t slots = (T - 2 * pairs) / 2;  // 124
  auto early_fraction = [&](double alpha, bool& saw_shuffled_order) {
    int early = 0, total = 0;
    for (int rep = 0; rep < 400; ++rep) {
      const auto s = mqar::generate(rng, T, 8192, pairs, alpha);
      std::vector<int32_t> context_keys, query_keys;
      for (size_t i = 0; i < 2 * pairs; i += 2) context_keys.push_back(s.inputs[i]);
      for (size_t t = 2 * pairs; t < size_t(T); ++t)
        if (s.mask[t] == 1.0f) {
          query_keys.push_back(s.inputs[t]);
          early += (t - 2 * pairs) / 2 < slots / 4 ? 1 : 0;
          ++total;
        }
      if (query_keys != context_keys) saw_shuffled_order = true;
    }
    return double(early) / total;
  };
  bool shuffled = false;
  // p(g) ~ (g+1)^(-0.99): most queries come soon after the context.
  EXPECT_GT(early_fraction(0.01, shuffled), 0.6);
  // alpha = 1 is uniform: about a quarter in the first quarter of the slots.
  EXPECT_NEAR(early_fraction(1.0, shuffled), 0.25, 0.05);
  EXPECT_TRUE(shuffled);
}

TEST(Mqar, SameSeedSameSequence) {
  std::mt19937_64 a(5), b(5), c(6);
  const auto x = mqar::generate(a, 128, 8192, 8, 0.01);
  const auto y = mqar::generate(b, 128, 8192, 8, 0.01);
  EXPECT_EQ(x.inputs, y.inputs);
  EXPECT_EQ(x.targets, y.targets);
  EXPECT_NE(x.inputs, mqar::generate(c, 128, 8192, 8, 0.01).inputs);
}

// The spread layout: every pair `k v` and its query `k 0` on two-token slots anywhere in the
// sequence, the query after its pair, pairs and queries interleaved over the whole length.
TEST(Mqar, SpreadLayoutInterleavesPairsAndQueriesOverTheWholeSequence) {
  std::mt19937_64 rng(11);
  int late_pairs = 0, early_queries = 0, interleaved = 0;
  const int reps = 200;
  for (const Case c : {Case{256, 8192, 16}, Case{64, 65, 16}, Case{9, 10, 2}})
    for (int rep = 0; rep < reps; ++rep) {
      SCOPED_TRACE("T=" + std::to_string(c.T) + " pairs=" + std::to_string(c.pairs));
      const auto s = mqar::generate(rng, c.T, c.vocab, c.pairs, 0.01, "spread");
      ASSERT_EQ(s.inputs.size(), size_t(c.T));
      const int half = c.vocab / 2;
      std::map<int32_t, size_t> pair_at, query_at;
      for (size_t t = 0; t < size_t(c.T); ++t) {
        const int32_t x = s.inputs[t];
        if (x == 0) {
          EXPECT_EQ(s.mask[t], 0.0f);
          continue;
        }
        ASSERT_EQ(t % 2, 0u) << "pairs and queries start on even positions";
        ASSERT_TRUE(x >= 1 && x < half) << "only keys start a slot";
        ASSERT_LT(t + 1, size_t(c.T));
        if (s.mask[t] == 1.0f) {
          EXPECT_TRUE(query_at.emplace(x, t).second) << "key asked twice";
          EXPECT_EQ(s.inputs[t + 1], 0) << "a query is the key, then filler";
        } else {
          EXPECT_TRUE(pair_at.emplace(x, t).second) << "key written twice";
          EXPECT_TRUE(s.inputs[t + 1] >= half && s.inputs[t + 1] < c.vocab) << "a pair is the key, then its value";
          ++t;  // the value
        }
      }
      ASSERT_EQ(pair_at.size(), size_t(c.pairs));
      ASSERT_EQ(query_at.size(), size_t(c.pairs));
      size_t last_pair = 0, first_query = size_t(c.T);
      for (const auto& [k, at] : pair_at) {
        ASSERT_TRUE(query_at.count(k)) << "every key is asked";
        EXPECT_GT(query_at[k], at) << "each query comes after its pair";
        EXPECT_EQ(s.targets[query_at[k]], s.inputs[at + 1]) << "the answer is the pair's value";
        last_pair = std::max(last_pair, at);
        first_query = std::min(first_query, query_at[k]);
      }
      if (c.T == 256) {
        late_pairs += last_pair >= size_t(c.T) / 2 ? 1 : 0;
        early_queries += first_query < size_t(c.T) / 2 ? 1 : 0;
        interleaved += first_query < last_pair ? 1 : 0;
      }
    }
  // Unlike pairs-first (every pair in positions 0..2n-1), pairs reach the second half and queries
  // the first, and some query comes before the last pair in nearly every sequence.
  EXPECT_GT(late_pairs, reps * 9 / 10);
  EXPECT_GT(early_queries, reps * 9 / 10);
  EXPECT_GT(interleaved, reps * 9 / 10);
}

TEST(Mqar, PairsFirstIsTheDefaultLayout) {
  std::mt19937_64 a(9), b(9);
  EXPECT_EQ(mqar::layouts(), (std::vector<std::string>{"pairs-first", "spread"}));
  EXPECT_EQ(mqar::generate(a, 128, 8192, 8, 0.01).inputs, mqar::generate(b, 128, 8192, 8, 0.01, "pairs-first").inputs);
  std::mt19937_64 c(10);
  EXPECT_EQ(field_of([&] { mqar::generate(c, 128, 8192, 8, 0.01, "zigzag"); }), "data.mqar.layout");
}

TEST(Mqar, RefusesAVocabNotAboveTheLengthAndPairsThatDoNotFit) {
  std::mt19937_64 rng(7);
  EXPECT_EQ(field_of([&] { mqar::generate(rng, 64, 64, 4, 0.01); }), "data.mqar.vocab");
  EXPECT_EQ(field_of([&] { mqar::generate(rng, 64, 65, 4, 0.01); }), "(no error)");
  EXPECT_EQ(field_of([&] { mqar::generate(rng, 64, 8192, 17, 0.01); }), "data.mqar.pairs");
  EXPECT_EQ(field_of([&] { mqar::generate(rng, 64, 8192, 16, 0.01); }), "(no error)");
  EXPECT_EQ(field_of([&] { mqar::generate(rng, 64, 8192, 0, 0.01); }), "data.mqar.pairs");
  EXPECT_EQ(field_of([&] { mqar::generate(rng, 64, 8192, 4, 0.0); }), "data.mqar.alpha");
}

}  // namespace
