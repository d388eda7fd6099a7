#include "core/eval/evaluate.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include "core/data/byte_corpus.hpp"
#include "core/data/mqar.hpp"
#include "core/data/token_corpus.hpp"
#include "core/data/needle.hpp"
#include "core/data/niah_tokens.hpp"

namespace proteus::eval {
namespace {

bool mix_has(const config::RunConfig& cfg, const std::string& task) {
  for (const auto& m : cfg.data.mix)
    if (m.task == task && m.weight > 0) return true;
  return false;
}

// Held-out text sequences of seq_len + 1 tokens (bytes, or BPE ids when `tokens` is given), the
// same for every run of a corpus and tokenizer.
std::vector<std::vector<int32_t>> text_sequences(const data::ByteCorpus& corpus, const data::TokenCorpus* tokens, int n,
                                                 int seq_len) {
  std::mt19937_64 rng(0x7e57u);
  const auto flat = tokens ? tokens->sample_windows(data::Split::val, n, seq_len, rng)
                           : corpus.sample_windows(data::Split::val, n, seq_len, rng);
  std::vector<std::vector<int32_t>> out(n);
  for (int i = 0; i < n; ++i)
    out[i].assign(flat.begin() + static_cast<size_t>(i) * (seq_len + 1),
                  flat.begin() + static_cast<size_t>(i + 1) * (seq_len + 1));
  return out;
}

}  // namespace

EvalReport evaluate(model::Model<float>& model, const config::RunConfig& cfg, const data::Tokenizer& tokenizer,
                    const EvalProgress& progress, const EvalParts& parts, const ProgressiveCurve& progressive) {
  EvalReport report;
  auto go_on = [&](const std::string& phase, double f) { return !progress || progress(phase, f); };
  const bool text = mix_has(cfg, "text") || mix_has(cfg, "niah");
  std::optional<data::ByteCorpus> corpus;
  std::optional<data::TokenCorpus> tokens;  // bpe runs only
  if (text) corpus = data::ByteCorpus::load(cfg.data.text.path, cfg.data.text.holdout);
  if (text && !tokenizer.is_bytes()) tokens.emplace(*corpus, tokenizer);
  const data::TokenCorpus* token_windows = tokens ? &*tokens : nullptr;
  const int batch = std::max(1, cfg.data.batch);

  if (parts.per_position && cfg.eval.per_position.enabled && text) {
    if (!go_on("per-position loss", 0)) return report;
    const int L = config::resolved_per_position_length(cfg);
    const auto seqs = text_sequences(*corpus, token_windows, cfg.eval.per_position.sequences, L);
    // Polled after every batch, so a stale evaluation (Explore's) stops within one forward.
    PerPositionProgress by_batch;
    by_batch.on_batch = [&](int done, int total) { return go_on("per-position loss", static_cast<double>(done) / total); };
    if (progressive.on_partial) {
      by_batch.on_partial = progressive.on_partial;
      by_batch.first_batch = progressive.first_batch;
    }
    auto p = per_position_loss(model, seqs, cfg.eval.per_position.buckets, batch, cfg.data.seq_len, by_batch);
    if (p.sequences == 0) return report;
    set_text_units(p, seqs, tokenizer);
    report.per_position = std::move(p);
  }
  if (parts.occupancy && cfg.eval.occupancy.enabled && cfg.model.mixer.type == config::MixerType::memory) {
    if (!go_on("block occupancy", 0)) return report;
    const int L = cfg.eval.occupancy.seq_len > 0 ? cfg.eval.occupancy.seq_len : cfg.data.seq_len;
    const int B = 4;
    // Rows for the memory to read: the run's text, else its needle prompts, else its MQAR rows.
    // Empty when the data cannot make rows that long (MQAR needs a vocabulary beyond the length).
    const auto probe_tokens = [&](int rows, int len, uint64_t seed) {
      std::vector<int32_t> out;
      std::mt19937_64 rng(seed);
      if (text) {
        for (const auto& s : text_sequences(*corpus, token_windows, rows, len)) out.insert(out.end(), s.begin(), s.end() - 1);
      } else if (mix_has(cfg, "needle") && !mix_has(cfg, "mqar")) {
        const auto& n = cfg.data.needle;
        for (int b = 0; b < rows; ++b) {
          const auto s = data::needle::generate(n, n.forms.front(), len, 50, rng);
          out.insert(out.end(), s.prompt.begin(), s.prompt.end());
        }
      } else if (cfg.data.mqar.vocab > len) {
        const auto& m = cfg.data.mqar;
        for (int b = 0; b < rows; ++b) {
          const auto s = data::mqar::generate(rng, len, m.vocab, m.pairs, m.alpha, m.layout);
          out.insert(out.end(), s.inputs.begin(), s.inputs.end());
        }
      }
      return out;
    };
    const auto tokens = probe_tokens(B, L, 0x0cc);
    if (!tokens.empty()) report.occupancy = block_occupancy(model, tokens, B, L, cfg.eval.occupancy.blocks);

    // Block use at N/4, N/2, N, 2N over more sequences than the picture needs: it is a number
    // with an interval.
    if (parts.block_use) {
      if (!go_on("block use", 0)) return report;
      const auto positions = block_use_positions(model.horizon());
      const int Lu = positions.back(), Bu = 16;
      const auto use_tokens = probe_tokens(Bu, Lu, 0xb10c);
      if (use_tokens.empty()) {
        report.block_use = BlockUseResult{};
        report.block_use->reason = "no sequences of " + std::to_string(Lu) + " tokens (2N) for this data";
      } else {
        report.block_use = block_use(model, use_tokens, Bu, Lu, positions);
      }
    }
  }
  if (parts.mqar && cfg.eval.mqar.enabled) {
    if (!go_on("mqar", 0)) return report;
    report.mqar = mqar_eval(model, cfg);
  }
  if (parts.needle && cfg.eval.needle.enabled && mix_has(cfg, "needle")) {
    if (!go_on("needle", 0)) return report;
    bool cancelled = false;
    report.needle = needle_eval(model, cfg, [&](int done, int total) {
      cancelled = !go_on("needle " + std::to_string(done) + "/" + std::to_string(total), double(done) / total);
      return !cancelled;
    });
    if (cancelled) return report;
  }
  if (parts.niah && cfg.eval.niah.enabled && mix_has(cfg, "niah")) {
    if (!go_on("niah", 0)) return report;
    bool cancelled = false;
    const double bpt = tokens ? data::niah::bytes_per_token(*corpus, *tokens, data::Split::val) : 1.0;
    report.niah = niah_eval(model, cfg, corpus ? &*corpus : nullptr, [&](int done, int total) {
      cancelled = !go_on("niah " + std::to_string(done) + "/" + std::to_string(total), double(done) / total);
      return !cancelled;
    }, tokens ? &tokenizer : nullptr, bpt);
  }
  return report;
}

}  // namespace proteus::eval
