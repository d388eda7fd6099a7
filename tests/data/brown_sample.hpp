// A small slice of the shipped corpus for tokenizer tests: the first n Brown documents by name
// (about 12 KB each), so that training a BPE takes well under a second.
#pragma once
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "core/common/file_read.hpp"
#include "core/data/byte_corpus.hpp"
#include "tests/data/temp_corpus.hpp"

namespace proteus::data::testing {

inline std::vector<Document> brown_documents(size_t n) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(default_corpus_path()))
    if (entry.path().extension() == ".txt") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  files.resize(std::min(n, files.size()));
  std::vector<Document> docs;
  for (const auto& f : files) docs.push_back({f.filename().string(), common::read_file(f, size_t(1) << 20)});
  return docs;
}

// Writes the documents into `folder` as .txt files (a corpus folder for data.text.path).
inline std::string write_corpus(const TempDir& dir, const std::string& folder, const std::vector<Document>& docs) {
  for (const auto& d : docs) dir.write(folder + "/" + d.name, d.text);
  return (dir / folder).string();
}

}  // namespace proteus::data::testing
