// Batches from a DataConfig: row shapes and targets per task (NIAH rows: question, answer, then
// filler; needle rows: one weighted answer), mixture proportions that follow the
// weights, the same batch from the same seed, validation batches fixed across runs and drawn from
// the held-out split, and the config errors naming their field.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>

#include "core/data/batch_source.hpp"
#include "core/data/needle.hpp"
#include "core/common/input_error.hpp"
#include "tests/data/temp_corpus.hpp"
#include "tests/support/input_error_field.hpp"

namespace {

using proteus::InputError;
using proteus::config::DataConfig;
using proteus::config::MixItem;
using proteus::data::Batch;
using proteus::data::BatchSource;
using proteus::data::testing::default_corpus_path;
using proteus::data::testing::TempDir;

using proteus::test_support::field_of;

// A folder of 20 documents, each one repeated letter 'a'..'t'.
class BatchSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const auto& d : proteus::data::testing::letter_documents(20, 400)) dir_.write(d.name, d.text);
  }
  DataConfig config(std::vector<MixItem> mix) const {
    DataConfig d;
    d.seq_len = 128;
    d.batch = 8;
    d.text.path = dir_.path().string();
    d.text.holdout = 0.2;
    d.mix = std::move(mix);
    d.mqar.vocab = 512;
    d.mqar.pairs = 8;
    return d;
  }
  TempDir dir_;
};

TEST_F(BatchSourceTest, TextRowsPredictTheNextByte) {
  const BatchSource source(config({{"text", 1.0}}));
  std::mt19937_64 rng(1);
  const Batch b = source.next_train_batch(rng);
  ASSERT_EQ(b.B, 8);
  ASSERT_EQ(b.T, 128);
  ASSERT_EQ(b.tokens.size(), 8u * 128u);
  ASSERT_EQ(b.targets.size(), 8u * 128u);
  ASSERT_EQ(b.weights.size(), 8u * 128u);
  ASSERT_EQ(b.row_task.size(), 8u);
  for (int r = 0; r < b.B; ++r)
    for (int t = 0; t + 1 < b.T; ++t) EXPECT_EQ(b.targets[size_t(r * b.T + t)], b.tokens[size_t(r * b.T + t + 1)]);
  for (float w : b.weights) EXPECT_EQ(w, 1.0f);
  for (int32_t t : b.tokens) EXPECT_TRUE(t == '\n' || (t >= 'a' && t <= 't')) << t;
}

TEST_F(BatchSourceTest, MixtureFollowsTheWeights) {
  DataConfig cfg = config({{"text", 1.0}, {"niah", 1.0}, {"mqar", 2.0}, {"text", 0.0}});
  cfg.niah.tasks = {"s-niah-1", "mk-niah-2"};
  const BatchSource source(cfg);
  std::mt19937_64 rng(2);
  std::map<std::string, int> rows;
  for (int i = 0; i < 500; ++i) {
    const Batch b = source.next_train_batch(rng);
    for (int r = 0; r < b.B; ++r) {
      const std::string& task = b.row_task[size_t(r)];
      ++rows[task];
      double weight = 0;
      for (int t = 0; t < b.T; ++t) weight += b.weights[size_t(r * b.T + t)];
      if (task == "mqar") {
        EXPECT_EQ(weight, 8.0) << "mqar rows count only their answers";
      } else {
        EXPECT_EQ(weight, double(b.T)) << task << " rows are language modelling";
      }
    }
  }
  const double n = 500.0 * 8.0;
  EXPECT_NEAR(rows["text"] / n, 0.25, 0.03);
  EXPECT_NEAR(rows["niah"] / n, 0.25, 0.03);
  EXPECT_NEAR(rows["mqar"] / n, 0.50, 0.03);
}

// Zoology's mixture: each training row draws its pair count from the list, about equally often;
// `pairs` (the evaluated load) plays no part in the training rows.
TEST_F(BatchSourceTest, MqarTrainPairsMixTheLoadPerRow) {
  DataConfig cfg = config({{"mqar", 1.0}});
  cfg.mqar.train_pairs = {2, 8, 32};
  const BatchSource source(cfg);
  std::mt19937_64 rng(5);
  std::vector<int> drawn;  // answers per row = the row's pairs
  for (int i = 0; i < 150; ++i) {
    const Batch b = source.next_train_batch(rng);
    for (int r = 0; r < b.B; ++r) {
      double weight = 0;
      for (int t = 0; t < b.T; ++t) weight += b.weights[size_t(r * b.T + t)];
      drawn.push_back(int(weight));
    }
  }
  std::map<int, int> rows;
  for (int a : drawn) ++rows[a];
  ASSERT_EQ(rows.size(), 3u) << "every row holds 2, 8 or 32 answers";
  for (int pairs : {2, 8, 32}) EXPECT_NEAR(rows[pairs] / double(drawn.size()), 1.0 / 3.0, 0.05) << pairs;
  DataConfig other = cfg;
  other.mqar.pairs = 16;
  std::mt19937_64 a(7), b(7);
  const Batch x = BatchSource(cfg).next_train_batch(a), y = BatchSource(other).next_train_batch(b);
  EXPECT_EQ(x.tokens, y.tokens);
  EXPECT_EQ(x.targets, y.targets);
}

TEST_F(BatchSourceTest, NiahRowsHoldAQuestionAndItsAnswer) {
  DataConfig cfg = config({{"niah", 1.0}});
  cfg.niah.tasks = {"s-niah-1"};
  const BatchSource source(cfg);
  EXPECT_EQ(source.corpus(), nullptr) << "a noise haystack needs no corpus";
  std::mt19937_64 rng(3);
  const Batch b = source.next_train_batch(rng);
  for (int r = 0; r < b.B; ++r) {
    std::string row;
    for (int t = 0; t < b.T; ++t) row += char(b.tokens[size_t(r * b.T + t)]);
    row += char(b.targets[size_t(r * b.T + b.T - 1)]);
    EXPECT_NE(row.find("One of the special magic numbers for "), std::string::npos);
    const size_t q = row.find("\nQ: magic number for ");
    ASSERT_NE(q, std::string::npos);
    // The answer " 1234567.\n" follows the question; the noise lines fill the row after it.
    const size_t a = row.find("?\nA: ", q);
    ASSERT_NE(a, std::string::npos);
    const size_t end = a + 5 + 7 + 2;
    ASSERT_LE(end, row.size());
    EXPECT_EQ(row.substr(a + 12, 2), ".\n");
    const std::string noise = "The grass is green. The sky is blue. The sun is yellow. Here we go. There and back again.\n";
    for (size_t i = end; i < row.size(); ++i) EXPECT_EQ(row[i], noise[(i - end) % noise.size()]) << i;
  }
}

TEST_F(BatchSourceTest, NeedleRowsCountOnlyTheirAnswer) {
  DataConfig cfg = config({{"needle", 1.0}});
  cfg.needle.vocab = 32;
  const BatchSource source(cfg);
  EXPECT_EQ(source.corpus(), nullptr) << "the token needle task needs no corpus";
  std::mt19937_64 rng(11);
  const auto v = proteus::data::needle::vocab_layout(cfg.needle.vocab);
  for (int i = 0; i < 20; ++i) {
    const Batch b = source.next_train_batch(rng);
    for (int r = 0; r < b.B; ++r) {
      EXPECT_EQ(b.row_task[size_t(r)], "needle");
      int answers = 0;
      for (int t = 0; t < b.T; ++t) {
        const size_t at = size_t(r * b.T + t);
        ASSERT_TRUE(b.tokens[at] >= 0 && b.tokens[at] < cfg.needle.vocab) << b.tokens[at];
        if (b.weights[at] == 0.0f) continue;
        ++answers;
        // The answer's position holds the asked key after the question marker, its target the value.
        ASSERT_GE(t, 1);
        EXPECT_EQ(b.tokens[at - 1], proteus::data::needle::kQuestion);
        EXPECT_TRUE(b.tokens[at] >= v.key_lo && b.tokens[at] < v.key_hi);
        EXPECT_TRUE(b.targets[at] >= v.value_lo && b.targets[at] < v.value_hi);
        EXPECT_GE(t + 1, b.T / 4) << "the question sits at least a quarter into the row";
      }
      EXPECT_EQ(answers, 1);
    }
  }
}

TEST_F(BatchSourceTest, NeedleAnswerWeightScalesOnlyTheAnswer) {
  DataConfig cfg = config({{"needle", 1.0}});
  cfg.needle.vocab = 32;
  cfg.needle.answer_weight = 96;
  const BatchSource source(cfg);
  std::mt19937_64 rng(11);
  const Batch b = source.next_train_batch(rng);
  for (int r = 0; r < b.B; ++r) {
    int weighted = 0;
    for (int t = 0; t < b.T; ++t) {
      const float w = b.weights[size_t(r * b.T + t)];
      if (w == 0.0f) continue;
      ++weighted;
      EXPECT_EQ(w, 96.0f);
      EXPECT_EQ(b.tokens[size_t(r * b.T + t) - 1], proteus::data::needle::kQuestion);
    }
    EXPECT_EQ(weighted, 1);
  }
}

TEST_F(BatchSourceTest, SameSeedSameBatch) {
  DataConfig cfg = config({{"text", 1.0}, {"niah", 1.0}, {"mqar", 1.0}});
  cfg.niah.tasks = {"s-niah-1"};
  const BatchSource one(cfg), two(cfg);
  std::mt19937_64 a(4), b(4), c(5);
  const Batch x = one.next_train_batch(a), y = two.next_train_batch(b), z = one.next_train_batch(c);
  EXPECT_EQ(x.tokens, y.tokens);
  EXPECT_EQ(x.targets, y.targets);
  EXPECT_EQ(x.weights, y.weights);
  EXPECT_EQ(x.row_task, y.row_task);
  EXPECT_NE(x.tokens, z.tokens);
}

TEST_F(BatchSourceTest, ValidationBatchesAreFixedAndHeldOut) {
  const DataConfig cfg = config({{"text", 1.0}});
  const BatchSource one(cfg), two(cfg);
  std::mt19937_64 rng(6);
  one.next_train_batch(rng);  // training draws must not move validation
  const auto v1 = one.val_batches(4);
  const auto v2 = two.val_batches(2);
  ASSERT_EQ(v1.size(), 4u);
  ASSERT_EQ(v2.size(), 2u);
  for (size_t i = 0; i < 2; ++i) EXPECT_EQ(v1[i].tokens, v2[i].tokens);
  EXPECT_NE(v1[0].tokens, v1[1].tokens);

  std::set<int32_t> held_out;
  for (const auto& d : one.corpus()->documents(proteus::data::Split::val)) held_out.insert(d.text[0]);
  for (const auto& b : v1) {
    for (int32_t t : b.tokens) {
      if (t != '\n') {
        ASSERT_TRUE(held_out.count(t)) << "validation byte " << char(t) << " is from the training split";
      }
    }
  }
}

TEST_F(BatchSourceTest, ConfigErrorsNameTheirField) {
  const auto error = [&](const std::function<void(DataConfig&)>& edit) {
    DataConfig cfg = config({{"text", 1.0}, {"niah", 1.0}, {"mqar", 1.0}});
    cfg.niah.tasks = {"s-niah-1"};
    edit(cfg);
    return field_of([&] { BatchSource source(cfg); });
  };
  EXPECT_EQ(error([](DataConfig&) {}), "(no error)");
  EXPECT_EQ(error([](DataConfig& c) { c.mix[1].task = "essay"; }), "data.mix[1].task");
  EXPECT_EQ(error([](DataConfig& c) { c.mix[0].weight = -1; }), "data.mix[0].weight");
  EXPECT_EQ(error([](DataConfig& c) { c.mix = {{"text", 0.0}}; }), "data.mix");
  EXPECT_EQ(error([](DataConfig& c) { c.mix.clear(); }), "data.mix");
  EXPECT_EQ(error([](DataConfig& c) { c.seq_len = 7; }), "data.seq_len");
  EXPECT_EQ(error([](DataConfig& c) { c.batch = 0; }), "data.batch");
  EXPECT_EQ(error([](DataConfig& c) { c.niah.tasks = {"s-niah-1", "niah-9"}; }), "data.niah.tasks[1]");
  EXPECT_EQ(error([](DataConfig& c) { c.niah.tasks = {"mq-niah"}; }), "data.niah.tasks[0]");  // 361 bytes > 128
  EXPECT_EQ(error([](DataConfig& c) { c.niah.tasks.clear(); }), "data.niah.tasks");
  EXPECT_EQ(error([](DataConfig& c) { c.niah.question = "long"; }), "data.niah.question");
  EXPECT_EQ(error([](DataConfig& c) { c.mqar.vocab = 128; }), "data.mqar.vocab");
  EXPECT_EQ(error([](DataConfig& c) { c.mqar.pairs = 40; }), "data.mqar.pairs");
  EXPECT_EQ(error([](DataConfig& c) { c.mqar.train_pairs = {4, 32}; }), "(no error)");
  EXPECT_EQ(error([](DataConfig& c) { c.mqar.train_pairs = {4, 40}; }), "data.mqar.train_pairs[1]");
  EXPECT_EQ(error([](DataConfig& c) { c.mqar.alpha = -1; }), "data.mqar.alpha");
  EXPECT_EQ(error([](DataConfig& c) { c.mqar.layout = "zigzag"; }), "data.mqar.layout");
  EXPECT_EQ(error([](DataConfig& c) { c.mix[1].task = "needle"; }), "(no error)");
  EXPECT_EQ(error([](DataConfig& c) {
              c.mix[1].task = "needle";
              c.needle.forms = {"single", "many"};
            }),
            "data.needle.forms[1]");
  EXPECT_EQ(error([](DataConfig& c) {
              c.mix[1].task = "needle";
              c.needle.vocab = 16;  // 3 keys for 4 needles
            }),
            "data.needle.vocab");
  EXPECT_EQ(error([](DataConfig& c) {
              c.mix[1].task = "needle";
              c.needle.distractors = 0;
            }),
            "data.needle.distractors");
  EXPECT_EQ(error([](DataConfig& c) { c.text.path += "/missing"; }), "data.text.path");
  EXPECT_EQ(error([](DataConfig& c) { c.text.holdout = 0; }), "data.text.holdout");
  // A section whose task is not drawn is not checked.
  EXPECT_EQ(error([](DataConfig& c) {
              c.mix = {{"text", 1.0}};
              c.mqar.vocab = 2;
              c.niah.tasks = {"niah-9"};
            }),
            "(no error)");
}

TEST(BatchSourceDefault, TheDefaultConfigTrainsOnTheBrownCorpus) {
  DataConfig cfg;
  cfg.text.path = default_corpus_path();
  cfg.mix = {{"text", 1.0}, {"niah", 1.0}};
  cfg.niah.tasks = {"s-niah-1", "s-niah-2", "mk-niah-2"};
  const BatchSource source(cfg);
  ASSERT_NE(source.corpus(), nullptr);
  std::mt19937_64 rng(8);
  const Batch b = source.next_train_batch(rng);
  EXPECT_EQ(b.B, cfg.batch);
  EXPECT_EQ(b.T, cfg.seq_len);
  EXPECT_EQ(source.val_batches(3).size(), 3u);
}

}  // namespace
