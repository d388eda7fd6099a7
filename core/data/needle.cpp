// Token needle prompts and training rows (needle.hpp has the layout). Leaves out batching: one
// prompt or row per call.
#include "core/data/needle.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/common/input_error.hpp"
#include "core/config/data_values.hpp"
#include "core/data/distinct_sample.hpp"

namespace proteus::data::needle {
namespace {

void check_form(const std::string& form, const std::string& field) {
  if (!is_form(form)) throw InputError(field, "must be \"single\" or \"multikey\", got \"" + form + "\"");
}

// The prompt with the asked needle after `before` of the H filler tokens.
NeedleSample build(const config::NeedleConfig& cfg, const std::string& form, int length, size_t before,
                   std::mt19937_64& rng) {
  const Vocab v = vocab_layout(cfg.vocab);
  const int m = needles(form, cfg.distractors);
  const size_t H = size_t(length - min_length(form, cfg.distractors));
  const std::vector<int32_t> keys = distinct_sample(rng, v.key_lo, v.key_hi, m);
  const std::vector<int32_t> values = distinct_sample(rng, v.value_lo, v.value_hi, m);

  // Needle i goes after gap[i] filler tokens; needle 0 is the asked one. A random tie-break
  // orders needles that share a gap.
  struct Slot {
    size_t gap;
    uint64_t tie;
    int needle;
  };
  std::vector<Slot> slots;
  slots.push_back({before, rng(), 0});
  for (int i = 1; i < m; ++i) slots.push_back({std::uniform_int_distribution<size_t>(0, H)(rng), rng(), i});
  std::sort(slots.begin(), slots.end(),
            [](const Slot& a, const Slot& b) { return a.gap != b.gap ? a.gap < b.gap : a.tie < b.tie; });

  NeedleSample s;
  s.form = form;
  s.key = keys[0];
  s.value = values[0];
  s.filler_before = before;
  s.prompt.reserve(size_t(length));
  std::uniform_int_distribution<int32_t> filler(v.filler_lo, v.filler_hi - 1);
  size_t placed = 0;
  for (const Slot& slot : slots) {
    for (; placed < slot.gap; ++placed) s.prompt.push_back(filler(rng));
    if (slot.needle == 0) s.needle_at = s.prompt.size();
    else s.distractors_at.push_back(s.prompt.size());
    s.prompt.push_back(keys[size_t(slot.needle)]);
    s.prompt.push_back(values[size_t(slot.needle)]);
  }
  for (; placed < H; ++placed) s.prompt.push_back(filler(rng));
  s.prompt.push_back(kQuestion);
  s.prompt.push_back(s.key);
  return s;
}

}  // namespace

const std::vector<std::string>& forms() { return config::needle_form_names(); }

bool is_form(const std::string& form) { return std::find(forms().begin(), forms().end(), form) != forms().end(); }

Vocab vocab_layout(int vocab) {
  const int32_t q = (vocab - 1) / 4;
  return Vocab{1, 1 + q, 1 + q, 1 + 2 * q, 1 + 2 * q, vocab};
}

int needles(const std::string& form, int distractors) { return form == "multikey" ? distractors + 1 : 1; }

int min_length(const std::string& form, int distractors) { return 2 * needles(form, distractors) + 2; }

void check(const config::NeedleConfig& cfg, int seq_len) {
  if (cfg.forms.empty()) throw InputError("data.needle.forms", "must hold at least one form (single, multikey)");
  for (size_t i = 0; i < cfg.forms.size(); ++i)
    check_form(cfg.forms[i], "data.needle.forms[" + std::to_string(i) + "]");
  const bool multikey = std::find(cfg.forms.begin(), cfg.forms.end(), "multikey") != cfg.forms.end();
  if (multikey && cfg.distractors < 1)
    throw InputError("data.needle.distractors", "must be at least 1 for the multikey form, got " +
                                                    std::to_string(cfg.distractors));
  if (cfg.vocab < 8) throw InputError("data.needle.vocab", "must be at least 8, got " + std::to_string(cfg.vocab));
  int most = 1;
  for (const auto& f : cfg.forms) most = std::max(most, needles(f, cfg.distractors));
  const int q = (cfg.vocab - 1) / 4;
  if (q < most)
    throw InputError("data.needle.vocab", std::to_string(most) + " needles need as many distinct keys and values: a "
                                          "vocab of at least " + std::to_string(4 * most + 1) + ", got " +
                                          std::to_string(cfg.vocab));
  for (const auto& f : cfg.forms)
    if (seq_len < min_length(f, cfg.distractors))
      throw InputError("data.seq_len", "the " + f + " needle form needs at least " +
                                           std::to_string(min_length(f, cfg.distractors)) + " tokens, got " +
                                           std::to_string(seq_len));
}

NeedleSample generate(const config::NeedleConfig& cfg, const std::string& form, int length, int depth_percent,
                      std::mt19937_64& rng) {
  check_form(form, "form");
  config::NeedleConfig one = cfg;
  one.forms = {form};
  check(one, min_length(form, cfg.distractors));
  if (depth_percent < 0 || depth_percent > 100)
    throw InputError("depth", "must be in [0, 100] percent, got " + std::to_string(depth_percent));
  const int least = min_length(form, cfg.distractors);
  if (length < least)
    throw InputError("length", "the " + form + " needle form needs at least " + std::to_string(least) +
                                   " tokens, got " + std::to_string(length));
  const size_t H = size_t(length - least);
  auto s = build(cfg, form, length, size_t(std::lround(depth_percent / 100.0 * double(H))), rng);
  s.depth = depth_percent;
  return s;
}

TrainingRow make_training_row(const config::NeedleConfig& cfg, int seq_len, std::mt19937_64& rng) {
  check(cfg, seq_len);
  const std::string& form = cfg.forms[std::uniform_int_distribution<size_t>(0, cfg.forms.size() - 1)(rng)];
  const int least = min_length(form, cfg.distractors);
  const int length = std::uniform_int_distribution<int>(std::max(least, seq_len / 4), seq_len)(rng);
  const size_t H = size_t(length - least);
  TrainingRow row;
  row.sample = build(cfg, form, length, std::uniform_int_distribution<size_t>(0, H)(rng), rng);
  row.sample.depth = H ? int(std::lround(100.0 * double(row.sample.filler_before) / double(H))) : 0;
  row.prompt_length = size_t(length);
  row.tokens = row.sample.prompt;
  row.tokens.push_back(row.sample.value);
  const Vocab v = vocab_layout(cfg.vocab);
  std::uniform_int_distribution<int32_t> filler(v.filler_lo, v.filler_hi - 1);
  while (row.tokens.size() < size_t(seq_len) + 1) row.tokens.push_back(filler(rng));
  row.weights.assign(size_t(seq_len), 0.0f);
  row.weights[row.prompt_length - 1] = 1.0f;
  return row;
}

}  // namespace proteus::data::needle
