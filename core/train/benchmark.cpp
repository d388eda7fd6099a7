#include "core/train/benchmark.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include "core/backend/bench/bench_timing.hpp"
#include "core/backend/registry.hpp"
#include "core/model/model_backend.hpp"
#include "core/data/batch_source.hpp"
#include "core/model/model.hpp"
#include "core/train/gated_adamw.hpp"
#include "core/train/lr_schedule.hpp"

namespace proteus::train {

using backend::median;

BenchResult benchmark_training(const config::RunConfig& cfg, int warmup_steps, int timed_steps) {
  auto be = model::make_model_backend(cfg);
  backend::SyncedStopwatch watch(*be.backend);
  model::Model<float> model(cfg.model, config::resolved_mixer_horizon(cfg), *be.backend, cfg.seed);
  GatedAdamW<float> opt(model, cfg);
  data::BatchSource data(cfg.data);
  std::mt19937_64 rng(cfg.seed);
  const size_t P = model.num_params();
  std::vector<double> step, fwd, bwd, upd;
  for (int i = 0; i < warmup_steps + timed_steps; ++i) {
    const auto batch = data.next_train_batch(rng);  // drawing data is not timed: it overlaps nothing here
    watch.start();
    model.forward(batch.tokens.data(), batch.targets.data(), batch.weights.data(), batch.B, batch.T);
    const double f = watch.lap_ms();
    model.backward();
    const double norm = std::sqrt(be.backend->sum_squares(model.grads(), P));
    if (cfg.train.grad_clip > 0 && norm > cfg.train.grad_clip)
      be.backend->scale(model.grads(), static_cast<float>(cfg.train.grad_clip / norm), P);
    const double b = watch.lap_ms();
    opt.step(i + 1, learning_rate(cfg.train, i + 1));
    const double u = watch.lap_ms();
    if (i < warmup_steps) continue;
    fwd.push_back(f);
    bwd.push_back(b);
    upd.push_back(u);
    step.push_back(f + b + u);
  }
  BenchResult r;
  r.name = cfg.name;
  r.device = be.device;
  r.threads = cfg.threads;
  r.steps = timed_steps;
  r.tokens_per_step = cfg.data.batch * cfg.data.seq_len;
  r.params = P;
  r.step_ms_median = median(step);
  r.step_ms_min = step.empty() ? 0 : *std::min_element(step.begin(), step.end());
  r.forward_ms = median(fwd);
  r.backward_ms = median(bwd);
  r.optimizer_ms = median(upd);
  r.tokens_per_s = r.step_ms_median > 0 ? r.tokens_per_step / (r.step_ms_median / 1000.0) : 0;
  return r;
}

}  // namespace proteus::train
