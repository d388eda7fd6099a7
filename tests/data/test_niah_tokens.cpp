// NIAH in BPE tokens: a training row is seq_len + 1 tokens whose answer mask covers exactly the
// answer's own tokens (they decode to the answer), the prompt decodes to the sample's prompt, the
// filler follows; samples too long for the row in tokens are drawn again shorter; evaluation
// lengths in tokens map to bytes by the corpus's bytes per token. And a BatchSource with bpe draws
// such rows for a NIAH mix, weighting the answer.
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>

#include "core/common/input_error.hpp"
#include "core/data/batch_source.hpp"
#include "core/data/niah_tokens.hpp"
#include "tests/data/brown_sample.hpp"
#include "tests/data/temp_corpus.hpp"
#include "tests/support/input_error_field.hpp"
#include "tests/support/required_check.hpp"

namespace {

using namespace proteus::data;

struct Fixture {
  ByteCorpus corpus;
  Tokenizer tokenizer;
  TokenCorpus tokens;
};

const Fixture* brown_bpe() {
  if (!bpe_available()) return nullptr;
  static const auto f = [] {
    auto corpus = ByteCorpus::load(proteus::data::testing::default_corpus_path(), 0.05);
    auto tok = Tokenizer::train_bpe(proteus::data::testing::brown_documents(20), 512);
    TokenCorpus tokens(corpus, tok);
    return std::make_unique<Fixture>(Fixture{std::move(corpus), std::move(tok), std::move(tokens)});
  }();
  return f.get();
}

TEST(NiahTokens, ARowIsPromptAnswerFillerWithTheAnswersOwnTokensMasked) {
  const Fixture* f = brown_bpe();
  if (!f) PROTEUS_SKIP_UNLESS_REQUIRED("built without SentencePiece");
  const double bpt = niah::bytes_per_token(f->corpus, f->tokens, Split::train);
  EXPECT_GT(bpt, 1.5) << "a BPE of English text packs more than a byte a token";
  std::mt19937_64 rng(3);
  for (int i = 0; i < 12; ++i) {
    const int T = 512;
    const auto r = niah::make_token_training_row(rng, T, {"s-niah-1", "s-niah-2", "mk-niah-1", "mv-niah"}, "short",
                                                 &f->corpus, f->tokens, f->tokenizer, bpt, Split::train);
    ASSERT_EQ(r.tokens.size(), size_t(T) + 1);
    ASSERT_EQ(r.weights.size(), size_t(T));
    ASSERT_EQ(r.answer_mask.size(), size_t(T));
    // The prompt's tokens decode to the prompt; the masked targets decode to the answer.
    EXPECT_EQ(f->tokenizer.decode(r.tokens.data(), r.prompt_tokens), r.sample.prompt());
    std::string answer;
    size_t masked = 0;
    for (size_t t = 0; t < r.answer_mask.size(); ++t)
      if (r.answer_mask[t]) answer += f->tokenizer.bytes_of(r.tokens[t + 1]), ++masked;
    EXPECT_EQ(masked, r.answer_tokens);
    EXPECT_EQ(answer, r.sample.answer) << "the mask covers the answer's own tokens, no more";
    EXPECT_EQ(answer.back(), '\n');
  }
}

TEST(NiahTokens, EvaluationLengthsInTokensBecomeBytesByTheCorpusRate) {
  EXPECT_EQ(niah::sample_bytes_for_tokens("s-niah-2", "short", 1000, 4.0), 4000);
  // Never below the task's shortest sample.
  EXPECT_EQ(niah::sample_bytes_for_tokens("s-niah-2", "short", 1, 4.0), niah::min_total_length("s-niah-2", "short"));
}

TEST(NiahTokens, ARowTooShortForEvenTheShortestSampleIsRefusedNamingSeqLen) {
  const Fixture* f = brown_bpe();
  if (!f) PROTEUS_SKIP_UNLESS_REQUIRED("built without SentencePiece");
  std::mt19937_64 rng(1);
  // A ruler-template prompt is ~60 tokens at the least: 16 tokens cannot hold it.
  EXPECT_EQ(proteus::test_support::field_of([&] {
              niah::make_token_training_row(rng, 16, {"s-niah-1"}, "ruler", &f->corpus, f->tokens, f->tokenizer, 1.0,
                                            Split::train);
            }),
            "data.seq_len");
}

TEST(NiahTokens, ABpeBatchSourceDrawsNiahRowsInTokensAndWeightsTheAnswer) {
  if (!bpe_available()) PROTEUS_SKIP_UNLESS_REQUIRED("built without SentencePiece");
  proteus::data::testing::TempDir dir;
  proteus::config::DataConfig d;
  d.text.path = proteus::data::testing::write_corpus(dir, "corpus", proteus::data::testing::brown_documents(20));
  d.text.holdout = 0.2;
  d.tokenizer = proteus::config::Tokenizer::bpe;
  d.vocab = 512;
  d.seq_len = 256;
  d.batch = 4;
  d.mix = {{"niah", 1.0}};
  d.niah.tasks = {"s-niah-1"};
  d.niah.answer_weight = 8;
  const BatchSource source(d);
  std::mt19937_64 rng(5);
  const auto b = source.next_train_batch(rng);
  ASSERT_EQ(b.tokens.size(), size_t(4 * 256));
  int weighted = 0, above_bytes = 0;
  for (float w : b.weights) weighted += w == 8.0f;
  for (int32_t id : b.tokens) above_bytes += id > 256;
  EXPECT_GT(weighted, 4) << "every row's answer tokens carry the answer weight";
  EXPECT_GT(above_bytes, 0) << "the rows are BPE tokens, not bytes";
}

}  // namespace
