// MQAR sequences (mqar.hpp has the layout). Leaves out batching: one sequence per call.
#include "core/data/mqar.hpp"

#include <cmath>
#include <numeric>
#include <string>

#include "core/common/input_error.hpp"

namespace proteus::data::mqar {
namespace {

// k distinct values of [lo, hi), in random order (a partial Fisher-Yates shuffle).
std::vector<int32_t> distinct(std::mt19937_64& rng, int32_t lo, int32_t hi, int k) {
  std::vector<int32_t> pool(size_t(hi - lo));
  std::iota(pool.begin(), pool.end(), lo);
  for (int i = 0; i < k; ++i) {
    const size_t j = std::uniform_int_distribution<size_t>(size_t(i), pool.size() - 1)(rng);
    std::swap(pool[size_t(i)], pool[j]);
  }
  pool.resize(size_t(k));
  return pool;
}

}  // namespace

void check(int seq_len, int vocab, int pairs, double alpha) {
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

MqarSample generate(std::mt19937_64& rng, int seq_len, int vocab, int pairs, double alpha) {
  check(seq_len, vocab, pairs, alpha);
  const int half = vocab / 2;
  const std::vector<int32_t> keys = distinct(rng, 1, half, pairs);
  const std::vector<int32_t> values = distinct(rng, half, vocab, pairs);

  const size_t T = size_t(seq_len), context = 2 * size_t(pairs);
  const size_t slots = (T - context) / 2;
  std::vector<double> weight(slots);
  for (size_t g = 0; g < slots; ++g) weight[g] = std::pow(double(g + 1), alpha - 1.0);

  // seq holds T + 1 tokens so that targets are its shift; the answers overwrite the targets.
  std::vector<int32_t> seq(T + 1, 0);
  for (size_t i = 0; i < size_t(pairs); ++i) {
    seq[2 * i] = keys[i];
    seq[2 * i + 1] = values[i];
  }
  MqarSample s;
  s.mask.assign(T, 0.0f);
  std::vector<std::pair<size_t, int32_t>> answers;
  for (size_t i = 0; i < size_t(pairs); ++i) {
    std::discrete_distribution<size_t> pick(weight.begin(), weight.end());
    const size_t g = pick(rng);
    weight[g] = 0.0;  // without replacement
    const size_t at = context + 2 * g;
    seq[at] = keys[i];
    answers.push_back({at, values[i]});
  }
  s.inputs.assign(seq.begin(), seq.end() - 1);
  s.targets.assign(seq.begin() + 1, seq.end());
  for (const auto& [at, value] : answers) {
    s.targets[at] = value;
    s.mask[at] = 1.0f;
  }
  return s;
}

}  // namespace proteus::data::mqar
