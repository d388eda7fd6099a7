// Learning rate over training steps: linear warm-up to lr, then cosine decay to min_lr at the
// last step. Steps are 1-based.
#pragma once
#include "core/config/config.hpp"

namespace proteus::train {

double learning_rate(const config::TrainConfig& t, int step);

}  // namespace proteus::train
