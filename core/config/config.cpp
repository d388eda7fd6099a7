// Derived config values: the defaults that depend on other fields (config.hpp says which), resolved
// in one place so the model, the trainer and the JSON writer agree on them.
#include "core/config/config.hpp"

namespace proteus::config {

int resolved_d_hidden(const ModelConfig& m) {
  if (m.d_hidden > 0) return m.d_hidden;
  // ceil(8/3 d_model / 32) * 32 in integers: ceil(8 d_model / 96) * 32, no rounding surprises.
  const int64_t units = (8 * static_cast<int64_t>(m.d_model) + 95) / 96;
  return static_cast<int>(units * 32);
}

std::string describe_mlp_chain(const MlpConfig& mlp) {
  if (mlp.chain.size() == 1 && mlp.chain[0].every == 1) return "MLP: one SwiGLU block, updated every step";
  std::string every;
  for (size_t i = 0; i < mlp.chain.size(); ++i) every += (i ? ", " : "") + std::to_string(mlp.chain[i].every);
  return "MLP chain: " + std::to_string(mlp.chain.size()) + " SwiGLU blocks, updated every " + every + " steps";
}

int resolved_mixer_horizon(const RunConfig& c) { return c.model.mixer.N > 0 ? c.model.mixer.N : c.data.seq_len; }

const std::vector<std::string>& device_names() {
  static const std::vector<std::string> names = {"cpu", "cuda"};
  return names;
}

const std::vector<common::Named<MixerType>>& name_table(MixerType) {
  static const std::vector<common::Named<MixerType>> table = {{MixerType::memory, "memory"},
                                                              {MixerType::attention, "attention"}};
  return table;
}

const std::vector<common::Named<OutputGate>>& name_table(OutputGate) {
  static const std::vector<common::Named<OutputGate>> table = {
      {OutputGate::none, "none"}, {OutputGate::swish, "swish"}, {OutputGate::sigmoid, "sigmoid"}};
  return table;
}

const std::vector<common::Named<Tokenizer>>& name_table(Tokenizer) {
  static const std::vector<common::Named<Tokenizer>> table = {{Tokenizer::bytes, "bytes"}, {Tokenizer::bpe, "bpe"}};
  return table;
}

int resolved_per_position_length(const RunConfig& c) {
  return c.eval.per_position.seq_len > 0 ? c.eval.per_position.seq_len : 4 * c.data.seq_len;
}

int resolved_param_horizon(const RunConfig& c) {
  return c.model.param_schedule.N > 0 ? c.model.param_schedule.N : c.train.steps;
}

}  // namespace proteus::config
