// Bytes and SentencePiece BPE behind one interface (tokenizer.hpp). SentencePiece is optional: the
// GPU machines have no Debian packages, so without it this file builds the bytes path only.
#include "core/data/tokenizer.hpp"

#include <algorithm>
#include <cstdio>
#include <thread>
#include <unordered_map>

#include "core/common/atomic_file.hpp"
#include "core/common/file_read.hpp"
#include "core/common/input_error.hpp"

#if PROTEUS_HAVE_SENTENCEPIECE
#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>
#endif

namespace proteus::data {
namespace {

constexpr size_t kMaxModelBytes = size_t(64) << 20;  // a 256k-piece model is ~5 MB

[[noreturn]] void no_sentencepiece() {
  throw InputError("data.tokenizer", "bpe needs SentencePiece, which this build lacks (install libsentencepiece-dev, "
                                     "e.g. scripts/install-deps.sh, and build again); bytes works everywhere");
}

}  // namespace

std::string tokenizer_hash(std::string_view model_bytes) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fnv1a64(std::string(model_bytes))));
  return hex;
}

#if PROTEUS_HAVE_SENTENCEPIECE

struct Tokenizer::Bpe {
  sentencepiece::SentencePieceProcessor processor;
  int32_t byte_ids[256] = {};  // each byte's piece: newlines and bytes that are not UTF-8

  // Appends the ids of a line: SentencePiece reads UTF-8 and would turn an invalid byte into
  // U+FFFD, so such a byte is its byte piece and only the valid runs go through SentencePiece.
  void encode_line(std::string_view line, std::vector<int32_t>& ids) const {
    std::vector<int> run_ids;
    size_t run = 0, at = 0;
    const auto flush = [&](size_t end) {
      if (end <= run) return;
      run_ids.clear();
      processor.Encode(line.substr(run, end - run), &run_ids).IgnoreError();
      ids.insert(ids.end(), run_ids.begin(), run_ids.end());
    };
    while (at < line.size()) {
      const size_t n = utf8_length(line, at);
      if (n > 0) {
        at += n;
        continue;
      }
      flush(at);
      ids.push_back(byte_ids[static_cast<unsigned char>(line[at])]);
      run = ++at;
    }
    flush(at);
  }

  // The length of the valid UTF-8 character at `at`, 0 when the bytes there are not one.
  static size_t utf8_length(std::string_view s, size_t at) {
    const auto byte = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
    const unsigned char c = byte(at);
    const size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 && c >= 0xC2 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E && c <= 0xF4 ? 4 : 0;
    if (n == 0 || at + n > s.size()) return 0;
    for (size_t i = 1; i < n; ++i)
      if ((byte(at + i) & 0xC0) != 0x80) return 0;
    if (n == 3 && ((c == 0xE0 && byte(at + 1) < 0xA0) || (c == 0xED && byte(at + 1) >= 0xA0))) return 0;  // overlong, surrogate
    if (n == 4 && ((c == 0xF0 && byte(at + 1) < 0x90) || (c == 0xF4 && byte(at + 1) >= 0x90))) return 0;  // overlong, > U+10FFFF
    return n;
  }
};

namespace {

// The training split's lines, one SentencePiece sentence each (pieces never span a line; a
// newline encodes as its byte piece).
class LineIterator : public sentencepiece::SentenceIterator {
 public:
  explicit LineIterator(const std::vector<Document>& documents) {
    for (const auto& d : documents) {
      size_t at = 0;
      while (at <= d.text.size()) {
        const size_t end = std::min(d.text.find('\n', at), d.text.size());
        if (end > at) lines_.emplace_back(d.text, at, end - at);
        at = end + 1;
      }
    }
  }
  bool done() const override { return next_ >= lines_.size(); }
  void Next() override { ++next_; }
  const std::string& value() const override { return lines_[next_]; }
  sentencepiece::util::Status status() const override { return {}; }

 private:
  std::vector<std::string> lines_;
  size_t next_ = 0;
};

// SentencePiece's message without its source location: "Vocabulary size too high (4096). Please
// set it to a value <= 296."
std::string trainer_message(const sentencepiece::util::Status& status) {
  std::string m = status.ToString();
  if (const size_t at = m.rfind("] "); at != std::string::npos) m = m.substr(at + 2);
  return m;
}

}  // namespace

bool bpe_available() { return true; }

Tokenizer Tokenizer::train_bpe(const std::vector<Document>& documents, int vocab) {
  LineIterator lines(documents);
  const unsigned threads = std::clamp(std::thread::hardware_concurrency(), 1u, 16u);
  const std::unordered_map<std::string, std::string> options = {
      {"model_type", "bpe"},
      {"vocab_size", std::to_string(vocab)},
      {"byte_fallback", "true"},                // any text encodes: unseen characters become bytes
      {"normalization_rule_name", "identity"},  // decode(encode(text)) == text
      {"remove_extra_whitespaces", "false"},
      {"add_dummy_prefix", "false"},
      {"unk_id", "0"},
      {"bos_id", "-1"},
      {"eos_id", "-1"},
      {"max_sentence_length", "65536"},  // a long line is still learnt from, not skipped
      {"num_threads", std::to_string(threads)},
      {"minloglevel", "2"},
  };
  std::string model;
  const auto status = sentencepiece::SentencePieceTrainer::Train(options, &lines, &model);
  if (!status.ok())
    throw InputError("data.vocab", std::to_string(vocab) + " BPE pieces cannot be learnt from the training split (" +
                                       trainer_message(status) + ")");
  return from_model(std::move(model), "the trained tokenizer");
}

Tokenizer Tokenizer::from_model(std::string model_bytes, const std::string& source) {
  auto bpe = std::make_shared<Bpe>();
  if (const auto status = bpe->processor.LoadFromSerializedProto(model_bytes); !status.ok())
    throw InputError(source, "is not a SentencePiece model (" + status.ToString() + ")");
  Tokenizer t;
  const int n = bpe->processor.GetPieceSize();
  t.piece_bytes_.assign(static_cast<size_t>(n), std::string());
  for (int id = 0; id < n; ++id) {
    const std::string& piece = bpe->processor.IdToPiece(id);
    std::string& out = t.piece_bytes_[static_cast<size_t>(id)];
    if (bpe->processor.IsByte(id)) {
      out.assign(1, static_cast<char>(std::stoi(piece.substr(3, 2), nullptr, 16)));  // "<0xAB>"
    } else if (!bpe->processor.IsUnknown(id) && !bpe->processor.IsControl(id)) {
      for (size_t i = 0; i < piece.size(); ++i) {
        if (piece.compare(i, 3, "\xE2\x96\x81") == 0) out += ' ', i += 2;  // "▁" is a space
        else out += piece[i];
      }
    }
  }
  for (int b = 0; b < 256; ++b) {
    char piece[8];
    std::snprintf(piece, sizeof piece, "<0x%02X>", b);
    bpe->byte_ids[b] = bpe->processor.PieceToId(piece);
  }
  t.bpe_ = std::move(bpe);
  t.hash_ = tokenizer_hash(model_bytes);
  t.model_ = std::move(model_bytes);
  return t;
}

std::vector<int32_t> Tokenizer::encode(std::string_view text) const {
  if (!bpe_) return std::vector<int32_t>(reinterpret_cast<const unsigned char*>(text.data()),
                                         reinterpret_cast<const unsigned char*>(text.data()) + text.size());
  // Line by line: the same ids as the whole text (no piece holds a newline), in linear time.
  std::vector<int32_t> ids;
  size_t at = 0;
  while (at <= text.size()) {
    const size_t end = std::min(text.find('\n', at), text.size());
    bpe_->encode_line(text.substr(at, end - at), ids);
    if (end < text.size()) ids.push_back(bpe_->byte_ids[static_cast<unsigned char>('\n')]);
    at = end + 1;
  }
  return ids;
}

#else  // no SentencePiece in this build

struct Tokenizer::Bpe {};

bool bpe_available() { return false; }
Tokenizer Tokenizer::train_bpe(const std::vector<Document>&, int) { no_sentencepiece(); }
Tokenizer Tokenizer::from_model(std::string, const std::string&) { no_sentencepiece(); }
std::vector<int32_t> Tokenizer::encode(std::string_view text) const {
  return std::vector<int32_t>(reinterpret_cast<const unsigned char*>(text.data()),
                              reinterpret_cast<const unsigned char*>(text.data()) + text.size());
}

#endif

Tokenizer::Tokenizer() {
  piece_bytes_.reserve(256);
  for (int b = 0; b < 256; ++b) piece_bytes_.emplace_back(1, static_cast<char>(b));
}

std::string Tokenizer::decode(const int32_t* ids, size_t n) const {
  std::string text;
  for (size_t i = 0; i < n; ++i) text += bytes_of(ids[i]);
  return text;
}

Tokenizer Tokenizer::for_run(const std::filesystem::path& run_dir, const config::DataConfig& data) {
  if (data.tokenizer != config::Tokenizer::bpe) return Tokenizer();
  if (!bpe_available()) no_sentencepiece();
  const auto file = run_dir / kTokenizerFile;
  if (data.tokenizer_hash.empty())
    throw InputError("data.tokenizer_hash", "is empty: a bpe run names its tokenizer file (" + file.string() + ") by its hash");
  if (!std::filesystem::exists(file))
    throw InputError(file.string(), "is missing: config.json names tokenizer " + data.tokenizer_hash +
                                        " (data.tokenizer bpe), and the run's text cannot be read without it");
  std::string bytes = common::read_file(file, kMaxModelBytes, "a tokenizer model");
  if (const auto hash = tokenizer_hash(bytes); hash != data.tokenizer_hash)
    throw InputError(file.string(), "was altered: its hash is " + hash + ", config.json (data.tokenizer_hash) names " +
                                        data.tokenizer_hash);
  return from_model(std::move(bytes), file.string());
}

void Tokenizer::save_in(const std::filesystem::path& run_dir) const {
  if (bpe_) common::write_file_atomically(run_dir / kTokenizerFile, model_);
}

}  // namespace proteus::data
