// Training throughput of one config on its backend, measured the way the trainer runs: real
// batches, forward, backward, clipping and the optimiser step, timed per phase after untimed
// warm-up steps. What `proteus bench` reports; nothing is written to a run directory.
#pragma once
#include <string>
#include <vector>

#include "core/config/config.hpp"

namespace proteus::train {

struct BenchResult {
  std::string name;
  std::string device;
  int threads = 0;
  int steps = 0;
  int tokens_per_step = 0;
  size_t params = 0;
  double step_ms_median = 0;
  double step_ms_min = 0;
  double forward_ms = 0;    // medians of each phase
  double backward_ms = 0;
  double optimizer_ms = 0;
  double tokens_per_s = 0;  // tokens_per_step / median step time
};

BenchResult benchmark_training(const config::RunConfig& cfg, int warmup_steps, int timed_steps);

}  // namespace proteus::train
