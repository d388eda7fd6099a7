// Test helpers for core/data: a temporary folder (tests/support), and a corpus whose
// documents are each one repeated letter, so a window shows which documents it came from.
#pragma once
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "core/data/byte_corpus.hpp"
#include "tests/support/temp_dir.hpp"

namespace proteus::data::testing {

using test_support::TempDir;

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
