// Token windows of a corpus (token_corpus.hpp).
#include "core/data/token_corpus.hpp"

namespace proteus::data {
namespace {

// A split's documents, each with its "\n\n", encoded one document at a time (no piece spans a
// newline, so the ids are those of the whole stream).
std::vector<int32_t> encode_split(const std::vector<Document>& documents, const Tokenizer& tokenizer) {
  std::vector<int32_t> ids;
  const auto gap = tokenizer.encode("\n\n");
  for (const auto& d : documents) {
    const auto text = tokenizer.encode(d.text);
    ids.insert(ids.end(), text.begin(), text.end());
    ids.insert(ids.end(), gap.begin(), gap.end());
  }
  return ids;
}

}  // namespace

TokenCorpus::TokenCorpus(const ByteCorpus& corpus, const Tokenizer& tokenizer)
    : train_(encode_split(corpus.documents(Split::train), tokenizer)),
      val_(encode_split(corpus.documents(Split::val), tokenizer)) {}

std::vector<int32_t> TokenCorpus::sample_windows(Split split, int batch, int seq_len, std::mt19937_64& rng) const {
  const auto& s = stream(split);
  std::vector<int32_t> ids;
  ids.reserve(size_t(batch) * size_t(seq_len + 1));
  std::uniform_int_distribution<size_t> start(0, s.size() - 1);
  for (int b = 0; b < batch; ++b) {
    size_t at = start(rng);
    for (int i = 0; i <= seq_len; ++i, ++at) ids.push_back(s[at % s.size()]);
  }
  return ids;
}

}  // namespace proteus::data
