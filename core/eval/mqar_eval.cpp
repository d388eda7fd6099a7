#include "core/eval/mqar_eval.hpp"

#include <algorithm>
#include <random>

#include "core/config/mixer_schedule.hpp"
#include "core/data/mqar.hpp"
#include "core/memory/schedule.hpp"

namespace proteus::eval {

std::string mqar_layout_note(const config::RunConfig& cfg) {
  const auto& m = cfg.data.mqar;
  const auto& x = cfg.model.mixer;
  if (m.layout == "spread")
    return "spread: pairs and queries interleaved over all " + std::to_string(cfg.data.seq_len) +
           " positions, each query after its pair";
  const int64_t last = 2 * int64_t(m.pairs);
  std::string note = "pairs-first (Zoology): every pair is written in positions 1-" + std::to_string(last) + " of " +
                     std::to_string(cfg.data.seq_len) + ", while the fewest memory blocks are active";
  if (x.type == config::MixerType::memory) {
    const auto schedule = config::schedule_from_config(cfg);
    note += " (" + std::to_string(schedule.active_blocks(last)) + " of E = " + std::to_string(x.E) +
            " at position " + std::to_string(last) + ")";
  }
  return note;
}

MqarResult mqar_eval(model::Model<float>& model, const config::RunConfig& cfg) {
  const auto& m = cfg.data.mqar;
  const int T = cfg.data.seq_len;
  std::mt19937_64 rng(0x3a9u);  // held-out draws, the same for every run
  MqarResult r;
  const int batch = std::max(1, cfg.data.batch);
  int correct = 0;
  for (int first = 0; first < cfg.eval.mqar.samples; first += batch) {
    const int B = std::min(batch, cfg.eval.mqar.samples - first);
    std::vector<int32_t> tokens;
    std::vector<data::mqar::MqarSample> samples;
    for (int b = 0; b < B; ++b) {
      samples.push_back(data::mqar::generate(rng, T, m.vocab, m.pairs, m.alpha, m.layout));
      tokens.insert(tokens.end(), samples.back().inputs.begin(), samples.back().inputs.end());
    }
    model.forward(tokens.data(), nullptr, nullptr, B, T);
    for (int b = 0; b < B; ++b)
      for (int t = 0; t < T; ++t) {
        if (samples[b].mask[t] == 0.0f) continue;
        const auto logits = model.logits_at(b, t);
        const int guess = static_cast<int>(std::max_element(logits.begin(), logits.end()) - logits.begin());
        correct += guess == samples[b].targets[t];
        ++r.answers;
      }
    r.samples += B;
  }
  r.accuracy = r.answers ? double(correct) / r.answers : 0.0;
  r.layout = m.layout;
  r.note = mqar_layout_note(cfg);
  return r;
}

}  // namespace proteus::eval
