// Text to token ids and back (math.md section 8, "Tokens and units"): `bytes` (ids are the UTF-8
// bytes, 256 of them: today's model) or a SentencePiece BPE model trained on a corpus's training
// split, with byte fallback so that any text encodes, identity normalisation and no dummy prefix,
// so that decoding the ids gives the text back byte for byte. A BPE run keeps the model in its
// folder (kTokenizerFile) and names it by its hash in config.json (data.tokenizer_hash).
// Leaves out special tokens (no BOS/EOS; id 0 is <unk>, never produced with byte fallback) and
// sampling encodings. Built without SentencePiece, `bpe` is refused (InputError data.tokenizer).
#pragma once
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/config/config.hpp"
#include "core/data/byte_corpus.hpp"

namespace proteus::data {

// The BPE model's file in a run's folder.
inline constexpr const char* kTokenizerFile = "tokenizer.model";

class Tokenizer {
 public:
  // Bytes: ids 0..255, encode and decode copy.
  Tokenizer();

  // Trains a BPE of `vocab` pieces on the documents (the training split). Throws InputError:
  // "data.vocab" when the text cannot hold that many pieces (or too few for the byte pieces),
  // "data.tokenizer" when this build has no SentencePiece.
  static Tokenizer train_bpe(const std::vector<Document>& documents, int vocab);
  // A saved model's bytes (a tokenizer.model file). Throws InputError(source, ...) when they are
  // not a SentencePiece model.
  static Tokenizer from_model(std::string model_bytes, const std::string& source);
  // The tokenizer a run's config names: bytes, or RUN_DIR/tokenizer.model checked against
  // data.tokenizer_hash. Throws InputError naming the file when it is missing or altered.
  static Tokenizer for_run(const std::filesystem::path& run_dir, const config::DataConfig& data);
  // Writes the BPE model into the run's folder (nothing for bytes).
  void save_in(const std::filesystem::path& run_dir) const;

  bool is_bytes() const { return bpe_ == nullptr; }
  int vocab() const { return static_cast<int>(piece_bytes_.size()); }
  // The hash config.json names the model by (16 hex digits, FNV-1a 64 of the file); "" for bytes.
  const std::string& hash() const { return hash_; }
  const std::string& model_bytes() const { return model_; }

  std::vector<int32_t> encode(std::string_view text) const;
  // The text of the ids, the concatenation of each id's bytes.
  std::string decode(const int32_t* ids, size_t n) const;
  std::string decode(const std::vector<int32_t>& ids) const { return decode(ids.data(), ids.size()); }
  // The bytes one id stands for (a byte piece is its byte, "▁" is a space); empty for <unk>.
  const std::string& bytes_of(int32_t id) const { return piece_bytes_.at(static_cast<size_t>(id)); }

 private:
  struct Bpe;
  std::shared_ptr<const Bpe> bpe_;
  std::string model_, hash_;
  std::vector<std::string> piece_bytes_;  // (vocab)
};

// The hash of a tokenizer file's bytes as config.json writes it.
std::string tokenizer_hash(std::string_view model_bytes);

// Whether this build can train and read BPE models (SentencePiece was found).
bool bpe_available();

}  // namespace proteus::data
