// A build without SentencePiece refuses data.tokenizer bpe naming the field, whether a run trains a
// tokenizer or reads one from its folder. This binary always compiles that fallback: it builds
// core/data/tokenizer.cpp itself without PROTEUS_HAVE_SENTENCEPIECE (tests/CMakeLists.txt), so the
// check runs in every build, SentencePiece installed or not.
#include <gtest/gtest.h>

#include <vector>

#include "core/config/config.hpp"
#include "core/data/tokenizer.hpp"
#include "tests/support/input_error_field.hpp"

namespace {

using proteus::data::Tokenizer;
using proteus::test_support::field_of;

TEST(TokenizerWithoutSentencePiece, BpeIsRefusedNamingTheField) {
  ASSERT_FALSE(proteus::data::bpe_available()) << "this binary must build the fallback";
  const std::vector<proteus::data::Document> documents(2);
  EXPECT_EQ(field_of([&] { Tokenizer::train_bpe(documents, 512); }), "data.tokenizer");
  proteus::config::DataConfig d;
  d.tokenizer = proteus::config::Tokenizer::bpe;
  d.vocab = 512;
  d.tokenizer_hash = "0123456789abcdef";
  EXPECT_EQ(field_of([&] { Tokenizer::for_run("/nonexistent", d); }), "data.tokenizer");
}

TEST(TokenizerWithoutSentencePiece, BytesStillWork) {
  const Tokenizer bytes;
  const std::vector<int32_t> ids = bytes.encode("ab\n");
  EXPECT_EQ(ids, (std::vector<int32_t>{'a', 'b', '\n'}));
  EXPECT_EQ(bytes.decode(ids.data(), ids.size()), "ab\n");
}

}  // namespace
