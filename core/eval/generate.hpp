// Greedy decoding, byte by byte, for the retrieval evaluations. Each new byte reruns the
// forward over the whole prefix: simple and exactly the training computation, which is what
// an evaluation should exercise (a recurrent decoding cache would be faster, not different).
#pragma once
#include <string>

#include <cstdint>
#include <vector>

#include "core/data/tokenizer.hpp"
#include "core/model/model.hpp"

namespace proteus::eval {

// Appends up to max_new bytes to prompt, stopping after a newline (not included in the result).
template <class T>
std::string greedy_generate(model::Model<T>& model, const std::string& prompt, int max_new);

// The same over a tokenizer's ids: appends tokens to `prompt` until their text holds a newline
// (the text before it is returned) or max_new_bytes bytes (cut there).
template <class T>
std::string greedy_generate(model::Model<T>& model, std::vector<int32_t> prompt, const data::Tokenizer& tokenizer,
                            int max_new_bytes);

}  // namespace proteus::eval
