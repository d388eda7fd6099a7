// A token-level needle in a haystack on a small vocabulary: the NIAH idea (math.md section 6) in a
// form a small model learns within a CPU budget. Keys and values are single tokens, as in MQAR
// (mqar.hpp), from disjoint parts of the vocabulary; the haystack is filler tokens. Leaves out
// text: the byte-level RULER tasks are niah.hpp.
//
// Vocabulary of V = data.needle.vocab tokens, q = floor((V - 1) / 4):
//   0                 the question marker
//   [1, 1 + q)        keys
//   [1 + q, 1 + 2q)   values
//   [1 + 2q, V)       filler
// A needle is two tokens `k v`. A prompt of n tokens is a context of n - 2 tokens (H = n - 2 - 2m
// filler tokens drawn uniformly, with the m needles between them), then the question `0 k`; the
// answer is the asked key's value, the token after the prompt.
// Forms: "single" (one needle, m = 1) and "multikey" (the asked needle and `distractors` others,
// each with its own key and value, all distinct; m = distractors + 1).
// Depth: the asked needle follows round(depth / 100 * H) filler tokens (0: the context opens with
// it; 100: it comes right before the question). Each distractor follows a number of filler tokens
// drawn uniformly from [0, H]; needles after the same filler token come in random order.
#pragma once
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/config/config.hpp"

namespace proteus::data::needle {

const std::vector<std::string>& forms();  // "single", "multikey"
bool is_form(const std::string& form);

constexpr int32_t kQuestion = 0;

// The token ranges of a vocabulary of `vocab` tokens, each [lo, hi).
struct Vocab {
  int32_t key_lo = 0, key_hi = 0;
  int32_t value_lo = 0, value_hi = 0;
  int32_t filler_lo = 0, filler_hi = 0;
};
Vocab vocab_layout(int vocab);

// Needles in a prompt of the form, and the shortest prompt that holds them and the question.
int needles(const std::string& form, int distractors);
int min_length(const std::string& form, int distractors);

// Throws InputError naming the field: vocab below 8 or too small for the needles' distinct keys
// and values ("data.needle.vocab"), no forms or an unknown one ("data.needle.forms[i]"),
// distractors < 1 with multikey ("data.needle.distractors"), a seq_len shorter than a form's
// shortest prompt ("data.seq_len").
void check(const config::NeedleConfig& cfg, int seq_len);

struct NeedleSample {
  std::string form;
  std::vector<int32_t> prompt;         // (length) context, then the question marker and the asked key
  int32_t key = 0;                     // the asked key
  int32_t value = 0;                   // the answer
  int depth = 0;                       // percent (the requested one; in training rows, the drawn one rounded)
  size_t filler_before = 0;            // filler tokens before the asked needle
  size_t needle_at = 0;                // index in prompt of the asked needle's key
  std::vector<size_t> distractors_at;  // index in prompt of each distractor's key
};

// A prompt of exactly `length` tokens with the asked needle at depth percent. Throws InputError:
// unknown form ("form"), depth outside [0, 100] ("depth"), length below min_length ("length"),
// and check()'s errors.
NeedleSample generate(const config::NeedleConfig& cfg, const std::string& form, int length, int depth_percent,
                      std::mt19937_64& rng);

struct TrainingRow {
  std::vector<int32_t> tokens;  // (seq_len + 1) prompt, answer, then filler to the row's end
  std::vector<float> weights;   // (seq_len) 1 on the answer (the target of position prompt_length - 1), else 0
  size_t prompt_length = 0;
  NeedleSample sample;
};

// One training row: a form drawn uniformly from cfg.forms, the asked needle after a number of
// filler tokens drawn uniformly from [0, H] (uniform depths), and the prompt length drawn
// uniformly from [max(min_length, seq_len / 4), seq_len], so that the question sits anywhere
// from a quarter of the row to its end (as NIAH training rows do: niah.hpp).
TrainingRow make_training_row(const config::NeedleConfig& cfg, int seq_len, std::mt19937_64& rng);

}  // namespace proteus::data::needle
