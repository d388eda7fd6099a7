// RULER-style needle-in-a-haystack samples (math.md section 6), as bytes, for training and for the
// depth x length evaluation. Leaves out the model and decoding (core/eval) and RULER's other
// task families (variable tracking, word extraction, QA).
//
// Tasks (RULER's scripts/synthetic.yaml):        haystack  key    value    keys  values  asked
//   s-niah-1   (niah_single_1, the pass key)     noise     word   number   1     1       1
//   s-niah-2   (niah_single_2)                   essay     word   number   1     1       1
//   s-niah-3   (niah_single_3)                   essay     word   uuid     1     1       1
//   mk-niah-1  (niah_multikey_1)                 essay     word   number   4     1       1
//   mk-niah-2  (niah_multikey_2)                 needle    word   number   1     1       1
//   mk-niah-3  (niah_multikey_3)                 needle    uuid   uuid     1     1       1
//   mv-niah    (niah_multivalue)                 essay     word   number   1     4       1 (4 values)
//   mq-niah    (niah_multiquery)                 essay     word   number   4     1       4
// Keys: "adjective-noun" from two embedded lists of 50 words (no adjective ends another, no noun
// starts another, so no key is a substring of another). Numbers: 7 digits in [10^6, 10^7 - 1].
// UUIDs: random version-4 UUIDs, 36 lowercase characters.
//
// Needle (every task): "One of the special magic {types} for {key} is: {value}." ({types} is
// "numbers" or "uuids", always plural, as in RULER).
// Haystacks: noise = "The grass is green. The sky is blue. The sun is yellow. Here we go. There
// and back again." once per line; needle = one distractor needle per line, each with another key
// and value; essay = a passage of the corpus (from a random place in the caller's split, starting
// at a sentence), whitespace collapsed to single spaces as RULER does, needles between sentences.
// Lines are joined by "\n", sentences by " "; each needle is one more line or sentence.
//
// Question templates. {t} is "number" or "uuid" when one value is asked, "numbers"/"uuids" when
// several are (MV, MQ); {query} is the key, or "k1, k2, k3, and k4" for MQ.
//   "ruler" (RULER's template and answer prefix, singular form as RULER derives it):
//     context  = "A special magic {t} is hidden within the following text. Make sure to memorize
//                 it. I will quiz you about the {t} afterwards.\n" + haystack
//     question = "\nWhat is the special magic {t} for {query} mentioned in the provided text?"
//                " The special magic {t} for {query} mentioned in the provided text is"
//     plural:   "Some special magic {t} are hidden within ... about the {t} afterwards.\n",
//               "\nWhat are all the special magic {t} for {query} mentioned in the provided
//               text? The special magic {t} for {query} mentioned in the provided text are"
//   "short" (the same in training and evaluation):
//     context  = haystack
//     question = "\nQ: magic {t} for {query}?\nA:"
// Answer (what the model should generate after the question): " " + values joined by ", " + ".\n",
// e.g. " 1234567.\n" or " 1234567, 7654321, 1111111, 2222222.\n".
//
// Length: generate() makes context + question exactly total_length bytes by cutting the haystack
// (its last line or sentence may be cut short). Depth: each needle sits at its own depth, as in
// RULER's niah.py (which draws every needle's depth from its 40 without replacement), at the
// haystack boundary (line or sentence start, or the end) nearest to that percent of the
// haystack's bytes. So that a depth x length heatmap has a meaning, the first asked needle (the
// first value of the answer) goes at the requested depth and every other needle, asked or not
// (MV's other values, MQ's other keys, MK-NIAH-1's unasked keys), at a depth drawn without
// replacement from RULER's 40 other than the requested one.
#pragma once
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/data/byte_corpus.hpp"

namespace proteus::data::niah {

const std::vector<std::string>& task_names();  // the 8 tasks above, in that order
bool is_task(const std::string& task);
bool uses_essay(const std::string& task);           // needs a corpus for its haystack
const std::vector<std::string>& question_styles();  // "short", "ruler"

// The key word lists.
const std::vector<std::string>& key_adjectives();
const std::vector<std::string>& key_nouns();

// RULER's 40 depths round(linspace(0, 100, 40)) percent, and n of them evenly spread
// (indices round(linspace(0, 39, n)); n in [1, 40], else InputError "eval.niah.depths").
std::vector<int> ruler_depths();
std::vector<int> depths(int n);

struct NiahSample {
  std::string task;
  std::string context;                // haystack with the needles (after the preamble for "ruler")
  std::string question;               // question and answer prefix; the prompt is context + question
  std::vector<std::string> keys;      // the asked keys, in the order the question names them
  std::vector<std::string> expected;  // the values the answer must hold, in the answer's order
  std::string answer;                 // canonical continuation, " v1, v2.\n"
  int depth = 0;                      // requested depth, percent: where the first asked needle sits
  std::vector<int> needle_depths;     // depth percent of each asked needle, in expected's order
  std::vector<size_t> needle_offsets; // byte offset in context of each asked needle, in expected's order
  size_t needle_offset = 0;           // needle_offsets[0]: the needle at the requested depth

  std::string prompt() const { return context + question; }
};

// A sample whose prompt is exactly total_length bytes. essay / essay_split give the haystack of
// the essay tasks (required for them). Throws InputError: unknown task ("task"), question style
// ("question"), depth outside [0, 100] ("depth"), total_length below min_total_length
// ("total_length"), essay task without a corpus, or a corpus whose passages keep holding the
// sample's keys or values (100 draws in a row; "essay").
NiahSample generate(const std::string& task, int total_length, int depth_percent, std::mt19937_64& rng,
                    const std::string& question_style = "short", const ByteCorpus* essay = nullptr,
                    Split essay_split = Split::val);

// The shortest prompt generate() accepts for any keys (one haystack byte, the longest keys).
int min_total_length(const std::string& task, const std::string& question_style);
// The canonical answer's length in bytes (values have fixed widths).
int answer_length(const std::string& task);

// RULER's string_match_all for one sample: the fraction (0..1) of expected values that occur
// in the prediction, case-insensitively. Callers average over samples and multiply by 100.
double string_match_all(const std::string& prediction, const std::vector<std::string>& expected);

struct TrainingSample {
  std::vector<int32_t> tokens;       // (seq_len + 1) bytes: prompt, answer (ending in '\n'), filler
  std::vector<float> weights;        // (seq_len) 1 at every position: plain language modelling
  std::vector<uint8_t> answer_mask;  // (seq_len) 1 where the next-token target is an answer byte
  size_t sample_length = 0;          // bytes of prompt + answer at the row's start
  NiahSample sample;
};

// One training row of seq_len + 1 bytes: a task drawn uniformly from tasks, a depth drawn from
// RULER's 40, the haystack from corpus's split for essay tasks. The prompt and its answer take
// the row's first sample_length bytes, drawn uniformly from [max(shortest, seq_len / 4),
// seq_len + 1], so the question sits anywhere from a quarter of the row to its end and not only
// where the whole memory is active (evaluating at half the training length stays in
// distribution for a gated model). Ordinary text fills the rest of the row: a window of
// corpus's split when there is a corpus, else the noise haystack's lines; it is weighted like
// language modelling. Throws InputError when seq_len + 1 is shorter than min_total_length +
// answer_length of the drawn task ("seq_len").
TrainingSample make_training_sample(std::mt19937_64& rng, int seq_len, const std::vector<std::string>& tasks,
                                    const std::string& question_style, const ByteCorpus* corpus,
                                    Split split = Split::train);

}  // namespace proteus::data::niah
