#include "core/train/benchmark.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>

#include "core/backend/registry.hpp"
#include "core/data/batch_source.hpp"
#include "core/model/model.hpp"
#include "core/train/gated_adamw.hpp"
#include "core/train/lr_schedule.hpp"

namespace proteus::train {
namespace {

double median(std::vector<double> xs) {
  std::sort(xs.begin(), xs.end());
  return xs.empty() ? 0.0 : xs[xs.size() / 2];
}

}  // namespace

BenchResult benchmark_training(const config::RunConfig& cfg, int warmup_steps, int timed_steps) {
  using Clock = std::chrono::steady_clock;
  auto ms = [](Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  auto be = backend::make_backend(cfg.device, cfg.threads);
  model::Model<float> model(cfg.model, config::resolved_mixer_horizon(cfg), *be.backend, cfg.seed);
  GatedAdamW<float> opt(model, cfg);
  data::BatchSource data(cfg.data);
  std::mt19937_64 rng(cfg.seed);
  const size_t P = model.num_params();
  std::vector<double> step, fwd, bwd, upd;
  for (int i = 0; i < warmup_steps + timed_steps; ++i) {
    const auto batch = data.next_train_batch(rng);  // drawing data is not timed: it overlaps nothing here
    const auto t0 = Clock::now();
    model.forward(batch.tokens.data(), batch.targets.data(), batch.weights.data(), batch.B, batch.T);
    be.backend->synchronize();
    const auto t1 = Clock::now();
    model.backward();
    const double norm = std::sqrt(be.backend->sum_squares(model.grads(), P));
    if (cfg.train.grad_clip > 0 && norm > cfg.train.grad_clip)
      be.backend->scale(model.grads(), static_cast<float>(cfg.train.grad_clip / norm), P);
    be.backend->synchronize();
    const auto t2 = Clock::now();
    opt.step(i + 1, learning_rate(cfg.train, i + 1));
    be.backend->synchronize();
    const auto t3 = Clock::now();
    if (i < warmup_steps) continue;
    fwd.push_back(ms(t0, t1));
    bwd.push_back(ms(t1, t2));
    upd.push_back(ms(t2, t3));
    step.push_back(ms(t0, t3));
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
