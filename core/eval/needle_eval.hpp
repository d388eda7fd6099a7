// Accuracy of the token needle task (core/data/needle.hpp) over depth x context length: for each
// form, each chosen RULER depth and each length in tokens, several prompts are generated and the
// model's greedy answer token (the argmax after the prompt) is compared with the asked value.
// Cells hold the fraction correct x 100, like RULER's score. The same prompts for every run.
#pragma once
#include <functional>

#include "core/config/config.hpp"
#include "core/eval/niah_eval.hpp"
#include "core/model/model.hpp"

namespace proteus::eval {

using runs::NeedleResult;

// progress(done, total) after each cell; returning false cancels (the grids hold what finished).
NeedleResult needle_eval(model::Model<float>& model, const config::RunConfig& cfg,
                         const std::function<bool(int, int)>& progress);

}  // namespace proteus::eval
