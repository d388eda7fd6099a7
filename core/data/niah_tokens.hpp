// NIAH in BPE tokens (math.md section 8: NIAH works with data.tokenizer bpe). The byte samples of
// niah.hpp are drawn at the token length times the corpus's bytes per token, then their prompt,
// answer and filler are encoded apart, so the answer's tokens are exactly its own (the loss and
// the scoring see the answer, never a piece that straddles it and the prompt). Lengths are in
// tokens: a row is seq_len + 1 tokens; an evaluation prompt is about the asked length in tokens.
#pragma once
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/data/byte_corpus.hpp"
#include "core/data/niah.hpp"
#include "core/data/token_corpus.hpp"
#include "core/data/tokenizer.hpp"

namespace proteus::data::niah {

// Mean UTF-8 bytes per token of a split: its byte stream over its token stream.
double bytes_per_token(const ByteCorpus& corpus, const TokenCorpus& tokens, Split split);

struct TokenTrainingRow {
  std::vector<int32_t> tokens;       // (seq_len + 1): prompt, answer (ending in '\n'), filler
  std::vector<float> weights;        // (seq_len) 1 at every position
  std::vector<uint8_t> answer_mask;  // (seq_len) 1 where the next-token target is an answer token
  size_t prompt_tokens = 0, answer_tokens = 0;
  NiahSample sample;
};

// One training row of seq_len + 1 tokens: make_training_sample's byte row drawn at about
// seq_len x bytes_per_token bytes (smaller again while prompt and answer do not fit), encoded
// piece by piece; the filler cut at the row's end, or topped up from the split's token stream.
// Throws InputError("data.seq_len") when even the shortest sample's prompt and answer do not fit.
TokenTrainingRow make_token_training_row(std::mt19937_64& rng, int seq_len, const std::vector<std::string>& tasks,
                                         const std::string& question_style, const ByteCorpus* corpus,
                                         const TokenCorpus& tokens, const Tokenizer& tokenizer, double bytes_per_token,
                                         Split split);

// The byte length of an evaluation sample of about `length_tokens` tokens (at least the task's
// shortest).
int sample_bytes_for_tokens(const std::string& task, const std::string& question_style, int length_tokens,
                            double bytes_per_token);

}  // namespace proteus::data::niah
