// NIAH accuracy over depth x context length (math.md section 6): for each task, each chosen RULER
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
#include "core/runs/eval_records.hpp"

namespace proteus::data {
class ByteCorpus;
class Tokenizer;
}

namespace proteus::eval {

// The results are the run directory's records (eval_records.hpp).
using runs::NiahResult;
using runs::NiahSampleRecord;
using runs::NiahTaskGrid;

// progress(done, total) is called after each sample; returning false cancels (partial grids).
// A BPE run gives its tokenizer and its corpus's bytes per token: lengths are then in tokens (a
// prompt of about that many), the continuation decoded to text (niah_tokens.hpp).
NiahResult niah_eval(model::Model<float>& model, const config::RunConfig& cfg, const data::ByteCorpus* essay_corpus,
                     const std::function<bool(int, int)>& progress, const data::Tokenizer* bpe = nullptr,
                     double bytes_per_token = 1.0);

}  // namespace proteus::eval
