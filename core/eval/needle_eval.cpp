#include "core/eval/needle_eval.hpp"

#include <algorithm>
#include <numeric>
#include <random>

#include "core/data/needle.hpp"
#include "core/data/niah.hpp"

namespace proteus::eval {

NeedleResult needle_eval(model::Model<float>& model, const config::RunConfig& cfg,
                         const std::function<bool(int, int)>& progress) {
  const auto& e = cfg.eval.needle;
  const auto& data = cfg.data.needle;
  const auto forms = e.forms.empty() ? data.forms : e.forms;
  const int L = cfg.data.seq_len;
  const auto lengths = e.lengths.empty() ? std::vector<int>{std::max(1, L / 2), L, 2 * L} : e.lengths;
  const auto depths = data::niah::depths(e.depths);
  const int batch = std::max(1, cfg.data.batch);
  // The same prompts for every run, whatever its seed: grids compare across runs.
  std::mt19937_64 rng(0x6e65ed1eu);
  NeedleResult result;
  result.vocab = data.vocab;
  result.distractors = data.distractors;
  result.samples = e.samples;
  const int total = static_cast<int>(forms.size() * depths.size() * lengths.size());
  int done = 0;
  for (const auto& form : forms) {
    NiahTaskGrid grid;
    grid.task = form;
    grid.lengths = lengths;
    grid.depths = depths;
    grid.score.assign(depths.size() * lengths.size(), 0.0);
    for (size_t di = 0; di < depths.size(); ++di)
      for (size_t li = 0; li < lengths.size(); ++li) {
        int correct = 0;
        // The prompts of a cell have one length, so they run `batch` at a time.
        for (int first = 0; first < e.samples; first += batch) {
          const int B = std::min(batch, e.samples - first);
          std::vector<int32_t> tokens;
          std::vector<int32_t> answers;
          for (int b = 0; b < B; ++b) {
            const auto s = data::needle::generate(data, form, lengths[li], depths[di], rng);
            tokens.insert(tokens.end(), s.prompt.begin(), s.prompt.end());
            answers.push_back(s.value);
          }
          model.forward(tokens.data(), nullptr, nullptr, B, lengths[li]);
          for (int b = 0; b < B; ++b) {
            const auto logits = model.logits_at(b, lengths[li] - 1);
            const auto guess = std::max_element(logits.begin(), logits.end()) - logits.begin();
            correct += guess == answers[size_t(b)] ? 1 : 0;
          }
        }
        grid.score[di * lengths.size() + li] = 100.0 * correct / e.samples;
        if (progress && !progress(++done, total)) {
          result.forms.push_back(grid);
          return result;
        }
      }
    grid.mean = std::accumulate(grid.score.begin(), grid.score.end(), 0.0) / double(grid.score.size());
    result.forms.push_back(std::move(grid));
  }
  return result;
}

}  // namespace proteus::eval
