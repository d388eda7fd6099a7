// data.tokenizer (math.md section 8): bytes by default and written so; bpe needs data.vocab, a model
// vocabulary equal to it, and text-only data: a synthetic task with its own vocabulary (MQAR, the
// token needle) or NIAH's byte prompts in the mix, or the MQAR evaluation, refuse it by name.
#include <gtest/gtest.h>

#include <string>

#include "core/common/input_error.hpp"
#include "core/config/config.hpp"
#include "core/config/config_json.hpp"
#include "tests/support/input_error_field.hpp"

namespace {

using namespace proteus::config;
using proteus::test_support::field_of;

RunConfig bpe(int vocab) {
  RunConfig c;
  c.data.tokenizer = Tokenizer::bpe;
  c.data.vocab = vocab;
  c.model.vocab = vocab;
  return c;
}

TEST(ConfigTokenizer, BytesIsTheDefaultAndRoundTrips) {
  const RunConfig c;
  EXPECT_EQ(c.data.tokenizer, Tokenizer::bytes);
  EXPECT_EQ(c.data.vocab, 0);
  const auto j = to_json(c);
  EXPECT_EQ(j["data"]["tokenizer"], "bytes");
  const RunConfig back = parse_run_config(j);
  EXPECT_EQ(back.data.tokenizer, Tokenizer::bytes);
  // A config.json written before the field existed reads as bytes.
  auto old = j;
  old["data"].erase("tokenizer");
  old["data"].erase("vocab");
  old["data"].erase("tokenizer_hash");
  EXPECT_EQ(parse_run_config(old).data.tokenizer, Tokenizer::bytes);
}

TEST(ConfigTokenizer, BpeRoundTripsWithItsHash) {
  RunConfig c = bpe(4096);
  c.data.tokenizer_hash = "0123456789abcdef";
  const RunConfig back = parse_run_config(to_json(c));
  EXPECT_EQ(back.data.tokenizer, Tokenizer::bpe);
  EXPECT_EQ(back.data.vocab, 4096);
  EXPECT_EQ(back.data.tokenizer_hash, "0123456789abcdef");
}

TEST(ConfigTokenizer, RefusalsNameTheirField) {
  EXPECT_EQ(field_of([] { validate(bpe(4096)); }), "(no error)");
  // An unknown tokenizer cannot be held by the config: the reader refuses its name.
  EXPECT_EQ(field_of([] { parse_run_config(nlohmann::json{{"data", {{"tokenizer", "wordpiece"}}}}); }), "data.tokenizer");
  EXPECT_EQ(field_of([] { validate(bpe(100)); }), "data.vocab");  // no room for the 256 byte pieces
  RunConfig mismatch = bpe(4096);
  mismatch.model.vocab = 256;
  EXPECT_EQ(field_of([&] { validate(mismatch); }), "model.vocab");
  RunConfig bytes_with_vocab;
  bytes_with_vocab.data.vocab = 4096;
  EXPECT_EQ(field_of([&] { validate(bytes_with_vocab); }), "data.vocab");
  RunConfig bytes_with_hash;
  bytes_with_hash.data.tokenizer_hash = "0123456789abcdef";
  EXPECT_EQ(field_of([&] { validate(bytes_with_hash); }), "data.tokenizer_hash");
}

// data.vocab is the one fact: a file that leaves model.vocab out gets the tokenizer's vocabulary;
// one that gives both must make them agree, and is told it may leave model.vocab out.
TEST(ConfigTokenizer, ModelVocabFollowsDataVocab) {
  auto j = to_json(RunConfig{}, JsonForm::as_given);
  j["data"]["tokenizer"] = "bpe";
  j["data"]["vocab"] = 4096;
  j["model"].erase("vocab");
  EXPECT_EQ(parse_run_config(j).model.vocab, 4096);
  j["model"]["vocab"] = 4096;
  EXPECT_EQ(parse_run_config(j).model.vocab, 4096);
  j["model"]["vocab"] = 256;
  try {
    parse_run_config(j);
    ADD_FAILURE() << "model.vocab 256 against data.vocab 4096 was taken";
  } catch (const proteus::InputError& e) {
    EXPECT_EQ(e.field(), "model.vocab");
    EXPECT_NE(e.reason().find("it follows data.vocab"), std::string::npos) << e.reason();
  }
  auto bytes = to_json(RunConfig{}, JsonForm::as_given);
  bytes["model"].erase("vocab");
  EXPECT_EQ(parse_run_config(bytes).model.vocab, 256) << "bytes keep the default";
}

TEST(ConfigTokenizer, SyntheticTasksWithTheirOwnVocabularyRefuseIt) {
  for (const char* task : {"mqar", "needle"}) {
    RunConfig c = bpe(16384);
    c.data.mix = {{"text", 1.0}, {task, 1.0}};
    try {
      validate(c);
      ADD_FAILURE() << task << " accepted with bpe";
    } catch (const proteus::InputError& e) {
      EXPECT_EQ(e.field(), "data.tokenizer") << task;
      EXPECT_NE(e.reason().find(task), std::string::npos) << e.reason();
    }
  }
  // NIAH is text: its prompts and answers are tokenised with the run's BPE (data/niah_tokens.hpp).
  RunConfig niah = bpe(16384);
  niah.data.mix = {{"text", 1.0}, {"niah", 1.0}};
  EXPECT_EQ(field_of([&] { validate(niah); }), "(no error)");
  RunConfig mqar_eval = bpe(16384);
  mqar_eval.eval.mqar.enabled = true;
  EXPECT_EQ(field_of([&] { validate(mqar_eval); }), "data.tokenizer");
  // With bytes the same mixes stay as they were.
  RunConfig bytes;
  bytes.data.mix = {{"text", 1.0}, {"needle", 1.0}};
  EXPECT_EQ(field_of([&] { validate(bytes); }), "(no error)");
}

}  // namespace
