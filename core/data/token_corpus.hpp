// A byte corpus seen through a BPE tokenizer: each split's stream (its documents, each followed by
// "\n\n", as ByteCorpus::stream) encoded once into token ids, and random windows of tokens from
// it, as ByteCorpus gives windows of bytes. Byte runs never build one: their windows stay
// ByteCorpus's, bit for bit.
#pragma once
#include <cstdint>
#include <random>
#include <vector>

#include "core/data/byte_corpus.hpp"
#include "core/data/tokenizer.hpp"

namespace proteus::data {

class TokenCorpus {
 public:
  TokenCorpus(const ByteCorpus& corpus, const Tokenizer& tokenizer);

  const std::vector<int32_t>& stream(Split split) const { return split == Split::train ? train_ : val_; }
  // (batch, seq_len + 1) ids, row-major, each row a window from a uniformly random offset of the
  // split's token stream (wrapping around its end).
  std::vector<int32_t> sample_windows(Split split, int batch, int seq_len, std::mt19937_64& rng) const;

 private:
  std::vector<int32_t> train_, val_;
};

}  // namespace proteus::data
