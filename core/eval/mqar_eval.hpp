// MQAR accuracy (after Zoology): the fraction of answer positions where the model's argmax is
// the value bound to the queried key, over freshly drawn held-out samples.
#pragma once
#include <string>

#include "core/config/config.hpp"
#include "core/model/model.hpp"
#include "core/runs/eval_records.hpp"

namespace proteus::eval {

using runs::MqarResult;

// The note for a run's layout: where the pairs are written and how many memory blocks are
// active there (pairs-first writes every pair while the fewest are).
std::string mqar_layout_note(const config::RunConfig& cfg);

MqarResult mqar_eval(model::Model<float>& model, const config::RunConfig& cfg);

}  // namespace proteus::eval
