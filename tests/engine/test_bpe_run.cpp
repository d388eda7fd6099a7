// A BPE run end to end on a slice of the corpus: training keeps tokenizer.model in the run folder
// and names it by its hash in config.json; evaluation reads the run's own tokenizer and writes
// mean NLL per token, per byte and per word, consistent with each other and with the scored text;
// an altered tokenizer file is refused by name (evaluation, Explore's open, resume). A byte run's
// units are one byte per token.
#include <gtest/gtest.h>

#include <cmath>

#include "core/common/input_error.hpp"
#include "core/data/tokenizer.hpp"
#include "core/engine/experiment_job.hpp"
#include "core/engine/trained_run.hpp"
#include "core/runs/eval_files.hpp"
#include "core/runs/run_dir.hpp"
#include "core/train/trainer.hpp"
#include "tests/data/brown_sample.hpp"
#include "tests/support/input_error_field.hpp"
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

TEST(BpeRun, KeepsItsTokenizerAndReportsEveryUnit) {
  if (!proteus::data::bpe_available()) GTEST_SKIP() << "built without SentencePiece";
  TempDir dir;
  const auto trained = proteus::train::train_new_run(tiny_text_run(dir, Tokenizer::bpe));
  ASSERT_EQ(trained.state, "finished") << trained.message;
  const auto file = std::filesystem::path(trained.run_dir) / proteus::data::kTokenizerFile;
  ASSERT_TRUE(std::filesystem::exists(file));
  const auto reader = proteus::runs::RunReader::open(trained.run_dir);
  EXPECT_EQ(reader.run_config().data.tokenizer_hash, proteus::data::tokenizer_hash(TempDir::read(file)));
  EXPECT_TRUE(std::isfinite(trained.final_val_bpb));

  const auto report = proteus::engine::evaluate_saved_run(trained.run_dir);
  ASSERT_TRUE(report.per_position);
  const auto& p = *report.per_position;
  EXPECT_EQ(p.seq_len, 24);  // positions are tokens
  EXPECT_GT(p.bytes_per_token, 1.5);
  EXPECT_GT(p.bytes_per_word, p.bytes_per_token);
  EXPECT_NEAR(p.nll_per_byte() * p.bytes_per_token, p.mean_nll, 1e-12);
  EXPECT_NEAR(p.nll_per_word(), p.mean_nll / p.bytes_per_token * p.bytes_per_word, 1e-12);
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
  ASSERT_EQ(trained.state, "finished") << trained.message;
  EXPECT_FALSE(std::filesystem::exists(std::filesystem::path(trained.run_dir) / proteus::data::kTokenizerFile));
  const auto report = proteus::engine::evaluate_saved_run(trained.run_dir);
  ASSERT_TRUE(report.per_position);
  const auto& p = *report.per_position;
  EXPECT_EQ(p.bytes_per_token, 1.0);
  EXPECT_EQ(p.nll_per_byte(), p.mean_nll);
  EXPECT_EQ(p.nll_per_word(), p.mean_nll * p.bytes_per_word);
  EXPECT_GT(p.bytes_per_word, 3.0);
}

}  // namespace
