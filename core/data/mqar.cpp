// MQAR sequences (mqar.hpp has the layout). Leaves out batching: one sequence per call.
#include "core/data/mqar.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "core/common/input_error.hpp"
#include "core/config/data_values.hpp"
#include "core/data/distinct_sample.hpp"

namespace proteus::data::mqar {
const std::vector<std::string>& layouts() { return config::mqar_layout_names(); }

void check(int seq_len, int vocab, int pairs, double alpha, const std::string& layout) {
  if (std::find(layouts().begin(), layouts().end(), layout) == layouts().end())
    throw InputError("data.mqar.layout", "must be \"pairs-first\" or \"spread\", got \"" + layout + "\"");
  if (vocab <= seq_len)
    throw InputError("data.mqar.vocab",
                     "must exceed the sequence length " + std::to_string(seq_len) + ", got " + std::to_string(vocab));
  if (pairs < 1) throw InputError("data.mqar.pairs", "must be at least 1, got " + std::to_string(pairs));
  if (4 * pairs > seq_len)
    throw InputError("data.mqar.pairs",
                     std::to_string(pairs) + " pairs need 4 * pairs = " + std::to_string(4 * pairs) +
                         " positions (context and query slots), more than seq_len = " + std::to_string(seq_len));
  if (!(alpha > 0.0) || !std::isfinite(alpha))
    throw InputError("data.mqar.alpha", "must be a positive number, got " + std::to_string(alpha));
}

MqarSample generate(std::mt19937_64& rng, int seq_len, int vocab, int pairs, double alpha, const std::string& layout) {
  check(seq_len, vocab, pairs, alpha, layout);
  const int half = vocab / 2;
  const std::vector<int32_t> keys = distinct_sample(rng, 1, half, pairs);
  const std::vector<int32_t> values = distinct_sample(rng, half, vocab, pairs);
  const size_t T = size_t(seq_len), n = size_t(pairs);

  // seq holds T + 1 tokens so that targets are its shift; the answers overwrite the targets.
  std::vector<int32_t> seq(T + 1, 0);
  std::vector<std::pair<size_t, int32_t>> answers;  // (query position, value)
  if (layout == "spread") {
    // 2n distinct two-token slots in random order: couple i is slots 2i and 2i + 1 of the draw.
    const std::vector<int32_t> slots = distinct_sample(rng, 0, int32_t(T / 2), 2 * pairs);
    for (size_t i = 0; i < n; ++i) {
      const size_t pair_at = 2 * size_t(std::min(slots[2 * i], slots[2 * i + 1]));
      const size_t query_at = 2 * size_t(std::max(slots[2 * i], slots[2 * i + 1]));
      seq[pair_at] = keys[i];
      seq[pair_at + 1] = values[i];
      seq[query_at] = keys[i];
      answers.push_back({query_at, values[i]});
    }
  } else {
    const size_t context = 2 * n;
    const size_t slots = (T - context) / 2;
    std::vector<double> weight(slots);
    for (size_t g = 0; g < slots; ++g) weight[g] = std::pow(double(g + 1), alpha - 1.0);
    for (size_t i = 0; i < n; ++i) {
      seq[2 * i] = keys[i];
      seq[2 * i + 1] = values[i];
    }
    for (size_t i = 0; i < n; ++i) {
      std::discrete_distribution<size_t> pick(weight.begin(), weight.end());
      const size_t g = pick(rng);
      weight[g] = 0.0;  // without replacement
      const size_t at = context + 2 * g;
      seq[at] = keys[i];
      answers.push_back({at, values[i]});
    }
  }
  MqarSample s;
  s.mask.assign(T, 0.0f);
  s.inputs.assign(seq.begin(), seq.end() - 1);
  s.targets.assign(seq.begin() + 1, seq.end());
  for (const auto& [at, value] : answers) {
    s.targets[at] = value;
    s.mask[at] = 1.0f;
  }
  return s;
}

}  // namespace proteus::data::mqar
