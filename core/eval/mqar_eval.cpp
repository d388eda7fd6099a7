#include "core/eval/mqar_eval.hpp"

#include <algorithm>
#include <random>

#include "core/data/mqar.hpp"

namespace proteus::eval {

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
      samples.push_back(data::mqar::generate(rng, T, m.vocab, m.pairs, m.alpha));
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
  return r;
}

}  // namespace proteus::eval
