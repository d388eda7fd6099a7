// Training and validation batches from a DataConfig: each sequence of a batch draws its task
// (text | niah | mqar | needle) by the mix weights. Leaves out prefetching and threads: a batch is built
// on the caller's thread from the caller's generator.
//
// Rows, each T = data.seq_len long:
//   text: a window of T + 1 corpus tokens (bytes, or BPE ids with data.tokenizer bpe); tokens are
//         its first T, targets the next ones, weight 1.
//   niah: niah::make_training_sample (data.niah.tasks, data.niah.question; essay haystacks from
//         the same split); weight 1 everywhere, like text, so the answer is learnt as language
//         (the answer's bytes weigh data.niah.answer_weight).
//   mqar: mqar::generate with data.mqar; weight 1 only on the answer positions (tokens up to
//         data.mqar.vocab - 1, so the model's vocab must cover them).
//   needle: needle::make_training_row with data.needle; weight data.needle.answer_weight on the
//         answer token only.
// Training rows come from the corpus's train split; validation rows from its held-out split and a
// fixed generator seed, so every run of a config validates on the same batches.
#pragma once
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/config/config.hpp"
#include "core/data/byte_corpus.hpp"
#include "core/data/token_corpus.hpp"
#include "core/data/tokenizer.hpp"

namespace proteus::data {

struct Batch {
  int B = 0;
  int T = 0;
  std::vector<int32_t> tokens;        // (B, T)
  std::vector<int32_t> targets;       // (B, T) the token each position should predict
  std::vector<float> weights;         // (B, T) loss weight of each target; 0 = not counted
  std::vector<std::string> row_task;  // (B) "text", "niah", "mqar" or "needle"
};

// Throws InputError naming the field (data.seq_len, data.batch, data.mix[i].task,
// data.mix[i].weight, data.mix, data.niah.tasks[i], data.niah.question, data.mqar.*, data.needle.*,
// data.text.path, data.text.holdout). Sections of tasks absent from the mix are not checked.
void validate(const config::DataConfig& cfg);

class BatchSource {
 public:
  // Validates, then loads the corpus when a text row or an essay NIAH task may be drawn. With
  // data.tokenizer bpe the corpus is encoded by `tokenizer` (a run's own, Tokenizer::for_run), or,
  // given none (a new run), by a BPE of data.vocab pieces trained here on the training split.
  explicit BatchSource(const config::DataConfig& cfg, std::optional<Tokenizer> tokenizer = std::nullopt);

  Batch next_train_batch(std::mt19937_64& rng) const;
  // n batches drawn from the held-out split with a fixed seed: the same for every run.
  std::vector<Batch> val_batches(int n) const;

  const config::DataConfig& config() const { return cfg_; }
  const ByteCorpus* corpus() const { return corpus_ ? &*corpus_ : nullptr; }
  // Bytes, or the BPE the text rows are encoded with (its hash goes into a new run's config.json).
  const Tokenizer& tokenizer() const { return tokenizer_; }

 private:
  Batch draw(std::mt19937_64& rng, Split split) const;

  config::DataConfig cfg_;
  std::optional<ByteCorpus> corpus_;
  Tokenizer tokenizer_;
  std::optional<TokenCorpus> tokens_;  // bpe only: the corpus's splits as token streams
  double bytes_per_token_[2] = {1.0, 1.0};  // bpe only: train, val (NIAH rows are drawn in bytes)
};

}  // namespace proteus::data
