// NIAH accuracy over depth x context length (SPEC section 6): for each task, each chosen RULER
// depth and each context length, several samples are generated, the model continues the
// answer prefix greedily, and RULER's string_match_all scores the continuation (the fraction of
// expected values found, case-insensitively). Cells hold the mean x 100.
#pragma once
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "core/config/config.hpp"
#include "core/model/model.hpp"

namespace proteus::data {
class ByteCorpus;
}

namespace proteus::eval {

struct NiahSampleRecord {
  std::string task;
  int length = 0;
  int depth = 0;                   // requested depth, percent: the first asked needle's
  std::vector<int> needle_depths;  // every asked needle's depth, percent, in expected's order
  std::string expected;    // values joined by ", "
  std::string prediction;
  double score = 0;        // 0..100
};

struct NiahTaskGrid {
  std::string task;
  std::vector<int> lengths;  // columns
  std::vector<int> depths;   // rows, percent
  std::vector<double> score; // (depths, lengths), 0..100
  double mean = 0;
  double at(size_t depth_index, size_t length_index) const { return score[depth_index * lengths.size() + length_index]; }
};

struct NiahResult {
  std::vector<NiahTaskGrid> tasks;
  std::vector<NiahSampleRecord> samples;
};

// progress(done, total) is called after each sample; returning false cancels (partial grids).
NiahResult niah_eval(model::Model<float>& model, const config::RunConfig& cfg, const data::ByteCorpus* essay_corpus,
                     const std::function<bool(int, int)>& progress);

}  // namespace proteus::eval
