// The tokenizer (math.md section 8): bytes are the identity; a BPE trained on text round-trips any
// text (byte fallback), is the same model from the same text, is kept in a run folder and named
// by its hash, a missing or altered file is refused by name, and a vocabulary the text cannot
// hold is refused naming data.vocab. A build without SentencePiece skips these, except under
// scripts/test.sh (PROTEUS_REQUIRE_REFERENCE=1), where they fail; its refusal of bpe is checked in
// test_tokenizer_without_sentencepiece, which always builds that fallback.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "core/common/input_error.hpp"
#include "core/data/batch_source.hpp"
#include "core/data/token_corpus.hpp"
#include "core/data/tokenizer.hpp"
#include "tests/data/brown_sample.hpp"
#include "tests/support/input_error_field.hpp"
#include "tests/support/required_check.hpp"

namespace {

using proteus::data::Document;
using proteus::data::Tokenizer;
using proteus::data::testing::brown_documents;
using proteus::data::testing::TempDir;
using proteus::test_support::field_of;
using proteus::test_support::refusal_of;

// Text the training documents never show: control bytes, accents, a snowman, runs of spaces.
const std::string kUnseenText = "  Hello,\n\nworld  \xC3\xA9 \xE2\x98\x83 \x01\x7F tab\tend \r\n\xFF ";

const Tokenizer& small_bpe() {
  static const Tokenizer bpe = Tokenizer::train_bpe(brown_documents(10), 512);
  return bpe;
}

TEST(Tokenizer, BytesAreTheIdentity) {
  const Tokenizer bytes;
  EXPECT_TRUE(bytes.is_bytes());
  EXPECT_EQ(bytes.vocab(), 256);
  EXPECT_EQ(bytes.hash(), "");
  const auto ids = bytes.encode(kUnseenText);
  ASSERT_EQ(ids.size(), kUnseenText.size());
  for (size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(ids[i], static_cast<unsigned char>(kUnseenText[i]));
  EXPECT_EQ(bytes.decode(ids), kUnseenText);
}

// The default costs nothing: a byte run's text rows are the corpus's byte windows drawn exactly
// as before the tokenizer existed (the mix's pick, then ByteCorpus::sample_windows), with no
// token stream built and no tokenizer file.
TEST(Tokenizer, BytesLeaveTextRowsAsTheCorpusWindows) {
  TempDir dir;
  proteus::config::DataConfig d;
  d.text.path = proteus::data::testing::write_corpus(dir, "corpus", brown_documents(4));
  d.text.holdout = 0.25;
  d.seq_len = 32;
  d.batch = 3;
  const proteus::data::BatchSource source(d);
  EXPECT_TRUE(source.tokenizer().is_bytes());
  std::mt19937_64 drawn(11), expected(11);
  const auto batch = source.next_train_batch(drawn);
  std::discrete_distribution<size_t> pick({1.0});
  for (int b = 0; b < d.batch; ++b) {
    pick(expected);
    const auto row = source.corpus()->sample_windows(proteus::data::Split::train, 1, d.seq_len, expected);
    for (int t = 0; t < d.seq_len; ++t) {
      ASSERT_EQ(batch.tokens[size_t(b) * d.seq_len + t], row[t]);
      ASSERT_EQ(batch.targets[size_t(b) * d.seq_len + t], row[t + 1]);
    }
  }
  EXPECT_EQ(drawn(), expected());  // and the generator is where it would have been
}

class BpeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!proteus::data::bpe_available()) PROTEUS_SKIP_UNLESS_REQUIRED("built without SentencePiece");
  }
};

TEST_F(BpeTest, RoundTripsAnyTextAndShortensEnglish) {
  const Tokenizer& bpe = small_bpe();
  EXPECT_FALSE(bpe.is_bytes());
  EXPECT_EQ(bpe.vocab(), 512);
  EXPECT_EQ(bpe.hash().size(), 16u);
  EXPECT_EQ(bpe.decode(bpe.encode(kUnseenText)), kUnseenText);
  const std::string english = brown_documents(12).back().text;  // not among the training documents
  const auto ids = bpe.encode(english);
  EXPECT_EQ(bpe.decode(ids), english);
  EXPECT_LT(ids.size() * 3, english.size() * 2);  // 512 pieces hold more than 1.5 bytes on average
  for (int32_t id : ids) EXPECT_TRUE(id > 0 && id < bpe.vocab()) << id;  // never <unk>
}

TEST_F(BpeTest, SameTextSameModel) {
  EXPECT_EQ(Tokenizer::train_bpe(brown_documents(10), 512).hash(), small_bpe().hash());
  EXPECT_NE(Tokenizer::train_bpe(brown_documents(9), 512).hash(), small_bpe().hash());
}

TEST_F(BpeTest, TokenWindowsAreTheEncodedStream) {
  const auto corpus = proteus::data::ByteCorpus::from_documents(brown_documents(10), 0.2);
  const proteus::data::TokenCorpus tokens(corpus, small_bpe());
  EXPECT_EQ(small_bpe().decode(tokens.stream(proteus::data::Split::val)), corpus.stream(proteus::data::Split::val));
  std::mt19937_64 rng(5);
  const auto rows = tokens.sample_windows(proteus::data::Split::train, 3, 20, rng);
  EXPECT_EQ(rows.size(), 3u * 21u);
}

TEST_F(BpeTest, AVocabularyTooLargeForTheTextIsRefused) {
  const std::vector<Document> tiny = {{"a.txt", "the cat sat on the mat\nthe dog\n"}};
  const auto e = refusal_of([&] { Tokenizer::train_bpe(tiny, 4096); });
  EXPECT_EQ(e.field(), "data.vocab");
  EXPECT_NE(e.reason().find("4096"), std::string::npos) << e.reason();
}

TEST_F(BpeTest, TheRunFolderKeepsTheModelByItsHashAndRefusesAnAlteredOrMissingFile) {
  TempDir dir;
  const Tokenizer& bpe = small_bpe();
  bpe.save_in(dir.path());
  const auto file = dir / proteus::data::kTokenizerFile;
  EXPECT_EQ(proteus::data::tokenizer_hash(TempDir::read(file)), bpe.hash());

  proteus::config::DataConfig d;
  d.tokenizer = proteus::config::Tokenizer::bpe;
  d.vocab = 512;
  d.tokenizer_hash = bpe.hash();
  const Tokenizer loaded = Tokenizer::for_run(dir.path(), d);
  EXPECT_EQ(loaded.encode(kUnseenText), bpe.encode(kUnseenText));

  std::string bytes = TempDir::read(file);
  bytes[bytes.size() / 2] ^= 1;
  dir.write(proteus::data::kTokenizerFile, bytes);
  const auto altered = refusal_of([&] { Tokenizer::for_run(dir.path(), d); });
  EXPECT_EQ(altered.field(), file.string());
  EXPECT_NE(altered.reason().find("altered"), std::string::npos) << altered.reason();
  std::filesystem::remove(file);
  const auto missing = refusal_of([&] { Tokenizer::for_run(dir.path(), d); });
  EXPECT_EQ(missing.field(), file.string());
  EXPECT_NE(missing.reason().find("missing"), std::string::npos) << missing.reason();
  d.tokenizer = proteus::config::Tokenizer::bytes;  // a byte run needs no file
  EXPECT_TRUE(Tokenizer::for_run(dir.path(), d).is_bytes());
}

TEST_F(BpeTest, BatchSourceEncodesTextRowsWithTheGivenTokenizer) {
  TempDir dir;
  proteus::config::DataConfig d;
  d.text.path = proteus::data::testing::write_corpus(dir, "corpus", brown_documents(10));
  d.text.holdout = 0.2;
  d.tokenizer = proteus::config::Tokenizer::bpe;
  d.vocab = 512;
  d.seq_len = 64;
  const auto corpus = proteus::data::ByteCorpus::load(d.text.path, d.text.holdout);
  const auto own = Tokenizer::train_bpe(corpus.documents(proteus::data::Split::train), 512);
  const proteus::data::BatchSource given(d, own);
  EXPECT_EQ(given.tokenizer().hash(), own.hash());
  const proteus::data::BatchSource trained(d);  // a new run trains its own on the training split
  EXPECT_EQ(trained.tokenizer().hash(), own.hash());
  std::mt19937_64 a(9), b(9);
  const auto x = given.next_train_batch(a), y = trained.next_train_batch(b);
  EXPECT_EQ(x.tokens, y.tokens);
  int above_bytes = 0;
  for (int32_t id : x.tokens) above_bytes += id > 256;
  EXPECT_GT(above_bytes, 0);
}

}  // namespace
