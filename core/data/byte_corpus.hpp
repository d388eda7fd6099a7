// A byte corpus: documents of text, a fixed held-out split of whole documents, and random
// windows of bytes from either split. Leaves out tokenisation (tokens are bytes) and any text
// cleaning beyond turning CRLF into LF; the bytes are the model's input as they stand.
//
// Loading: a folder is one document per *.txt file directly inside it (sorted by name; other
// files such as README.md are not read); a single file is cut into documents of about 4 KB
// (2-8 KB) at blank lines, so that a held-out split exists. The split does not depend on the
// run's seed: documents are ordered by a fixed hash (FNV-1a) of their names and the first
// round(holdout * n) of them (at least one, at most n - 1) are held out, so every run of a
// corpus validates on the same documents.
#pragma once
#include <filesystem>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace proteus::data {

enum class Split { train, val };

struct Document {
  std::string name;  // file name, or "file.txt#k" for the k-th piece of a single file
  std::string text;
};

// Where a corpus path points: as given, or under the data root (common::data_root: the installed
// share/proteus-lab, or the source tree) when it is a relative path of the shipped corpus. Throws InputError("data.text.path", ...) when there is nothing there.
std::filesystem::path locate_corpus(const std::string& path);

// The corpus's files looked at without reading them (a directory listing and sizes; a folder's split
// follows from its file names): a folder with no .txt file, no text at all, a split with less text
// than one row (min_bytes), or a path that is neither a regular file nor a folder is refused
// (InputError "data.text.path"). Cheap enough to run for every run of a sweep before anything
// starts; loading (ByteCorpus::load) then checks what only the bytes tell (blank files, a single
// file's pieces).
void check_corpus_files(const std::string& path, double holdout, size_t min_bytes);

class ByteCorpus {
 public:
  // Throws InputError ("data.text.path": missing path, no text; "data.text.holdout": out of
  // (0, 1) or a split that would be empty).
  static ByteCorpus load(const std::string& path, double holdout);
  static ByteCorpus from_documents(std::vector<Document> documents, double holdout);

  // Splits one text into documents at blank lines (pieces of about 4 KB; a longer paragraph is
  // cut at whitespace below 8 KB). Names are "<name>#0", "<name>#1", ...
  static std::vector<Document> split_paragraph_groups(const std::string& name, const std::string& text);

  const std::vector<Document>& documents(Split split) const { return split == Split::train ? train_ : val_; }
  // A split's documents, each followed by "\n\n", as one stream; windows wrap around its end.
  const std::string& stream(Split split) const { return split == Split::train ? train_stream_ : val_stream_; }

  // length bytes from a uniformly random offset of the split's stream (wrapping around).
  std::string window(Split split, size_t length, std::mt19937_64& rng) const;
  // (batch, seq_len + 1) bytes, row-major, each row its own window.
  std::vector<int32_t> sample_windows(Split split, int batch, int seq_len, std::mt19937_64& rng) const;

 private:
  std::vector<Document> train_, val_;
  std::string train_stream_, val_stream_;
};

// The fixed 64-bit FNV-1a hash the split is ordered by.
uint64_t fnv1a64(const std::string& bytes);

}  // namespace proteus::data
