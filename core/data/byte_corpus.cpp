// Loading, the fixed held-out split and window sampling of a byte corpus (byte_corpus.hpp).
// Leaves out encodings: files are read as raw bytes.
#include "core/data/byte_corpus.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <numeric>
#include <sstream>

#include "core/common/data_root.hpp"
#include "core/common/file_read.hpp"
#include "core/common/input_error.hpp"
#include "core/common/json_fields.hpp"

namespace proteus::data {
namespace {

namespace fs = std::filesystem;

constexpr size_t kMinPiece = 2048;     // the smallest document a single file is cut into (but its tail)
constexpr size_t kTargetPiece = 4096;  // where a piece is closed once reached
constexpr size_t kMaxPiece = 8192;     // no piece grows past this

void check_holdout(double holdout) {
  if (!std::isfinite(holdout) || holdout <= 0.0 || holdout >= 1.0)
    throw InputError("data.text.holdout", "must be in (0, 1), got " + std::to_string(holdout));
}

// The corpus's bytes are read within this much in all (the Brown corpus is 6 MB).
constexpr size_t kMaxCorpusBytes = size_t{1} << 30;

// One file's bytes, within what is left of the corpus's budget. Only regular files: a device or a
// pipe (/dev/zero) would never end.
std::string read_bytes(const fs::path& file, size_t& budget) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec))
    throw InputError("data.text.path", common::quoted(file.string(), common::kShownPath) + " is not a regular file (a text file or a "
                                                                       "folder of .txt files is expected)");
  std::string text;
  try {
    text = common::read_file(file, budget, "a text corpus");
  } catch (const InputError& e) {
    if (e.reason().rfind("is larger", 0) == 0)
      throw InputError("data.text.path", "the corpus is larger than the limit of " + common::format_bytes(kMaxCorpusBytes) +
                                             " (at " + common::quoted(file.string(), common::kShownPath) + ")");
    throw InputError("data.text.path", "cannot read " + common::quoted(file.string(), common::kShownPath) + ": " + e.reason());
  }
  budget -= text.size();
  // CRLF files would otherwise hide their blank lines from the paragraph splitter.
  text.erase(std::remove(text.begin(), text.end(), '\r'), text.end());
  return text;
}

bool is_blank(const std::string& text) {
  return std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isspace(c) != 0; });
}

bool has_txt_extension(const fs::path& file) {
  std::string ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return ext == ".txt";
}

// Where to cut a long run of text: a newline nearest to kTargetPiece in [kMinPiece, kMaxPiece),
// else a space, else kTargetPiece itself.
size_t cut_point(const std::string& text) {
  for (char want : {'\n', ' '}) {
    size_t best = std::string::npos;
    for (size_t i = kMinPiece; i < std::min(text.size(), kMaxPiece); ++i) {
      if (text[i] != want) continue;
      const auto distance = [](size_t a) { return a > kTargetPiece ? a - kTargetPiece : kTargetPiece - a; };
      if (best == std::string::npos || distance(i) < distance(best)) best = i;
    }
    if (best != std::string::npos) return best;
  }
  return kTargetPiece;
}

// Paragraphs are runs of lines between blank lines; one longer than kMaxPiece is cut further.
std::vector<std::string> paragraphs(const std::string& text) {
  std::vector<std::string> out;
  std::string current, line;
  std::istringstream lines(text);
  const auto close = [&] {
    while (current.size() > kMaxPiece) {
      const size_t cut = cut_point(current);
      out.push_back(current.substr(0, cut));
      current.erase(0, std::min(current.size(), cut + (current[cut] == '\n' || current[cut] == ' ' ? 1 : 0)));
    }
    if (!is_blank(current)) out.push_back(current);
    current.clear();
  };
  while (std::getline(lines, line)) {
    if (is_blank(line)) {
      close();
    } else {
      if (!current.empty()) current += '\n';
      current += line;
    }
  }
  close();
  return out;
}

}  // namespace

uint64_t fnv1a64(const std::string& bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::vector<Document> ByteCorpus::split_paragraph_groups(const std::string& name, const std::string& text) {
  std::vector<std::string> pieces;
  std::string current;
  for (const std::string& paragraph : paragraphs(text)) {
    if (!current.empty() && current.size() + 2 + paragraph.size() > kMaxPiece) {
      pieces.push_back(std::move(current));
      current.clear();
    }
    if (!current.empty()) current += "\n\n";
    current += paragraph;
    if (current.size() >= kTargetPiece) {
      pieces.push_back(std::move(current));
      current.clear();
    }
  }
  if (!current.empty()) {
    // A short tail joins the piece before it rather than becoming a tiny document.
    if (current.size() < kMinPiece && !pieces.empty() && pieces.back().size() + 2 + current.size() <= kMaxPiece)
      pieces.back() += "\n\n" + current;
    else
      pieces.push_back(std::move(current));
  }
  std::vector<Document> documents;
  for (size_t k = 0; k < pieces.size(); ++k)
    documents.push_back({name + "#" + std::to_string(k), std::move(pieces[k])});
  return documents;
}

fs::path locate_corpus(const std::string& path) {
  std::error_code ec;
  fs::path root(path);
  // Relative paths of the shipped assets ("assets/corpus/brown") also work from any directory.
  if (!path.empty() && root.is_relative() && !fs::exists(root, ec) && fs::exists(common::data_root() / root, ec))
    root = common::data_root() / root;
  if (path.empty() || !fs::exists(root, ec))
    throw InputError("data.text.path", "no such file or folder: " + common::quoted(path, common::kShownPath));
  return root;
}

void check_corpus_files(const std::string& path, double holdout, size_t min_bytes) {
  check_holdout(holdout);
  const fs::path root = locate_corpus(path);
  const std::string shown = common::quoted(path, common::kShownPath);
  const auto too_short = [&](uint64_t bytes, const std::string& what) {
    return InputError("data.text.path", shown + ": " + what + " hold" + (what == "the corpus" ? "s " : " ") +
                                            std::to_string(bytes) + " bytes of text, less than one row (data.seq_len + 1 = " +
                                            std::to_string(min_bytes) + " bytes); give more text or a shorter data.seq_len");
  };
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    if (!fs::is_regular_file(root, ec))
      throw InputError("data.text.path", shown + " is not a regular file (a text file or a folder of .txt files is expected)");
    const uint64_t bytes = fs::file_size(root, ec);
    if (bytes == 0) throw InputError("data.text.path", shown + ": the corpus holds no text");
    if (bytes > kMaxCorpusBytes)
      throw InputError("data.text.path", shown + ": the corpus is larger than the limit of " + common::format_bytes(kMaxCorpusBytes));
    // Cut into documents later; each split needs a row of its own.
    if (bytes < 2 * min_bytes) throw too_short(bytes, "the corpus");
    return;
  }
  // A folder: the split is fixed by the documents' names, so each split's size is known from sizes.
  std::vector<std::pair<std::string, uint64_t>> files;  // name, size (empty files hold no document)
  bool any_txt = false;
  uint64_t total = 0;
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    if (!entry.is_regular_file(ec) || !has_txt_extension(entry.path())) continue;
    any_txt = true;
    const uint64_t size = entry.file_size(ec);
    total += size;
    if (size > 0) files.emplace_back(entry.path().filename().string(), size);
  }
  if (!any_txt) throw InputError("data.text.path", "the folder " + shown + " holds no .txt files");
  if (files.empty()) throw InputError("data.text.path", shown + ": the corpus holds no text");
  if (total > kMaxCorpusBytes)
    throw InputError("data.text.path", shown + ": the corpus is larger than the limit of " + common::format_bytes(kMaxCorpusBytes));
  if (total < 2 * min_bytes) throw too_short(total, "the corpus");
  if (files.size() < 2)
    throw InputError("data.text.holdout", "the held-out split would be empty: the corpus is one document (give more "
                                          "text files, or one file, which is cut at blank lines into ~4 KB documents)");
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) {
    const uint64_t ha = fnv1a64(a.first), hb = fnv1a64(b.first);
    return ha != hb ? ha < hb : a.first < b.first;
  });
  const size_t n = files.size();
  const size_t n_val = std::clamp<size_t>(size_t(std::llround(holdout * double(n))), 1, n - 1);
  uint64_t val = 0;
  for (size_t i = 0; i < n_val; ++i) val += files[i].second;
  if (val < min_bytes) throw too_short(val, "the held-out documents");
  if (total - val < min_bytes) throw too_short(total - val, "the training documents");
}

ByteCorpus ByteCorpus::load(const std::string& path, double holdout) {
  check_holdout(holdout);
  std::error_code ec;
  const fs::path root = locate_corpus(path);
  std::vector<Document> documents;
  size_t budget = kMaxCorpusBytes;
  if (fs::is_directory(root, ec)) {
    std::vector<fs::path> files;  // as validate() counted them: an entry that cannot be told is skipped
    for (auto it = fs::directory_iterator(root, ec); !ec && it != fs::directory_iterator(); it.increment(ec))
      if (std::error_code file_ec; it->is_regular_file(file_ec) && has_txt_extension(it->path())) files.push_back(it->path());
    if (files.empty()) throw InputError("data.text.path", "the folder " + common::quoted(path, common::kShownPath) + " holds no .txt files");
    std::sort(files.begin(), files.end());
    for (const auto& file : files) documents.push_back({file.filename().string(), read_bytes(file, budget)});
  } else {
    documents = split_paragraph_groups(root.filename().string(), read_bytes(root, budget));
  }
  try {
    return from_documents(std::move(documents), holdout);
  } catch (const InputError& e) {
    if (e.field() == "data.text.path") throw InputError(e.field(), common::quoted(path, common::kShownPath) + ": " + e.reason());
    throw;
  }
}

ByteCorpus ByteCorpus::from_documents(std::vector<Document> documents, double holdout) {
  check_holdout(holdout);
  std::erase_if(documents, [](const Document& d) { return is_blank(d.text); });
  const size_t n = documents.size();
  if (n == 0) throw InputError("data.text.path", "the corpus holds no text");
  if (n < 2)
    throw InputError("data.text.holdout",
                     "the held-out split would be empty: the corpus is one document (a single file is cut at blank "
                     "lines into ~4 KB documents; give more text or a folder of .txt files)");
  const size_t n_val = std::clamp<size_t>(size_t(std::llround(holdout * double(n))), 1, n - 1);

  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const uint64_t ha = fnv1a64(documents[a].name), hb = fnv1a64(documents[b].name);
    return ha != hb ? ha < hb : documents[a].name < documents[b].name;
  });
  std::vector<bool> held_out(n, false);
  for (size_t i = 0; i < n_val; ++i) held_out[order[i]] = true;

  ByteCorpus corpus;
  for (size_t i = 0; i < n; ++i) {
    auto& split = held_out[i] ? corpus.val_ : corpus.train_;
    auto& stream = held_out[i] ? corpus.val_stream_ : corpus.train_stream_;
    stream += documents[i].text;
    stream += "\n\n";
    split.push_back(std::move(documents[i]));
  }
  return corpus;
}

std::string ByteCorpus::window(Split split, size_t length, std::mt19937_64& rng) const {
  const std::string& s = stream(split);
  std::uniform_int_distribution<size_t> start(0, s.size() - 1);
  size_t at = start(rng);
  std::string out(length, '\0');
  for (size_t i = 0; i < length; ++i, ++at) out[i] = s[at % s.size()];
  return out;
}

std::vector<int32_t> ByteCorpus::sample_windows(Split split, int batch, int seq_len, std::mt19937_64& rng) const {
  std::vector<int32_t> tokens;
  tokens.reserve(size_t(batch) * size_t(seq_len + 1));
  for (int b = 0; b < batch; ++b)
    for (unsigned char c : window(split, size_t(seq_len) + 1, rng)) tokens.push_back(int32_t(c));
  return tokens;
}

}  // namespace proteus::data
