#include "core/eval/niah_eval.hpp"

#include <numeric>

#include "core/data/niah.hpp"
#include "core/data/niah_tokens.hpp"
#include "core/eval/generate.hpp"

namespace proteus::eval {
namespace {

std::string join(const std::vector<std::string>& xs) {
  std::string out;
  for (const auto& x : xs) out += (out.empty() ? "" : ", ") + x;
  return out;
}

}  // namespace

NiahResult niah_eval(model::Model<float>& model, const config::RunConfig& cfg, const data::ByteCorpus* essay_corpus,
                     const std::function<bool(int, int)>& progress, const data::Tokenizer* bpe, double bytes_per_token) {
  const auto& e = cfg.eval.niah;
  const auto tasks = e.tasks.empty() ? cfg.data.niah.tasks : e.tasks;
  const int L = cfg.data.seq_len;
  const auto lengths = e.lengths.empty() ? std::vector<int>{L / 2, L, 2 * L} : e.lengths;
  const auto depths = data::niah::depths(e.depths);
  // The same haystacks and needles for every run, whatever its seed: grids compare across runs.
  std::mt19937_64 rng(0x51ee7u);
  NiahResult result;
  const int total = static_cast<int>(tasks.size() * depths.size() * lengths.size()) * e.samples;
  int done = 0;
  for (const auto& task : tasks) {
    NiahTaskGrid grid;
    grid.task = task;
    grid.lengths = lengths;
    grid.depths = depths;
    grid.score.assign(depths.size() * lengths.size(), 0.0);
    for (size_t di = 0; di < depths.size(); ++di)
      for (size_t li = 0; li < lengths.size(); ++li) {
        double sum = 0;
        int n = 0;
        for (int s = 0; s < e.samples; ++s) {
          const int bytes = bpe ? data::niah::sample_bytes_for_tokens(task, cfg.data.niah.question, lengths[li], bytes_per_token)
                                : lengths[li];
          const auto sample = data::niah::generate(task, bytes, depths[di], rng, cfg.data.niah.question,
                                                   essay_corpus, data::Split::val);
          NiahSampleRecord rec;
          rec.task = task;
          rec.length = lengths[li];
          rec.depth = depths[di];
          rec.needle_depths = sample.needle_depths;
          rec.expected = join(sample.expected);
          rec.prediction = bpe ? greedy_generate(model, bpe->encode(sample.prompt()), *bpe, e.max_new_bytes)
                               : greedy_generate(model, sample.prompt(), e.max_new_bytes);
          rec.score = 100.0 * data::niah::string_match_all(rec.prediction, sample.expected);
          sum += rec.score;
          ++n;
          result.samples.push_back(std::move(rec));
          if (progress && !progress(++done, total)) {
            grid.score[di * lengths.size() + li] = sum / n;
            result.tasks.push_back(grid);
            return result;
          }
        }
        grid.score[di * lengths.size() + li] = n ? sum / n : 0.0;
      }
    grid.mean = std::accumulate(grid.score.begin(), grid.score.end(), 0.0) / grid.score.size();
    result.tasks.push_back(std::move(grid));
  }
  return result;
}

}  // namespace proteus::eval
