#include "core/engine/experiment_job.hpp"

#include <cmath>
#include <algorithm>
#include <filesystem>
#include <mutex>
#include <thread>

#include "core/backend/registry.hpp"
#include "core/model/model_backend.hpp"
#include "core/common/input_error.hpp"
#include "core/config/config_json.hpp"
#include "core/data/batch_source.hpp"
#include "core/engine/seed_groups.hpp"
#include "core/eval/block_use.hpp"
#include "core/runs/eval_files.hpp"
#include "core/runs/run_dir.hpp"
#include "core/train/checkpoint.hpp"

namespace proteus::engine {
namespace {

// The worker's mutable picture; every change is published as a fresh immutable copy. Runs
// trained side by side edit it from their own threads, so every edit holds `mu`.
class Publisher {
 public:
  explicit Publisher(JobContext<Snapshot>& ctx) : ctx_(ctx) {}
  std::recursive_mutex mu;
  Snapshot& state() { return s_; }
  void publish() {
    std::lock_guard<std::recursive_mutex> lock(mu);
    ctx_.publish(std::make_shared<const Snapshot>(s_));
    Progress p;
    const int n = static_cast<int>(s_.runs.size());
    double done = 0;
    for (const auto& r : s_.runs) {
      if (run_phase_ended(r.state)) done += 1;
      else if (r.state == RunPhase::evaluating) done += 0.95;
      else if (r.state == RunPhase::training && r.total_steps > 0) done += 0.9 * r.step / r.total_steps;
    }
    p.fraction = n > 0 ? done / n : 0;
    if (s_.current >= 0 && s_.current < n) {
      const auto& r = s_.runs[s_.current];
      p.phase = std::string(run_phase_name(r.state)) + " " + r.name;
      if (r.tokens_per_s > 0 && r.state == RunPhase::training && r.step > 0)
        p.eta_s = r.elapsed_s / r.step * (r.total_steps - r.step);
    }
    if (s_.done) p.fraction = 1;
    ctx_.set_progress(p);
  }

 private:
  JobContext<Snapshot>& ctx_;
  Snapshot s_;
};

// The validation rows' losses (rows, seq_len; NaN where a row does not count) as a
// PerPositionResult with log buckets and their bootstrap intervals over the rows.
std::shared_ptr<const eval::PerPositionResult> live_per_position(const std::vector<double>& row_nll, int rows,
                                                                 uint64_t fingerprint, int buckets) {
  const int L = rows > 0 ? static_cast<int>(row_nll.size() / rows) : 0;
  if (L == 0) return nullptr;
  auto r = std::make_shared<eval::PerPositionResult>(eval::summarise_losses(row_nll, rows, L, buckets));
  r->sequences_fingerprint = fingerprint;  // two runs on the same rows pair their curves
  // Rows weigh alike in the band, so the curve is the band's own centre (the same as the mean
  // over positions when every row counts everywhere, as on text).
  for (size_t k = 0; k < r->bucket_nll.size(); ++k)
    if (std::isfinite(r->bucket_interval[k].mean)) r->bucket_nll[k] = r->bucket_interval[k].mean;
  return r;
}

// Block use measured live: on the validation rows of the first batch, at the default positions
// (N/4, N/2, N, 2N) that fit in a row; null for E = 1, attention, or rows shorter than N/4.
std::shared_ptr<const eval::BlockUseResult> live_block_use(model::Model<float>& model, const std::vector<data::Batch>& val) {
  const auto& mixer = model.config().mixer;
  if (mixer.type != config::MixerType::memory || mixer.E <= 1 || val.empty() || val.front().B < 1) return nullptr;
  const auto& b = val.front();
  std::vector<int> positions;
  for (int p : eval::block_use_positions(model.horizon()))
    if (p <= b.T) positions.push_back(p);
  if (positions.empty()) return nullptr;
  auto r = eval::block_use(model, b.tokens, b.B, b.T, positions);
  if (!r.applicable) return nullptr;
  return std::make_shared<const eval::BlockUseResult>(std::move(r));
}

train::TrainHooks hooks_for(Publisher& pub, JobContext<Snapshot>& ctx, int index, int buckets) {
  train::TrainHooks h;
  h.on_step = [&pub, index, buckets](const train::StepMetrics& m) {
    auto live = m.val_row_nll.empty() ? nullptr : live_per_position(m.val_row_nll, m.val_rows, m.val_fingerprint, buckets);
    std::lock_guard<std::recursive_mutex> lock(pub.mu);
    auto& r = pub.state().runs[index];
    r.step = m.step;
    r.total_steps = m.total_steps;
    r.tokens_per_s = m.tokens_per_s;
    r.elapsed_s = m.elapsed_s;
    if (!std::isnan(m.val_bpb)) r.val_bpb = m.val_bpb;
    if (live) {
      r.live_per_position = std::move(live);
      r.live_per_position_step = m.step;
    }
    r.history.push_back(m);
    r.history.back().val_row_nll.clear();  // the snapshot is copied at every publish: keep it small
    pub.publish();
  };
  h.on_validation = [&pub, index](model::Model<float>& model, const std::vector<data::Batch>& val) {
    auto use = live_block_use(model, val);
    if (!use) return;
    std::lock_guard<std::recursive_mutex> lock(pub.mu);
    pub.state().runs[index].live_block_use = std::move(use);
  };
  h.on_run_dir = [&pub, index](const std::string& dir) {
    std::lock_guard<std::recursive_mutex> lock(pub.mu);
    pub.state().runs[index].run_dir = dir;
    pub.publish();
  };
  h.on_device = [&pub, index](const std::string& device) {  // the runs table shows it while training
    std::lock_guard<std::recursive_mutex> lock(pub.mu);
    pub.state().runs[index].device = device;
    pub.publish();
  };
  h.should_stop = [&ctx] { return ctx.cancelled(); };
  h.wait_if_paused = [&ctx] { ctx.wait_if_paused(); };
  h.on_message = [&pub](const std::string& msg) {
    std::lock_guard<std::recursive_mutex> lock(pub.mu);
    pub.state().messages.push_back(msg);
    pub.publish();
  };
  return h;
}

// Trains (or resumes) run `index`, then evaluates it; false when the job should stop. The
// publisher's lock is held for each edit, never across training or evaluation.
bool train_then_evaluate(Publisher& pub, JobContext<Snapshot>& ctx, int index, bool evaluate, int buckets,
                         const std::function<train::TrainResult(const train::TrainHooks&)>& train) {
  using Lock = std::lock_guard<std::recursive_mutex>;
  auto& r = pub.state().runs[index];  // the vector never grows once the job runs
  {
    Lock lock(pub.mu);
    pub.state().current = index;
    r.state = RunPhase::training;
    pub.publish();
  }
  train::TrainResult result;
  try {
    result = train(hooks_for(pub, ctx, index, buckets));
  } catch (const std::exception& e) {
    Lock lock(pub.mu);
    r.state = RunPhase::failed;
    r.message = e.what();
    pub.state().messages.push_back(r.name + ": " + e.what());
    pub.publish();
    return !ctx.cancelled();
  }
  {
    Lock lock(pub.mu);
    r.run_dir = result.run_dir;
    r.device = result.device;
    r.state = phase_after_training(result.state);
    r.message = result.message;
    r.step = result.steps_done;
    if (result.tokens_per_s > 0) r.tokens_per_s = result.tokens_per_s;
    r.elapsed_s = result.wall_s;
    if (!std::isnan(result.final_val_bpb)) r.val_bpb = result.final_val_bpb;
    if (result.state != runs::RunState::finished) {
      if (!result.message.empty()) pub.state().messages.push_back(r.name + ": " + result.message);
      pub.publish();
      return result.state != runs::RunState::cancelled;
    }
    if (evaluate) r.state = RunPhase::evaluating;
    pub.publish();
  }
  if (evaluate) {
    try {
      auto report = evaluate_saved_run(result.run_dir, [&](const std::string& phase, double) {
        Lock lock(pub.mu);
        r.message = phase;
        pub.publish();
        return !ctx.cancelled();
      });
      Lock lock(pub.mu);
      r.report = std::make_shared<const eval::EvalReport>(std::move(report));
      r.state = ctx.cancelled() ? RunPhase::cancelled : RunPhase::finished;
      r.message = ctx.cancelled() ? "cancelled during evaluation" : "";
      pub.publish();
    } catch (const std::exception& e) {
      // Training finished (status.json says so); the evaluation's failure is the job's to report.
      Lock lock(pub.mu);
      r.state = RunPhase::failed;
      r.message = std::string("evaluation failed: ") + e.what();
      pub.state().messages.push_back(r.name + ": " + r.message);
      pub.publish();
      return !ctx.cancelled();
    }
  }
  return !ctx.cancelled();
}

}  // namespace

eval::EvalReport evaluate_saved_run(const std::string& run_dir, const eval::EvalProgress& progress) {
  const auto reader = runs::RunReader::open(run_dir);
  const auto cfg = reader.run_config();
  const auto ckpt = (std::filesystem::path(run_dir) / train::kCheckpointFile).string();
  if (!std::filesystem::exists(ckpt)) throw InputError(run_dir, "has no checkpoint to evaluate");
  // The run's lock for the whole evaluation: no training writes it meanwhile. Status and metrics
  // are left as they are; evaluating does not change the run's state.
  auto writer = runs::RunWriter::reopen(run_dir);
  auto be = model::make_model_backend(cfg);
  model::Model<float> model(cfg.model, config::resolved_mixer_horizon(cfg), *be.backend, cfg.seed);
  train::load_checkpoint(ckpt, model, nullptr);
  auto report = eval::evaluate(model, cfg, data::Tokenizer::for_run(run_dir, cfg.data), progress);
  runs::write_eval_report(writer, report);
  return report;
}

// The seed-group summaries of the job's evaluated runs (RUNS_DIR/groups/), with a notice for each.
void write_groups(Publisher& pub) {
  std::vector<std::string> dirs;
  for (const auto& r : pub.state().runs)
    if (r.state == RunPhase::finished && !r.run_dir.empty()) dirs.push_back(r.run_dir);
  std::vector<std::string> notes;
  try {
    for (const auto& dir : write_seed_group_results(dirs, &notes))
      pub.state().messages.push_back("seed group summary: " + dir.string());
  } catch (const std::exception& e) {
    notes.push_back(std::string("seed group summaries not written: ") + e.what());
  }
  for (auto& n : notes) pub.state().messages.push_back(std::move(n));
}

ExperimentHandle start_training(const std::vector<config::RunConfig>& runs, TrainingOptions options) {
  std::vector<train::ValidRun> valid;
  for (const auto& c : runs) valid.push_back(train::validate_run(c));  // in the caller's thread: errors reach it directly
  return start_training(std::move(valid), options);
}

ExperimentHandle start_training(std::vector<train::ValidRun> runs, TrainingOptions options) {
  const bool evaluate = options.evaluate, side_by_side = options.side_by_side;
  if (side_by_side && runs.size() > 1) {
    // The cores are shared out: each run gets its part instead of all of them competing.
    const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    for (auto& r : runs) r.share_threads(static_cast<int>(runs.size()), cores);
  }
  return ExperimentHandle::start([runs = std::move(runs), evaluate, side_by_side](JobContext<Snapshot>& ctx) {
    Publisher pub(ctx);
    for (const auto& r : runs) {
      RunView v;
      v.name = r.config().name;
      v.total_steps = r.config().train.steps;
      pub.state().runs.push_back(v);
    }
    pub.publish();
    auto one = [&](size_t i) {
      return train_then_evaluate(pub, ctx, static_cast<int>(i), evaluate, runs[i].config().eval.per_position.buckets,
                                 [&](const train::TrainHooks& h) { return train::train_new_run(runs[i], h); });
    };
    if (side_by_side) {
      std::vector<std::thread> workers;
      for (size_t i = 0; i < runs.size(); ++i) workers.emplace_back([&, i] { one(i); });
      for (auto& w : workers) w.join();
    } else {
      for (size_t i = 0; i < runs.size(); ++i)
        if (!one(i)) break;
    }
    std::lock_guard<std::recursive_mutex> lock(pub.mu);
    if (evaluate) write_groups(pub);
    pub.state().done = true;
    pub.publish();
  });
}

ExperimentHandle start_resume(std::string run_dir, ResumeOptions options) {
  const bool evaluate = options.evaluate;
  // In the caller's thread, so the window and the CLI refuse at once (the worker's lock decides).
  runs::RunLock::check_free(run_dir);
  return ExperimentHandle::start([run_dir = std::move(run_dir), evaluate](JobContext<Snapshot>& ctx) {
    Publisher pub(ctx);
    const auto reader = runs::RunReader::open(run_dir);
    const auto cfg = reader.run_config();
    RunView v;
    v.name = reader.name();
    v.run_dir = run_dir;
    v.total_steps = cfg.train.steps;
    for (const auto& line : reader.metric_records()) {
      // The history shown before the resumed steps arrive; absent numbers read as 0, as before.
      const auto or_zero = [](double x) { return std::isnan(x) ? 0.0 : x; };
      train::StepMetrics m;
      m.step = static_cast<int>(line.step);
      m.loss = or_zero(line.loss);
      m.lr = or_zero(line.lr);
      m.grad_norm = or_zero(line.grad_norm);
      m.tokens_per_s = or_zero(line.tokens_per_s);
      m.elapsed_s = or_zero(line.elapsed_s);
      m.val_bpb = line.val_bpb;
      v.history.push_back(m);
    }
    pub.state().runs.push_back(v);
    pub.publish();
    train_then_evaluate(pub, ctx, 0, evaluate, cfg.eval.per_position.buckets,
                        [&](const train::TrainHooks& h) { return train::resume_run(run_dir, h); });
    pub.state().done = true;
    pub.publish();
  });
}

ExperimentHandle start_evaluation(std::vector<std::string> run_dirs) {
  for (const auto& d : run_dirs) runs::RunLock::check_free(d);  // in the caller's thread: refused at once
  return ExperimentHandle::start([dirs = std::move(run_dirs)](JobContext<Snapshot>& ctx) {
    Publisher pub(ctx);
    for (const auto& d : dirs) {
      RunView v;
      v.name = std::filesystem::path(d).filename().string();
      v.run_dir = d;
      pub.state().runs.push_back(v);
    }
    pub.publish();
    for (size_t i = 0; i < dirs.size() && !ctx.cancelled(); ++i) {
      auto& r = pub.state().runs[i];
      pub.state().current = static_cast<int>(i);
      r.state = RunPhase::evaluating;
      pub.publish();
      try {
        auto report = evaluate_saved_run(dirs[i], [&](const std::string& phase, double) {
          r.message = phase;
          pub.publish();
          return !ctx.cancelled();
        });
        r.report = std::make_shared<const eval::EvalReport>(std::move(report));
        r.state = ctx.cancelled() ? RunPhase::cancelled : RunPhase::finished;
      } catch (const std::exception& e) {
        r.state = RunPhase::failed;
        r.message = e.what();
        pub.state().messages.push_back(r.name + ": " + e.what());
      }
      pub.publish();
    }
    pub.state().done = true;
    pub.publish();
  });
}

}  // namespace proteus::engine
