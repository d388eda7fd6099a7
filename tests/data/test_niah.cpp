// NIAH generators against math.md section 6 and RULER: every task's needles and values (each value
// exactly as often as it was inserted), the haystack kinds, depth placement (every needle at its
// own depth), exact prompt length, the templates word for word, RULER's depths, string_match_all,
// and training samples (the question at varied positions, filler after the answer).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <functional>
#include <memory>
#include <set>

#include "core/data/niah.hpp"
#include "core/common/input_error.hpp"
#include "tests/data/temp_corpus.hpp"
#include "tests/support/input_error_field.hpp"

namespace {

using proteus::InputError;
using proteus::data::ByteCorpus;
using proteus::data::Split;
namespace niah = proteus::data::niah;

const ByteCorpus& brown() {
  static const auto corpus =
      std::make_unique<ByteCorpus>(ByteCorpus::load(proteus::data::testing::default_corpus_path(), 0.05));
  return *corpus;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  size_t from = 0;
  for (size_t at; (at = text.find('\n', from)) != std::string::npos; from = at + 1)
    out.push_back(text.substr(from, at - from));
  out.push_back(text.substr(from));
  return out;
}

using proteus::test_support::field_of;

struct Shape {
  const char* task;
  size_t keys_in_context;  // distinct keys inserted
  size_t values_asked;
  size_t keys_asked;
  bool uuid_values;
};

const Shape kShapes[] = {
    {"s-niah-1", 1, 1, 1, false},  {"s-niah-2", 1, 1, 1, false},  {"s-niah-3", 1, 1, 1, true},
    {"mk-niah-1", 4, 1, 1, false}, {"mk-niah-2", 1, 1, 1, false}, {"mk-niah-3", 1, 1, 1, true},
    {"mv-niah", 1, 4, 1, false},   {"mq-niah", 4, 4, 4, false},
};

// Shapes of keys and values, checked character by character.
bool is_number7(const std::string& v) {
  return v.size() == 7 && v[0] >= '1' && v[0] <= '9' &&
         std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; });
}
bool is_uuid4(const std::string& v) {
  if (v.size() != 36 || v[14] != '4' || std::string("89ab").find(v[19]) == std::string::npos) return false;
  for (size_t i = 0; i < v.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash != (v[i] == '-')) return false;
    if (!dash && std::string("0123456789abcdef").find(v[i]) == std::string::npos) return false;
  }
  return true;
}
bool is_word_key(const std::string& k) {
  const size_t dash = k.find('-');
  return dash != std::string::npos && dash > 0 && dash + 1 < k.size() && k.find('-', dash + 1) == std::string::npos &&
         std::all_of(k.begin(), k.end(), [](char c) { return c == '-' || (c >= 'a' && c <= 'z'); });
}

// "One of the special magic {type} for KEY is: VALUE." -> (KEY, VALUE); false for any other line.
bool parse_needle(const std::string& line, const std::string& type, std::string& key, std::string& value) {
  const std::string head = "One of the special magic " + type + " for ";
  const size_t is = line.find(" is: ");
  if (line.rfind(head, 0) != 0 || is == std::string::npos || line.back() != '.') return false;
  key = line.substr(head.size(), is - head.size());
  value = line.substr(is + 5, line.size() - is - 6);
  return key.find(' ') == std::string::npos && value.find(' ') == std::string::npos;
}

TEST(Niah, TaskListIsRulers) {
  EXPECT_EQ(niah::task_names(), (std::vector<std::string>{"s-niah-1", "s-niah-2", "s-niah-3", "mk-niah-1", "mk-niah-2",
                                                          "mk-niah-3", "mv-niah", "mq-niah"}));
  EXPECT_FALSE(niah::uses_essay("s-niah-1"));
  EXPECT_TRUE(niah::uses_essay("s-niah-2"));
  EXPECT_FALSE(niah::uses_essay("mk-niah-2"));
  EXPECT_TRUE(niah::uses_essay("mq-niah"));
}

TEST(Niah, EveryTaskHasItsNeedlesValuesAndLength) {
  std::mt19937_64 rng(3);
  for (const Shape& shape : kShapes)
    for (const std::string style : {"short", "ruler"})
      for (int length : {700, 1500, 4096})
        for (int depth : {0, 26, 51, 74, 100}) {
          SCOPED_TRACE(std::string(shape.task) + " " + style + " length " + std::to_string(length) + " depth " +
                       std::to_string(depth));
          const auto s = niah::generate(shape.task, length, depth, rng, style, &brown(), Split::val);
          ASSERT_EQ(s.prompt().size(), size_t(length));
          ASSERT_EQ(s.expected.size(), shape.values_asked);
          ASSERT_EQ(s.keys.size(), shape.keys_asked);
          EXPECT_EQ(s.depth, depth);
          std::string answer = " ";
          for (size_t i = 0; i < s.expected.size(); ++i) answer += (i ? ", " : "") + s.expected[i];
          EXPECT_EQ(s.answer, answer + ".\n");
          const std::string type = shape.uuid_values ? "uuids" : "numbers";
          for (const auto& v : s.expected) {
            EXPECT_TRUE(shape.uuid_values ? is_uuid4(v) : is_number7(v)) << v;
            EXPECT_EQ(count(s.context, v), 1u) << v;  // once in its needle, nowhere else
            EXPECT_EQ(count(s.question, v), 0u) << v;
          }
          const size_t per_key = shape.values_asked / shape.keys_asked;
          for (const auto& k : s.keys) {
            EXPECT_EQ(count(s.context, "One of the special magic " + type + " for " + k + " is: "), per_key) << k;
            EXPECT_EQ(count(s.context, k), per_key) << k;
            EXPECT_EQ(count(s.question, k), style == std::string("ruler") ? 2u : 1u) << k;
          }
          for (size_t i = 0; i + 1 < s.keys.size(); ++i) EXPECT_NE(s.keys[i], s.keys[i + 1]);
          EXPECT_EQ(s.context.compare(s.needle_offset, 25, "One of the special magic "), 0);
          if (niah::uses_essay(shape.task)) {
            // Every needle of an essay task is one of the sample's own: 1, 4 (MK-1, MQ) or 4 values (MV).
            EXPECT_EQ(count(s.context, "One of the special magic"),
                      std::max(shape.keys_in_context, shape.values_asked));
            const size_t head = style == std::string("ruler") ? s.context.find('\n') + 1 : 0;
            EXPECT_EQ(s.context.find('\n', head), std::string::npos) << "essay whitespace is collapsed";
          }
        }
}

TEST(Niah, NeedleSitsNearTheRequestedDepth) {
  std::mt19937_64 rng(5);
  for (const char* task : {"s-niah-1", "s-niah-2", "s-niah-3", "mk-niah-2", "mk-niah-3", "mv-niah", "mq-niah"})
    for (int depth : {0, 10, 26, 51, 74, 90, 100})
      for (int rep = 0; rep < 3; ++rep) {
        const auto s = niah::generate(task, 8192, depth, rng, "short", &brown(), Split::train);
        const double at = double(s.needle_offset) / double(s.context.size());
        EXPECT_NEAR(at, depth / 100.0, 0.07) << task << " depth " << depth;
      }
  // The ends exactly: depth 0 starts the context, depth 100 is the last line of a line haystack.
  const auto first = niah::generate("s-niah-1", 2000, 0, rng, "short");
  EXPECT_EQ(first.needle_offset, 0u);
  const auto last = niah::generate("s-niah-1", 2000, 100, rng, "short");
  EXPECT_EQ(last.context.find('\n', last.needle_offset), std::string::npos);
  EXPECT_EQ(last.context.substr(last.needle_offset),
            "One of the special magic numbers for " + last.keys[0] + " is: " + last.expected[0] + ".");
}

// RULER places every needle at its own depth. Here the first asked needle (the answer's first
// value) sits at the requested depth and every other needle at a distinct one of RULER's 40
// depths; each asked needle is found in the context near the depth recorded for it.
TEST(Niah, EveryNeedleSitsAtItsOwnDepth) {
  std::mt19937_64 rng(47);
  const std::vector<int> ruler = niah::ruler_depths();
  for (const char* task : {"mv-niah", "mq-niah", "mk-niah-1"}) {
    double widest = 0;
    for (int depth : {0, 26, 50, 74, 100})
      for (int rep = 0; rep < 6; ++rep) {
        SCOPED_TRACE(std::string(task) + " depth " + std::to_string(depth));
        const auto s = niah::generate(task, 8192, depth, rng, "short", &brown(), Split::train);
        ASSERT_EQ(s.needle_depths.size(), s.expected.size());
        ASSERT_EQ(s.needle_offsets.size(), s.expected.size());
        EXPECT_EQ(s.needle_depths[0], depth);
        EXPECT_EQ(s.needle_offset, s.needle_offsets[0]);
        std::set<int> others;
        for (size_t i = 1; i < s.needle_depths.size(); ++i) {
          EXPECT_NE(s.needle_depths[i], depth);
          EXPECT_TRUE(std::count(ruler.begin(), ruler.end(), s.needle_depths[i])) << s.needle_depths[i];
          EXPECT_TRUE(others.insert(s.needle_depths[i]).second) << "drawn without replacement";
        }
        for (size_t i = 0; i < s.expected.size(); ++i) {
          // The needle at offsets[i] is the one holding expected[i] (MQ: under keys[i]).
          const std::string key = s.keys[std::min(i, s.keys.size() - 1)];
          const std::string needle = "One of the special magic numbers for " + key + " is: " + s.expected[i] + ".";
          EXPECT_EQ(s.context.compare(s.needle_offsets[i], needle.size(), needle), 0) << i;
          const double at = double(s.needle_offsets[i]) / double(s.context.size());
          EXPECT_NEAR(at, s.needle_depths[i] / 100.0, 0.07) << "needle " << i;
        }
        const auto [lo, hi] = std::minmax_element(s.needle_offsets.begin(), s.needle_offsets.end());
        widest = std::max(widest, double(*hi - *lo) / double(s.context.size()));
      }
    if (std::string(task) != "mk-niah-1") {
      EXPECT_GT(widest, 0.5) << task << ": asked needles do not sit together";
    }
  }
  // MK-NIAH-1's three unasked needles go at RULER depths too: the four spread over the context
  // (they sat together before only if drawn so).
  int spread = 0;
  for (int rep = 0; rep < 20; ++rep) {
    const auto s = niah::generate("mk-niah-1", 8192, 51, rng, "short", &brown(), Split::train);
    std::vector<size_t> at;
    const std::string head = "One of the special magic numbers for ";
    for (size_t p = s.context.find(head); p != std::string::npos; p = s.context.find(head, p + 1)) at.push_back(p);
    ASSERT_EQ(at.size(), 4u);
    spread += double(at.back() - at.front()) / double(s.context.size()) > 0.2 ? 1 : 0;
  }
  EXPECT_GE(spread, 15);
}

TEST(Niah, NoiseHaystackIsTheRulerBlockPerLine) {
  std::mt19937_64 rng(9);
  const auto s = niah::generate("s-niah-1", 3000, 51, rng, "short");
  const auto lines = lines_of(s.context);
  const std::string noise = "The grass is green. The sky is blue. The sun is yellow. Here we go. There and back again.";
  size_t needles = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].rfind("One of the special magic numbers for ", 0) == 0) {
      ++needles;
    } else if (i + 1 < lines.size()) {
      EXPECT_EQ(lines[i], noise);
    } else {
      EXPECT_EQ(noise.rfind(lines[i], 0), 0u) << "the last line may only be cut short";
    }
  }
  EXPECT_EQ(needles, 1u);
}

TEST(Niah, NeedleHaystackLinesAreDistractorsWithOtherKeys) {
  std::mt19937_64 rng(13);
  for (const char* task : {"mk-niah-2", "mk-niah-3"}) {
    const bool uuid = std::string(task) == "mk-niah-3";
    const std::string type = uuid ? "uuids" : "numbers";
    const auto s = niah::generate(task, 4000, 30, rng, "short");
    const auto lines = lines_of(s.context);
    size_t asked = 0, distractors = 0;
    for (size_t i = 0; i + 1 < lines.size(); ++i) {  // the last line may be cut short
      std::string key, value;
      ASSERT_TRUE(parse_needle(lines[i], type, key, value)) << lines[i];
      EXPECT_TRUE(uuid ? is_uuid4(key) : is_word_key(key)) << key;
      EXPECT_TRUE(uuid ? is_uuid4(value) : is_number7(value)) << value;
      if (key == s.keys[0]) {
        ++asked;
        EXPECT_EQ(value, s.expected[0]);
      } else {
        ++distractors;
        EXPECT_NE(value, s.expected[0]);
      }
    }
    EXPECT_EQ(asked, 1u) << task;
    EXPECT_GT(distractors, 30u) << task;
  }
}

TEST(Niah, MultiKeyOneHasFourKeysOneAsked) {
  std::mt19937_64 rng(17);
  const auto s = niah::generate("mk-niah-1", 3000, 40, rng, "short", &brown());
  std::set<std::string> keys;
  const std::string head = "One of the special magic numbers for ";
  for (size_t at = s.context.find(head); at != std::string::npos; at = s.context.find(head, at + 1)) {
    const size_t end = s.context.find('.', s.context.find(" is: ", at));
    std::string key, value;
    ASSERT_TRUE(parse_needle(s.context.substr(at, end + 1 - at), "numbers", key, value));
    EXPECT_TRUE(is_word_key(key)) << key;
    EXPECT_TRUE(is_number7(value)) << value;
    keys.insert(key);
    EXPECT_EQ(count(s.context, value), 1u);
  }
  EXPECT_EQ(keys.size(), 4u);
  EXPECT_TRUE(keys.count(s.keys[0]));
}

TEST(Niah, KeysAndValuesThatTheEssayHoldsAreNotUsed) {
  // A corpus that names a fifth of all keys: a sample using one would show it twice.
  std::vector<proteus::data::Document> docs;
  for (size_t a = 0; a < 10; ++a) {
    std::string text;
    for (const auto& n : niah::key_nouns()) text += "The " + niah::key_adjectives()[a] + "-" + n + " was here. ";
    docs.push_back({"keys" + std::to_string(a) + ".txt", text});
  }
  const auto corpus = ByteCorpus::from_documents(docs, 0.2);
  std::mt19937_64 rng(41);
  for (int rep = 0; rep < 100; ++rep) {
    const auto s = niah::generate("s-niah-2", 1500, 50, rng, "short", &corpus, Split::train);
    ASSERT_EQ(count(s.context, s.keys[0]), 1u) << s.keys[0];
  }
}

TEST(Niah, RulerTemplatesWordForWord) {
  std::mt19937_64 rng(19);
  const auto one = niah::generate("s-niah-2", 2000, 50, rng, "ruler", &brown());
  const std::string k = one.keys[0];
  EXPECT_EQ(one.context.rfind("A special magic number is hidden within the following text. Make sure to memorize it. "
                              "I will quiz you about the number afterwards.\n",
                              0),
            0u);
  EXPECT_EQ(one.question, "\nWhat is the special magic number for " + k +
                              " mentioned in the provided text? The special magic number for " + k +
                              " mentioned in the provided text is");

  const auto uuid = niah::generate("mk-niah-3", 2000, 50, rng, "ruler");
  EXPECT_EQ(uuid.question, "\nWhat is the special magic uuid for " + uuid.keys[0] +
                               " mentioned in the provided text? The special magic uuid for " + uuid.keys[0] +
                               " mentioned in the provided text is");

  const auto many = niah::generate("mq-niah", 2000, 50, rng, "ruler", &brown());
  const std::string q = many.keys[0] + ", " + many.keys[1] + ", " + many.keys[2] + ", and " + many.keys[3];
  EXPECT_EQ(many.context.rfind("Some special magic numbers are hidden within the following text. Make sure to memorize "
                               "it. I will quiz you about the numbers afterwards.\n",
                               0),
            0u);
  EXPECT_EQ(many.question, "\nWhat are all the special magic numbers for " + q +
                               " mentioned in the provided text? The special magic numbers for " + q +
                               " mentioned in the provided text are");
  // The values are in the answer in the order the question names their keys.
  for (size_t i = 0; i < 4; ++i)
    EXPECT_EQ(count(many.context, "for " + many.keys[i] + " is: " + many.expected[i] + "."), 1u);
}

TEST(Niah, ShortTemplates) {
  std::mt19937_64 rng(23);
  const auto one = niah::generate("s-niah-1", 500, 50, rng, "short");
  EXPECT_EQ(one.question, "\nQ: magic number for " + one.keys[0] + "?\nA:");
  const auto uuid = niah::generate("s-niah-3", 500, 50, rng, "short", &brown());
  EXPECT_EQ(uuid.question, "\nQ: magic uuid for " + uuid.keys[0] + "?\nA:");
  const auto mv = niah::generate("mv-niah", 800, 50, rng, "short", &brown());
  EXPECT_EQ(mv.question, "\nQ: magic numbers for " + mv.keys[0] + "?\nA:");
  EXPECT_EQ(mv.context.find("special magic numbers are hidden"), std::string::npos) << "no preamble in the short style";
  EXPECT_EQ(mv.context.find("special magic number is hidden"), std::string::npos);
}

TEST(Niah, ShortestLengthWorksAndShorterIsRefused) {
  std::mt19937_64 rng(29);
  for (const auto& task : niah::task_names())
    for (const std::string style : {"short", "ruler"}) {
      const int least = niah::min_total_length(task, style);
      for (int rep = 0; rep < 5; ++rep)
        EXPECT_EQ(niah::generate(task, least, 50, rng, style, &brown()).prompt().size(), size_t(least)) << task;
      EXPECT_EQ(field_of([&] { niah::generate(task, least - 1, 50, rng, style, &brown()); }), "total_length") << task;
    }
  EXPECT_EQ(field_of([&] { niah::generate("s-niah-2", 1000, 50, rng, "short", nullptr); }), "essay");
  EXPECT_EQ(field_of([&] { niah::generate("s-niah-9", 1000, 50, rng); }), "task");
  EXPECT_EQ(field_of([&] { niah::generate("s-niah-1", 1000, 101, rng); }), "depth");
  EXPECT_EQ(field_of([&] { niah::generate("s-niah-1", 1000, -1, rng); }), "depth");
  EXPECT_EQ(field_of([&] { niah::generate("s-niah-1", 1000, 50, rng, "long"); }), "question");
}

TEST(Niah, KeysAreNeverSubstringsOfOtherKeys) {
  EXPECT_EQ(niah::key_adjectives().size(), 50u);
  EXPECT_EQ(niah::key_nouns().size(), 50u);
  std::vector<std::string> keys;
  for (const auto& a : niah::key_adjectives())
    for (const auto& n : niah::key_nouns()) keys.push_back(a + "-" + n);
  std::set<std::string> distinct(keys.begin(), keys.end());
  EXPECT_EQ(distinct.size(), 2500u);
  for (const auto& a : keys)
    for (const auto& b : keys)
      if (a != b && b.find(a) != std::string::npos) FAIL() << a << " is inside " << b;
}

TEST(Niah, RulerDepthsAndEvenSubsets) {
  const auto d = niah::ruler_depths();
  ASSERT_EQ(d.size(), 40u);
  EXPECT_EQ(d[0], 0);
  EXPECT_EQ(d[1], 3);    // 100/39 = 2.56
  EXPECT_EQ(d[20], 51);  // 2000/39 = 51.3
  EXPECT_EQ(d[39], 100);
  for (size_t i = 1; i < d.size(); ++i) EXPECT_GT(d[i], d[i - 1]);
  EXPECT_EQ(niah::depths(40), d);
  EXPECT_EQ(niah::depths(5), (std::vector<int>{0, 26, 51, 74, 100}));
  EXPECT_EQ(niah::depths(2), (std::vector<int>{0, 100}));
  EXPECT_EQ(niah::depths(1), (std::vector<int>{0}));
  EXPECT_EQ(field_of([] { niah::depths(0); }), "eval.niah.depths");
  EXPECT_EQ(field_of([] { niah::depths(41); }), "eval.niah.depths");
}

TEST(Niah, StringMatchAllGivesPartialCreditCaseInsensitively) {
  EXPECT_DOUBLE_EQ(niah::string_match_all(" 1234567.", {"1234567"}), 1.0);
  EXPECT_DOUBLE_EQ(niah::string_match_all(" 1234568.", {"1234567"}), 0.0);
  EXPECT_DOUBLE_EQ(
      niah::string_match_all("1111111, 3333333 and more text", {"1111111", "2222222", "3333333", "4444444"}), 0.5);
  EXPECT_DOUBLE_EQ(
      niah::string_match_all("AB12CDEF-0000-4000-8000-00000000ABCD", {"ab12cdef-0000-4000-8000-00000000abcd"}), 1.0);
  EXPECT_DOUBLE_EQ(niah::string_match_all("", {"1"}), 0.0);
  EXPECT_EQ(field_of([] { niah::string_match_all("x", {}); }), "expected");
}

TEST(Niah, TrainingSampleIsPromptAnswerThenFillerWithAnswerMask) {
  std::mt19937_64 rng(31);
  for (const auto& task : niah::task_names()) {
    const int seq_len = 1024;
    const auto t = niah::make_training_sample(rng, seq_len, {task}, "short", &brown(), Split::train);
    ASSERT_EQ(t.tokens.size(), size_t(seq_len + 1));
    ASSERT_EQ(t.weights.size(), size_t(seq_len));
    ASSERT_EQ(t.answer_mask.size(), size_t(seq_len));
    EXPECT_EQ(t.sample.task, task);
    std::string text;
    for (int32_t b : t.tokens) text += char(b);
    const std::string sample = t.sample.prompt() + t.sample.answer;
    ASSERT_EQ(t.sample_length, sample.size());
    EXPECT_EQ(text.substr(0, sample.size()), sample) << "the row opens with the prompt and its answer";
    EXPECT_EQ(sample.back(), '\n');
    EXPECT_TRUE(brown().stream(Split::train).find(text.substr(sample.size(), 64)) != std::string::npos ||
                sample.size() + 64 > text.size())
        << "corpus text follows the answer";
    for (float w : t.weights) EXPECT_EQ(w, 1.0f);
    std::string masked;
    for (size_t i = 0; i < t.answer_mask.size(); ++i)
      if (t.answer_mask[i]) masked += char(t.tokens[i + 1]);  // the target of position i
    EXPECT_EQ(masked, t.sample.answer) << task;
    EXPECT_EQ(niah::string_match_all(masked, t.sample.expected), 1.0);
    EXPECT_EQ(int(t.sample.answer.size()), niah::answer_length(task));
  }
}

// The question sits anywhere from a quarter of the row to its end, not always at the end: the
// answer's last byte (its '\n') is at sample_length - 1, uniform over [max(shortest, L/4), L + 1].
TEST(Niah, TrainingRowsPutTheQuestionAtVariedPositions) {
  std::mt19937_64 rng(43);
  const int seq_len = 1024;
  const int shortest = niah::min_total_length("s-niah-1", "short") + niah::answer_length("s-niah-1");
  ASSERT_LT(shortest, seq_len / 4);
  std::vector<int> quarter(4, 0);
  size_t lo = SIZE_MAX, hi = 0;
  const int rows = 400;
  for (int i = 0; i < rows; ++i) {
    const auto t = niah::make_training_sample(rng, seq_len, {"s-niah-1"}, "short", nullptr);
    ASSERT_EQ(t.tokens.size(), size_t(seq_len + 1));
    const size_t n = t.sample_length;
    ASSERT_GE(n, size_t(seq_len / 4));
    ASSERT_LE(n, size_t(seq_len + 1));
    lo = std::min(lo, n);
    hi = std::max(hi, n);
    // The question ends where the answer begins, and the mask marks exactly the answer there.
    const size_t question_end = n - t.sample.answer.size();
    std::string text;
    for (int32_t b : t.tokens) text += char(b);
    EXPECT_EQ(text.substr(question_end - t.sample.question.size(), t.sample.question.size()), t.sample.question);
    for (size_t p = 0; p < t.answer_mask.size(); ++p)
      EXPECT_EQ(t.answer_mask[p], p + 1 >= question_end && p + 1 < n ? 1 : 0) << p;
    // Without a corpus the noise haystack's lines fill the rest of the row.
    const std::string noise =
        "The grass is green. The sky is blue. The sun is yellow. Here we go. There and back again.\n";
    std::string expected_fill;
    while (expected_fill.size() < text.size() - n) expected_fill += noise;
    expected_fill.resize(text.size() - n);
    EXPECT_EQ(text.substr(n), expected_fill);
    // The position of the question, in quarters of [L/4, L]: each gets about a quarter.
    const double f = (double(n) - seq_len / 4.0) / (seq_len + 1 - seq_len / 4.0);
    ++quarter[size_t(std::min(3, int(f * 4)))];
  }
  EXPECT_LT(lo, size_t(seq_len / 4 + 40)) << "some rows end their sample near a quarter of the row";
  EXPECT_GT(hi, size_t(seq_len - 40)) << "some near its end";
  for (int q : quarter) EXPECT_NEAR(double(q) / rows, 0.25, 0.07);
}

TEST(Niah, TrainingSamplesRepeatWithTheSeedAndVaryTheTask) {
  const std::vector<std::string> tasks = {"s-niah-1", "mk-niah-2", "s-niah-2"};
  std::mt19937_64 a(37), b(37);
  std::set<std::string> seen;
  for (int i = 0; i < 30; ++i) {
    const auto x = niah::make_training_sample(a, 512, tasks, "short", &brown());
    const auto y = niah::make_training_sample(b, 512, tasks, "short", &brown());
    EXPECT_EQ(x.tokens, y.tokens);
    seen.insert(x.sample.task);
  }
  EXPECT_EQ(seen.size(), 3u);
  std::mt19937_64 c(1);
  EXPECT_EQ(field_of([&] { niah::make_training_sample(c, 64, {"s-niah-1"}, "short", nullptr); }), "seq_len");
}

}  // namespace
