#include "core/eval/generate.hpp"

#include <algorithm>
#include <vector>

namespace proteus::eval {

template <class T>
std::string greedy_generate(model::Model<T>& model, const std::string& prompt, int max_new) {
  std::vector<int32_t> tokens(prompt.begin(), prompt.end());
  for (auto& t : tokens) t = static_cast<unsigned char>(t);
  std::string out;
  for (int i = 0; i < max_new && !tokens.empty(); ++i) {
    model.forward(tokens.data(), nullptr, nullptr, 1, static_cast<int>(tokens.size()));
    const auto logits = model.logits_at(0, static_cast<int>(tokens.size()) - 1);
    const int next = static_cast<int>(std::max_element(logits.begin(), logits.end()) - logits.begin());
    if (next == '\n') break;
    out.push_back(static_cast<char>(next));
    tokens.push_back(next);
  }
  return out;
}

template <class T>
std::string greedy_generate(model::Model<T>& model, std::vector<int32_t> tokens, const data::Tokenizer& tokenizer,
                            int max_new_bytes) {
  std::string out;
  while (static_cast<int>(out.size()) < max_new_bytes && !tokens.empty()) {
    model.forward(tokens.data(), nullptr, nullptr, 1, static_cast<int>(tokens.size()));
    const auto logits = model.logits_at(0, static_cast<int>(tokens.size()) - 1);
    const int next = static_cast<int>(std::max_element(logits.begin(), logits.end()) - logits.begin());
    const std::string& piece = tokenizer.bytes_of(next);
    const size_t newline = piece.find('\n');
    out += piece.substr(0, newline);
    if (newline != std::string::npos) break;
    tokens.push_back(next);
  }
  if (static_cast<int>(out.size()) > max_new_bytes) out.resize(static_cast<size_t>(max_new_bytes));
  return out;
}

template std::string greedy_generate<float>(model::Model<float>&, const std::string&, int);
template std::string greedy_generate<double>(model::Model<double>&, const std::string&, int);
template std::string greedy_generate<float>(model::Model<float>&, std::vector<int32_t>, const data::Tokenizer&, int);
template std::string greedy_generate<double>(model::Model<double>&, std::vector<int32_t>, const data::Tokenizer&, int);

}  // namespace proteus::eval
