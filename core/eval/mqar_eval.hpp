// MQAR accuracy (after Zoology): the fraction of answer positions where the model's argmax is
// the value bound to the queried key, over freshly drawn held-out samples.
#pragma once
#include "core/config/config.hpp"
#include "core/model/model.hpp"

namespace proteus::eval {

struct MqarResult {
  int samples = 0;
  int answers = 0;
  double accuracy = 0;  // 0..1
};

MqarResult mqar_eval(model::Model<float>& model, const config::RunConfig& cfg);

}  // namespace proteus::eval
