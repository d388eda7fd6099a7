#include "core/data/niah_tokens.hpp"

#include <algorithm>
#include <cmath>

#include "core/common/input_error.hpp"

namespace proteus::data::niah {

double bytes_per_token(const ByteCorpus& corpus, const TokenCorpus& tokens, Split split) {
  const size_t n = tokens.stream(split).size();
  return n ? static_cast<double>(corpus.stream(split).size()) / static_cast<double>(n) : 1.0;
}

int sample_bytes_for_tokens(const std::string& task, const std::string& question_style, int length_tokens,
                            double bytes_per_token) {
  const int wanted = static_cast<int>(std::lround(length_tokens * std::max(1.0, bytes_per_token)));
  return std::max(wanted, min_total_length(task, question_style));
}

TokenTrainingRow make_token_training_row(std::mt19937_64& rng, int seq_len, const std::vector<std::string>& tasks,
                                         const std::string& question_style, const ByteCorpus* corpus,
                                         const TokenCorpus& tokens, const Tokenizer& tokenizer, double bytes_per_token,
                                         Split split) {
  int least = 0;  // the longest of the tasks' shortest samples, in bytes (prompt and answer)
  for (const auto& t : tasks) least = std::max(least, min_total_length(t, question_style) + answer_length(t));
  const size_t row = static_cast<size_t>(seq_len) + 1;
  // A little under the row in bytes, so that prompt and answer most often fit at the first draw.
  for (double fill = 0.9;; fill *= 0.8) {
    const int byte_row = std::max(least, static_cast<int>(seq_len * std::max(1.0, bytes_per_token) * fill));
    const auto s = make_training_sample(rng, byte_row - 1, tasks, question_style, corpus, split);
    std::string bytes;
    for (int32_t b : s.tokens) bytes.push_back(static_cast<char>(b));
    const size_t prompt = s.sample.prompt().size(), answer = s.sample_length - prompt;
    const auto tp = tokenizer.encode(std::string_view(bytes).substr(0, prompt));
    const auto ta = tokenizer.encode(std::string_view(bytes).substr(prompt, answer));
    if (tp.size() + ta.size() > row) {
      if (byte_row > least) continue;
      throw InputError("data.seq_len", "a NIAH prompt and answer of " + std::to_string(byte_row) + " bytes take " +
                                           std::to_string(tp.size() + ta.size()) + " tokens, more than a row of " +
                                           std::to_string(row) + "; give a longer data.seq_len");
    }
    TokenTrainingRow r;
    r.tokens = tp;
    r.tokens.insert(r.tokens.end(), ta.begin(), ta.end());
    const auto tf = tokenizer.encode(std::string_view(bytes).substr(s.sample_length));
    r.tokens.insert(r.tokens.end(), tf.begin(), tf.end());
    if (r.tokens.size() < row) {  // top up with the split's own text, as a text row would be
      const auto more = tokens.sample_windows(split, 1, static_cast<int>(row - r.tokens.size()) - 1, rng);
      r.tokens.insert(r.tokens.end(), more.begin(), more.end());
    }
    r.tokens.resize(row);
    r.weights.assign(static_cast<size_t>(seq_len), 1.0f);
    r.answer_mask.assign(static_cast<size_t>(seq_len), 0);
    // Target t is token t + 1: the answer's tokens [P, P + A) are the targets of [P - 1, P + A - 1).
    for (size_t i = tp.size() - 1; i + 1 < tp.size() + ta.size(); ++i) r.answer_mask[i] = 1;
    r.prompt_tokens = tp.size();
    r.answer_tokens = ta.size();
    r.sample = s.sample;
    return r;
  }
}

}  // namespace proteus::data::niah
