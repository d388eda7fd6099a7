// The token needle task (core/data/needle.hpp): the vocabulary's disjoint ranges, the prompt's
// structure (filler haystack, needles `k v`, the question `0 k`), the asked needle at its depth,
// distractors with their own keys and values at uniform depths, training rows with the question
// at varied positions and only the answer weighted, and the input checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>

#include "core/data/needle.hpp"
#include "tests/support/input_error_field.hpp"

namespace {

namespace needle = proteus::data::needle;
using proteus::config::NeedleConfig;
using proteus::test_support::field_of;

NeedleConfig config(int vocab = 64, int distractors = 3) {
  NeedleConfig c;
  c.vocab = vocab;
  c.distractors = distractors;
  return c;
}

TEST(Needle, VocabularyRangesAreDisjointAndCoverIt) {
  const auto v = needle::vocab_layout(64);
  EXPECT_EQ(v.key_lo, 1);
  EXPECT_EQ(v.key_hi, 16);  // q = floor(63 / 4) = 15 keys
  EXPECT_EQ(v.value_lo, 16);
  EXPECT_EQ(v.value_hi, 31);
  EXPECT_EQ(v.filler_lo, 31);
  EXPECT_EQ(v.filler_hi, 64);
  EXPECT_EQ(needle::kQuestion, 0);
  EXPECT_EQ(needle::forms(), (std::vector<std::string>{"single", "multikey"}));
}

// Every prompt: filler everywhere except the needles and the closing question; each needle is a
// key followed by its value; the question asks the asked needle's key; the depth is the share of
// filler before the asked needle.
TEST(Needle, PromptHoldsItsNeedlesAndTheQuestion) {
  std::mt19937_64 rng(1);
  const NeedleConfig cfg = config();
  const auto v = needle::vocab_layout(cfg.vocab);
  for (const std::string form : {"single", "multikey"})
    for (int length : {10, 64, 257})
      for (int depth : {0, 26, 51, 74, 100})
        for (int rep = 0; rep < 10; ++rep) {
          SCOPED_TRACE(form + " length " + std::to_string(length) + " depth " + std::to_string(depth));
          const auto s = needle::generate(cfg, form, length, depth, rng);
          ASSERT_EQ(s.prompt.size(), size_t(length));
          EXPECT_EQ(s.form, form);
          EXPECT_EQ(s.depth, depth);
          EXPECT_EQ(s.prompt[size_t(length) - 2], needle::kQuestion);
          EXPECT_EQ(s.prompt[size_t(length) - 1], s.key);
          EXPECT_TRUE(s.key >= v.key_lo && s.key < v.key_hi);
          EXPECT_TRUE(s.value >= v.value_lo && s.value < v.value_hi);
          const size_t m = form == "multikey" ? 4 : 1;
          ASSERT_EQ(s.distractors_at.size(), m - 1);

          // Walk the context: every key starts a needle whose next token is a value.
          std::map<int32_t, int32_t> value_of;
          std::set<int32_t> values;
          std::vector<size_t> needle_starts;
          size_t filler = 0, filler_before_asked = 0;
          for (size_t t = 0; t + 2 < size_t(length); ++t) {
            const int32_t x = s.prompt[t];
            if (x >= v.filler_lo && x < v.filler_hi) {
              ++filler;
              continue;
            }
            ASSERT_TRUE(x >= v.key_lo && x < v.key_hi) << "token " << x << " at " << t;
            const int32_t y = s.prompt[t + 1];
            ASSERT_TRUE(y >= v.value_lo && y < v.value_hi) << "a key is followed by its value";
            EXPECT_TRUE(value_of.emplace(x, y).second) << "keys are distinct";
            EXPECT_TRUE(values.insert(y).second) << "values are distinct";
            if (t == s.needle_at) filler_before_asked = filler;
            needle_starts.push_back(t);
            ++t;
          }
          ASSERT_EQ(value_of.size(), m);
          EXPECT_EQ(value_of.at(s.key), s.value) << "the asked key's needle holds the answer";
          EXPECT_EQ(s.prompt[s.needle_at], s.key);
          for (size_t at : s.distractors_at) EXPECT_NE(s.prompt[at], s.key);
          const size_t H = size_t(length) - 2 - 2 * m;
          EXPECT_EQ(filler, H);
          EXPECT_EQ(filler_before_asked, s.filler_before);
          EXPECT_EQ(s.filler_before, size_t(std::lround(depth / 100.0 * double(H))));
        }
}

// Depth 0 opens the context with the asked needle; depth 100 puts it right before the question.
TEST(Needle, DepthEndsAreTheContextsEnds) {
  std::mt19937_64 rng(2);
  const NeedleConfig cfg = config();
  for (int rep = 0; rep < 20; ++rep) {
    const auto first = needle::generate(cfg, "single", 100, 0, rng);
    EXPECT_EQ(first.needle_at, 0u);
    const auto last = needle::generate(cfg, "single", 100, 100, rng);
    EXPECT_EQ(last.needle_at, 96u);
    EXPECT_EQ(last.prompt[97], last.value);
  }
}

// Distractors sit at uniform depths: across prompts, their share of filler before them covers
// each quarter of the context about equally, independently of where the asked needle is.
TEST(Needle, DistractorsSitAtUniformDepths) {
  std::mt19937_64 rng(3);
  const NeedleConfig cfg = config();
  const int length = 410;  // H = 400
  std::vector<int> quarter(4, 0);
  int n = 0;
  for (int rep = 0; rep < 500; ++rep) {
    const auto s = needle::generate(cfg, "multikey", length, 0, rng);
    for (size_t at : s.distractors_at) {
      // Filler before a distractor: its index less the needle tokens before it.
      size_t needles_before = 0;
      for (size_t other : s.distractors_at) needles_before += other < at ? 1 : 0;
      needles_before += s.needle_at < at ? 1 : 0;
      const double share = double(at - 2 * needles_before) / 400.0;
      ++quarter[size_t(std::min(3, int(share * 4)))];
      ++n;
    }
  }
  for (int q : quarter) EXPECT_NEAR(double(q) / n, 0.25, 0.04);
}

TEST(Needle, TrainingRowsAskAtVariedPositionsAndWeighOnlyTheAnswer) {
  std::mt19937_64 rng(4);
  const NeedleConfig cfg = config();
  const int seq_len = 256;
  std::map<std::string, int> forms;
  std::vector<int> quarter(4, 0), depth_quarter(4, 0);
  const int rows = 800;
  for (int i = 0; i < rows; ++i) {
    const auto row = needle::make_training_row(cfg, seq_len, rng);
    ASSERT_EQ(row.tokens.size(), size_t(seq_len + 1));
    ASSERT_EQ(row.weights.size(), size_t(seq_len));
    ++forms[row.sample.form];
    const size_t n = row.prompt_length;
    ASSERT_GE(n, size_t(seq_len / 4));
    ASSERT_LE(n, size_t(seq_len));
    EXPECT_EQ(std::vector<int32_t>(row.tokens.begin(), row.tokens.begin() + long(n)), row.sample.prompt);
    EXPECT_EQ(row.tokens[n], row.sample.value) << "the answer follows the prompt";
    const auto v = needle::vocab_layout(cfg.vocab);
    for (size_t t = n + 1; t < row.tokens.size(); ++t)
      EXPECT_TRUE(row.tokens[t] >= v.filler_lo && row.tokens[t] < v.filler_hi) << "filler after the answer";
    for (size_t t = 0; t < row.weights.size(); ++t) EXPECT_EQ(row.weights[t], t + 1 == n ? 1.0f : 0.0f) << t;
    const double f = (double(n) - seq_len / 4) / (seq_len + 1 - seq_len / 4);
    ++quarter[size_t(std::min(3, int(f * 4)))];
    ++depth_quarter[size_t(std::min(3, row.sample.depth / 25))];
  }
  EXPECT_NEAR(forms["single"] / double(rows), 0.5, 0.06);
  EXPECT_NEAR(forms["multikey"] / double(rows), 0.5, 0.06);
  for (int q : quarter) EXPECT_NEAR(q / double(rows), 0.25, 0.06) << "question position";
  for (int q : depth_quarter) EXPECT_NEAR(q / double(rows), 0.25, 0.06) << "needle depth";
}

TEST(Needle, SameSeedSamePrompt) {
  std::mt19937_64 a(5), b(5), c(6);
  const NeedleConfig cfg = config();
  EXPECT_EQ(needle::generate(cfg, "multikey", 128, 50, a).prompt, needle::generate(cfg, "multikey", 128, 50, b).prompt);
  EXPECT_NE(needle::generate(cfg, "multikey", 128, 50, a).prompt, needle::generate(cfg, "multikey", 128, 50, c).prompt);
}

TEST(Needle, InputErrorsNameTheirField) {
  std::mt19937_64 rng(7);
  const NeedleConfig cfg = config();
  EXPECT_EQ(field_of([&] { needle::generate(cfg, "multikey", 10, 50, rng); }), "(no error)");
  EXPECT_EQ(field_of([&] { needle::generate(cfg, "multikey", 9, 50, rng); }), "length");
  EXPECT_EQ(field_of([&] { needle::generate(cfg, "single", 4, 50, rng); }), "(no error)");
  EXPECT_EQ(field_of([&] { needle::generate(cfg, "single", 3, 50, rng); }), "length");
  EXPECT_EQ(field_of([&] { needle::generate(cfg, "double", 64, 50, rng); }), "form");
  EXPECT_EQ(field_of([&] { needle::generate(cfg, "single", 64, 101, rng); }), "depth");
  EXPECT_EQ(field_of([&] { needle::check(config(17, 3), 64); }), "(no error)");  // 4 keys for 4 needles
  EXPECT_EQ(field_of([&] { needle::check(config(16, 3), 64); }), "data.needle.vocab");
  EXPECT_EQ(field_of([&] { needle::check(config(7, 3), 64); }), "data.needle.vocab");
  EXPECT_EQ(field_of([&] { needle::check(config(64, 0), 64); }), "data.needle.distractors");
  EXPECT_EQ(field_of([&] { needle::check(config(64, 3), 9); }), "data.seq_len");
  NeedleConfig bad = config();
  bad.forms = {"single", "triple"};
  EXPECT_EQ(field_of([&] { needle::check(bad, 64); }), "data.needle.forms[1]");
  bad.forms = {};
  EXPECT_EQ(field_of([&] { needle::check(bad, 64); }), "data.needle.forms");
  bad.forms = {"single"};
  bad.distractors = 0;
  EXPECT_EQ(field_of([&] { needle::check(bad, 64); }), "(no error)") << "distractors only matter to multikey";
}

}  // namespace
