// Greedy decoding, byte by byte, for the retrieval evaluations. Each new byte reruns the
// forward over the whole prefix: simple and exactly the training computation, which is what
// an evaluation should exercise (a recurrent decoding cache would be faster, not different).
#pragma once
#include <string>

#include "core/model/model.hpp"

namespace proteus::eval {

// Appends up to max_new bytes to prompt, stopping after a newline (not included in the result).
template <class T>
std::string greedy_generate(model::Model<T>& model, const std::string& prompt, int max_new);

}  // namespace proteus::eval
