// Mixture batches (batch_source.hpp). Leaves out any caching of samples: every row is drawn fresh.
#include "core/data/batch_source.hpp"

#include <algorithm>
#include <cmath>

#include "core/common/input_error.hpp"
#include "core/common/json_fields.hpp"
#include "core/data/mqar.hpp"
#include "core/data/needle.hpp"
#include "core/data/niah.hpp"
#include "core/data/niah_tokens.hpp"

namespace proteus::data {
namespace {

constexpr uint64_t kValidationSeed = 0x76616c6964617465ull;  // "validate": independent of the run seed

std::string indexed(const std::string& field, size_t i) { return field + "[" + std::to_string(i) + "]"; }

bool drawn(const config::DataConfig& cfg, const std::string& task) {
  for (const auto& item : cfg.mix)
    if (item.task == task && item.weight > 0) return true;
  return false;
}

bool needs_corpus(const config::DataConfig& cfg) {
  if (drawn(cfg, "text") || cfg.tokenizer == config::Tokenizer::bpe) return true;  // a BPE is trained on the corpus
  if (!drawn(cfg, "niah")) return false;
  for (const auto& t : cfg.niah.tasks)
    if (niah::uses_essay(t)) return true;
  return false;
}

}  // namespace

void validate(const config::DataConfig& cfg) {
  if (cfg.seq_len < 8) throw InputError("data.seq_len", "must be at least 8, got " + std::to_string(cfg.seq_len));
  if (cfg.batch < 1) throw InputError("data.batch", "must be at least 1, got " + std::to_string(cfg.batch));
  if (cfg.mix.empty()) throw InputError("data.mix", "must hold at least one task, e.g. [{\"task\": \"text\"}]");
  double total = 0;
  for (size_t i = 0; i < cfg.mix.size(); ++i) {
    const auto& item = cfg.mix[i];
    if (item.task != "text" && item.task != "niah" && item.task != "mqar" && item.task != "needle")
      throw InputError(indexed("data.mix", i) + ".task",
                       "must be one of text, niah, mqar, needle, got " + common::quoted(item.task));
    if (!std::isfinite(item.weight) || item.weight < 0)
      throw InputError(indexed("data.mix", i) + ".weight", "must be a number >= 0, got " + std::to_string(item.weight));
    total += item.weight;
  }
  if (!(total > 0)) throw InputError("data.mix", "needs at least one task with weight > 0");

  if (drawn(cfg, "niah")) {
    const auto& styles = niah::question_styles();
    if (std::find(styles.begin(), styles.end(), cfg.niah.question) == styles.end())
      throw InputError("data.niah.question", "must be \"short\" or \"ruler\", got " + common::quoted(cfg.niah.question));
    if (cfg.niah.tasks.empty()) throw InputError("data.niah.tasks", "must hold at least one NIAH task");
    for (size_t i = 0; i < cfg.niah.tasks.size(); ++i) {
      const std::string& task = cfg.niah.tasks[i];
      if (!niah::is_task(task)) {
        std::string known;
        for (const auto& t : niah::task_names()) known += (known.empty() ? "" : ", ") + t;
        throw InputError(indexed("data.niah.tasks", i), "unknown NIAH task " + common::quoted(task) + " (known: " + known + ")");
      }
      const int least = niah::min_total_length(task, cfg.niah.question) + niah::answer_length(task) - 1;
      if (cfg.seq_len < least)
        throw InputError(indexed("data.niah.tasks", i), task + " with the " + cfg.niah.question +
                                                            " question needs data.seq_len >= " + std::to_string(least) +
                                                            ", got " + std::to_string(cfg.seq_len));
    }
  }
  if (drawn(cfg, "mqar")) {
    mqar::check(cfg.seq_len, cfg.mqar.vocab, cfg.mqar.pairs, cfg.mqar.alpha, cfg.mqar.layout);
    for (size_t i = 0; i < cfg.mqar.train_pairs.size(); ++i) try {
        mqar::check(cfg.seq_len, cfg.mqar.vocab, cfg.mqar.train_pairs[i], cfg.mqar.alpha, cfg.mqar.layout);
      } catch (const InputError& e) {
        throw InputError(indexed("data.mqar.train_pairs", i), e.reason());
      }
  }
  if (drawn(cfg, "needle")) needle::check(cfg.needle, cfg.seq_len);
  if (needs_corpus(cfg) && (!std::isfinite(cfg.text.holdout) || cfg.text.holdout <= 0 || cfg.text.holdout >= 1))
    throw InputError("data.text.holdout", "must be in (0, 1), got " + std::to_string(cfg.text.holdout));
  // A missing, empty or too short corpus fails here, before any run starts, not in the worker.
  if (needs_corpus(cfg)) check_corpus_files(cfg.text.path, cfg.text.holdout, static_cast<size_t>(cfg.seq_len) + 1);
}

BatchSource::BatchSource(const config::DataConfig& cfg, std::optional<Tokenizer> tokenizer) : cfg_(cfg) {
  validate(cfg_);
  if (!needs_corpus(cfg_)) return;
  corpus_ = ByteCorpus::load(cfg_.text.path, cfg_.text.holdout);
  if (cfg_.tokenizer == config::Tokenizer::bpe) {
    tokenizer_ = tokenizer ? std::move(*tokenizer) : Tokenizer::train_bpe(corpus_->documents(Split::train), cfg_.vocab);
    tokens_.emplace(*corpus_, tokenizer_);
    for (Split split : {Split::train, Split::val})
      bytes_per_token_[split == Split::train ? 0 : 1] = niah::bytes_per_token(*corpus_, *tokens_, split);
  }
  // A row is seq_len + 1 tokens of one split: less text than that would only repeat itself.
  const size_t row = static_cast<size_t>(cfg_.seq_len) + 1;
  const char* unit = tokens_ ? " tokens" : " bytes";
  for (Split split : {Split::train, Split::val}) {
    size_t text = 0;
    for (const auto& d : corpus_->documents(split)) text += d.text.size();
    if (tokens_) text = tokens_->stream(split).size();
    if (text < row)
      throw InputError("data.text.path", common::quoted(cfg_.text.path, common::kShownPath) + ": the " +
                                             (split == Split::train ? "training" : "held-out") + " documents hold " +
                                             std::to_string(text) + unit + " of text, less than one row (data.seq_len + 1 = " +
                                             std::to_string(row) + unit + "); give more text or a shorter data.seq_len");
  }
}

Batch BatchSource::draw(std::mt19937_64& rng, Split split) const {
  const int B = cfg_.batch, T = cfg_.seq_len;
  Batch batch;
  batch.B = B;
  batch.T = T;
  batch.tokens.reserve(size_t(B) * size_t(T));
  batch.targets.reserve(size_t(B) * size_t(T));
  batch.weights.reserve(size_t(B) * size_t(T));
  std::vector<double> weights;
  for (const auto& item : cfg_.mix) weights.push_back(item.weight);
  std::discrete_distribution<size_t> pick(weights.begin(), weights.end());

  for (int b = 0; b < B; ++b) {
    const std::string& task = cfg_.mix[pick(rng)].task;
    batch.row_task.push_back(task);
    if (task == "mqar") {
      const auto& m = cfg_.mqar;
      const int pairs = m.train_pairs.empty()
                            ? m.pairs
                            : m.train_pairs[std::uniform_int_distribution<size_t>(0, m.train_pairs.size() - 1)(rng)];
      const auto s = mqar::generate(rng, T, m.vocab, pairs, m.alpha, m.layout);
      batch.tokens.insert(batch.tokens.end(), s.inputs.begin(), s.inputs.end());
      batch.targets.insert(batch.targets.end(), s.targets.begin(), s.targets.end());
      batch.weights.insert(batch.weights.end(), s.mask.begin(), s.mask.end());
      continue;
    }
    std::vector<int32_t> row;  // T + 1 tokens
    if (task == "needle") {
      auto s = needle::make_training_row(cfg_.needle, T, rng);
      row = std::move(s.tokens);
      for (float w : s.weights) batch.weights.push_back(w * static_cast<float>(cfg_.needle.answer_weight));
    } else if (task == "niah" && tokens_) {
      auto s = niah::make_token_training_row(rng, T, cfg_.niah.tasks, cfg_.niah.question, corpus(), *tokens_, tokenizer_,
                                             bytes_per_token_[split == Split::train ? 0 : 1], split);
      row = std::move(s.tokens);
      for (size_t t = 0; t < s.weights.size(); ++t)
        batch.weights.push_back(s.answer_mask[t] ? s.weights[t] * static_cast<float>(cfg_.niah.answer_weight) : s.weights[t]);
    } else if (task == "niah") {
      auto s = niah::make_training_sample(rng, T, cfg_.niah.tasks, cfg_.niah.question, corpus(), split);
      row = std::move(s.tokens);
      // The answer is ~10 bytes of a long row: answer_weight lets retrieval outweigh the haystack.
      for (size_t t = 0; t < s.weights.size(); ++t)
        batch.weights.push_back(s.answer_mask[t] ? s.weights[t] * static_cast<float>(cfg_.niah.answer_weight) : s.weights[t]);
    } else {
      row = tokens_ ? tokens_->sample_windows(split, 1, T, rng) : corpus_->sample_windows(split, 1, T, rng);
      batch.weights.insert(batch.weights.end(), size_t(T), 1.0f);
    }
    batch.tokens.insert(batch.tokens.end(), row.begin(), row.end() - 1);
    batch.targets.insert(batch.targets.end(), row.begin() + 1, row.end());
  }
  return batch;
}

Batch BatchSource::next_train_batch(std::mt19937_64& rng) const { return draw(rng, Split::train); }

std::vector<Batch> BatchSource::val_batches(int n) const {
  std::mt19937_64 rng(kValidationSeed);
  std::vector<Batch> out;
  for (int i = 0; i < n; ++i) out.push_back(draw(rng, Split::val));
  return out;
}

}  // namespace proteus::data
