// Test helpers for core/data: a temporary folder removed at scope exit, and a corpus whose
// documents are each one repeated letter, so a window shows which documents it came from.
#pragma once
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "core/data/byte_corpus.hpp"

namespace proteus::data::testing {

class TempDir {
 public:
  TempDir() {
    std::random_device unique_name;  // only the folder name; no test data depends on it
    path_ = std::filesystem::temp_directory_path() / ("proteus-data-" + std::to_string(unique_name()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::string write(const std::string& name, const std::string& text) const {
    const auto file = path_ / name;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << text;
    return file.string();
  }

 private:
  std::filesystem::path path_;
};

// n documents "doc00.txt".. each `size` copies of one letter ('a' + i); the letter names the doc.
inline std::vector<Document> letter_documents(int n, size_t size) {
  std::vector<Document> docs;
  for (int i = 0; i < n; ++i) {
    const std::string name = std::string("doc") + char('0' + i / 10) + char('0' + i % 10) + ".txt";
    docs.push_back({name, std::string(size, char('a' + i))});
  }
  return docs;
}

inline std::string default_corpus_path() { return std::string(PROTEUS_SOURCE_DIR) + "/assets/corpus/brown"; }

}  // namespace proteus::data::testing
