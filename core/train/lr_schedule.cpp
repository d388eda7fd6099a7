#include "core/train/lr_schedule.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace proteus::train {

double learning_rate(const config::TrainConfig& t, int step) {
  if (t.warmup > 0 && step <= t.warmup) return t.lr * step / t.warmup;
  const int decay_steps = std::max(1, t.steps - t.warmup);
  const double progress = std::clamp(double(step - t.warmup) / decay_steps, 0.0, 1.0);
  return t.min_lr + 0.5 * (t.lr - t.min_lr) * (1.0 + std::cos(std::numbers::pi * progress));
}

}  // namespace proteus::train
