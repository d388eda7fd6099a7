// A BPE run end to end on a slice of the corpus: training keeps tokenizer.model in the run folder
// and names it by its hash in config.json; evaluation reads the run's own tokenizer and writes
// mean NLL per token, per byte and per word, consistent with each other and with the scored text;
// an altered tokenizer file is refused by name (evaluation, Explore's open, resume). A byte run's
// units are one byte per token.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <random>
#include <sstream>
#include <string>

#include "core/common/input_error.hpp"
#include "core/config/config.hpp"
#include "core/data/byte_corpus.hpp"
#include "core/data/token_corpus.hpp"
#include "core/data/tokenizer.hpp"
#include "core/engine/experiment_job.hpp"
#include "core/engine/trained_run.hpp"
#include "core/runs/eval_files.hpp"
#include "core/runs/run_dir.hpp"
#include "core/train/trainer.hpp"
#include "tests/data/brown_sample.hpp"
#include "tests/support/input_error_field.hpp"
#include "tests/support/required_check.hpp"
#include "tests/train/tiny_run.hpp"

namespace {

using proteus::data::testing::TempDir;
using proteus::test_support::refusal_of;

using proteus::config::Tokenizer;

proteus::config::RunConfig tiny_text_run(const TempDir& dir, Tokenizer tokenizer) {
  auto c = proteus::test_support::tiny_run(dir / "runs");
  c.name = proteus::common::choice_name(tokenizer);
  c.data.text.path = proteus::data::testing::write_corpus(dir, "corpus", proteus::data::testing::brown_documents(12));
  c.data.text.holdout = 0.2;
  c.eval.per_position.sequences = 4;
  c.data.tokenizer = tokenizer;
  if (tokenizer == Tokenizer::bpe) c.data.vocab = c.model.vocab = 400;
  return c;
}

// An exact oracle for the units: the held-out rows the evaluation scored, rebuilt here (checked to
// be the same rows by their fingerprint), their scored targets decoded (each must be a stretch of
// the held-out text), and the bytes and whitespace-separated words of that text counted.
struct ScoredCount {
  int64_t tokens = 0, bytes = 0, words = 0;
  uint64_t fingerprint = 1469598103934665603ull;  // FNV-1a over every token id, as the evaluation's
};

ScoredCount count_scored_text(const std::string& run_dir) {
  const auto cfg = proteus::runs::RunReader::open(run_dir).run_config();
  const auto tokenizer = proteus::data::Tokenizer::for_run(run_dir, cfg.data);
  const auto corpus = proteus::data::ByteCorpus::load(cfg.data.text.path, cfg.data.text.holdout);
  std::optional<proteus::data::TokenCorpus> tokens;
  if (!tokenizer.is_bytes()) tokens.emplace(corpus, tokenizer);
  const int L = proteus::config::resolved_per_position_length(cfg), n = cfg.eval.per_position.sequences;
  std::mt19937_64 rng(0x7e57u);
  const auto val = proteus::data::Split::val;
  const auto flat = tokens ? tokens->sample_windows(val, n, L, rng) : corpus.sample_windows(val, n, L, rng);
  const std::string held_out = corpus.stream(val) + corpus.stream(val);  // windows wrap around its end
  ScoredCount c;
  for (int32_t id : flat) c.fingerprint = (c.fingerprint ^ static_cast<uint32_t>(id)) * 1099511628211ull;
  for (int i = 0; i < n; ++i) {
    const std::string text = tokenizer.decode(flat.data() + static_cast<size_t>(i) * (L + 1) + 1, L);
    EXPECT_NE(held_out.find(text), std::string::npos) << "row " << i << " decodes to held-out text";
    std::istringstream words(text);
    for (std::string w; words >> w;) ++c.words;
    c.bytes += static_cast<int64_t>(text.size());
    c.tokens += L;
  }
  return c;
}

TEST(BpeRun, KeepsItsTokenizerAndReportsEveryUnit) {
  if (!proteus::data::bpe_available()) PROTEUS_SKIP_UNLESS_REQUIRED("built without SentencePiece");
  TempDir dir;
  const auto trained = proteus::train::train_new_run(tiny_text_run(dir, Tokenizer::bpe));
  ASSERT_EQ(trained.state, proteus::runs::RunState::finished) << trained.message;
  const auto file = std::filesystem::path(trained.run_dir) / proteus::data::kTokenizerFile;
  ASSERT_TRUE(std::filesystem::exists(file));
  const auto reader = proteus::runs::RunReader::open(trained.run_dir);
  EXPECT_EQ(reader.run_config().data.tokenizer_hash, proteus::data::tokenizer_hash(TempDir::read(file)));
  EXPECT_TRUE(std::isfinite(trained.final_val_bpb));

  const auto report = proteus::engine::evaluate_saved_run(trained.run_dir);
  ASSERT_TRUE(report.per_position);
  const auto& p = *report.per_position;
  EXPECT_EQ(p.seq_len, 24);  // positions are tokens
  const ScoredCount c = count_scored_text(trained.run_dir);
  ASSERT_EQ(p.sequences_fingerprint, c.fingerprint) << "the oracle rebuilt the rows the evaluation scored";
  EXPECT_DOUBLE_EQ(p.bytes_per_token, static_cast<double>(c.bytes) / c.tokens);
  EXPECT_DOUBLE_EQ(p.bytes_per_word, static_cast<double>(c.bytes) / c.words);
  EXPECT_GT(p.bytes_per_token, 1.5);  // 400 pieces of English hold more than a byte each
  // NLL summed over the scored tokens, spread over their bytes and over their words.
  const double total_nll = p.mean_nll * static_cast<double>(c.tokens);
  EXPECT_NEAR(p.nll_per_byte(), total_nll / static_cast<double>(c.bytes), 1e-12 * total_nll);
  EXPECT_NEAR(p.nll_per_word(), total_nll / static_cast<double>(c.words), 1e-12 * total_nll);
  EXPECT_NEAR(p.bits_per_byte(), p.nll_per_byte() / std::log(2.0), 1e-12);

  const auto json = reader.read_json("per_position.json");
  EXPECT_DOUBLE_EQ(json["nll_per_token"].get<double>(), p.mean_nll);
  EXPECT_DOUBLE_EQ(json["nll_per_byte"].get<double>(), p.nll_per_byte());
  EXPECT_DOUBLE_EQ(json["nll_per_word"].get<double>(), p.nll_per_word());
  EXPECT_DOUBLE_EQ(json["bytes_per_token"].get<double>(), p.bytes_per_token);

  std::string bytes = TempDir::read(file);
  bytes[bytes.size() / 3] ^= 4;
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
  for (const auto& e : {refusal_of([&] { proteus::engine::evaluate_saved_run(trained.run_dir); }),
                        refusal_of([&] { proteus::engine::TrainedRun::open(trained.run_dir); }),
                        refusal_of([&] { proteus::train::resume_run(trained.run_dir); })}) {
    EXPECT_EQ(e.field(), file.string());
    EXPECT_NE(e.reason().find("altered"), std::string::npos) << e.reason();
  }
}

TEST(BpeRun, AByteRunCountsOneBytePerToken) {
  TempDir dir;
  const auto trained = proteus::train::train_new_run(tiny_text_run(dir, Tokenizer::bytes));
  ASSERT_EQ(trained.state, proteus::runs::RunState::finished) << trained.message;
  EXPECT_FALSE(std::filesystem::exists(std::filesystem::path(trained.run_dir) / proteus::data::kTokenizerFile));
  const auto report = proteus::engine::evaluate_saved_run(trained.run_dir);
  ASSERT_TRUE(report.per_position);
  const auto& p = *report.per_position;
  const ScoredCount c = count_scored_text(trained.run_dir);
  ASSERT_EQ(p.sequences_fingerprint, c.fingerprint) << "the oracle rebuilt the rows the evaluation scored";
  EXPECT_EQ(c.bytes, c.tokens);
  EXPECT_EQ(p.bytes_per_token, 1.0);
  EXPECT_EQ(p.nll_per_byte(), p.mean_nll);
  EXPECT_DOUBLE_EQ(p.bytes_per_word, static_cast<double>(c.bytes) / c.words);
  EXPECT_NEAR(p.nll_per_word(), p.mean_nll * static_cast<double>(c.tokens) / c.words, 1e-12 * p.nll_per_word());
}

}  // namespace
