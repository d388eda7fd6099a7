#include "core/train/trainer.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <limits>
#include <numbers>

#include "core/backend/registry.hpp"
#include "core/model/model_backend.hpp"
#include "core/config/config_json.hpp"
#include "core/data/batch_source.hpp"
#include "core/common/input_error.hpp"
#include "core/model/model.hpp"
#include "core/runs/run_dir.hpp"
#include "core/runs/safetensors.hpp"
#include "core/train/checkpoint.hpp"
#include "core/train/gated_adamw.hpp"
#include "core/train/lr_schedule.hpp"

namespace proteus::train {
namespace {

using Clock = std::chrono::steady_clock;

// The weighted targets' bytes per token (their decoded text's UTF-8 bytes over their count), which
// turns a BPE run's held-out nats per token into nats per byte.
double weighted_bytes_per_token(const std::vector<data::Batch>& val, const data::Tokenizer& tokenizer) {
  double bytes = 0, tokens = 0;
  for (const auto& b : val)
    for (size_t i = 0; i < b.targets.size(); ++i)
      if (b.weights[i] > 0) bytes += static_cast<double>(tokenizer.bytes_of(b.targets[i]).size()), tokens += 1;
  return tokens > 0 && bytes > 0 ? bytes / tokens : 1.0;
}

// Everything one run holds while it trains. The writer (and with it the run's lock) belongs to
// the caller, which reports a failure in status.json whatever the session throws.
struct Session {
  config::RunConfig cfg;
  runs::RunWriter& writer;
  std::unique_ptr<data::BatchSource> data;
  backend::BackendChoice be;
  std::unique_ptr<model::Model<float>> model;
  std::unique_ptr<GatedAdamW<float>> opt;
  std::vector<data::Batch> val;
  CheckpointState state;  // completed steps, wall time before this session, the data RNG
  double val_bytes_per_token = 1;  // 1 for bytes; held-out bits are per byte either way

  Session(const config::RunConfig& c, runs::RunWriter& w, std::unique_ptr<data::BatchSource> d)
      : cfg(c), writer(w), data(std::move(d)) {
    be = model::make_model_backend(cfg);
    model = std::make_unique<model::Model<float>>(cfg.model, config::resolved_mixer_horizon(cfg), *be.backend,
                                                  cfg.seed);
    opt = std::make_unique<GatedAdamW<float>>(*model, cfg);
    val = data->val_batches(cfg.train.val_batches);
    // Held-out bits per byte are measured on text rows: synthetic rows (noise haystacks, MQAR)
    // would flatter it. A mix without text measures every row (bits per token).
    bool any_text = false;
    for (const auto& b : val)
      for (const auto& task : b.row_task) any_text |= task == "text";
    if (any_text)
      for (auto& b : val)
        for (int r = 0; r < b.B; ++r)
          if (b.row_task[r] != "text") std::fill(b.weights.begin() + r * b.T, b.weights.begin() + (r + 1) * b.T, 0.0f);
    if (!data->tokenizer().is_bytes()) val_bytes_per_token = weighted_bytes_per_token(val, data->tokenizer());
    state.rng.seed(cfg.seed ^ 0x9e3779b97f4a7c15ull);  // the data stream's own seed, apart from the init's
  }
};

// Held-out bits per byte; with `rows`, each row's NLL at every position (NaN where it does not
// count) and the rows' fingerprint.
double validation_bpb(model::Model<float>& model, const std::vector<data::Batch>& val, StepMetrics* rows) {
  double nats = 0, weight = 0;
  std::vector<double>* row_nll = rows ? &rows->val_row_nll : nullptr;
  if (rows) {
    rows->val_row_nll.clear();
    rows->val_rows = 0;
    rows->val_fingerprint = 1469598103934665603ull;  // FNV-1a over every input and target id
    for (const auto& b : val)
      for (const auto* ids : {&b.tokens, &b.targets})
        for (int32_t id : *ids) rows->val_fingerprint = (rows->val_fingerprint ^ static_cast<uint32_t>(id)) * 1099511628211ull;
  }
  for (const auto& b : val) {
    double w = 0;
    for (float x : b.weights) w += x;
    nats += model.forward(b.tokens.data(), b.targets.data(), b.weights.data(), b.B, b.T) * w;
    weight += w;
    if (!row_nll) continue;
    const auto losses = model.position_losses();  // (B, T) plain NLL, 0 where the weight is 0
    for (size_t i = 0; i < static_cast<size_t>(b.B) * b.T; ++i)
      row_nll->push_back(b.weights[i] > 0 ? losses[i] : std::numeric_limits<double>::quiet_NaN());
    rows->val_rows += b.B;
  }
  return weight > 0 ? nats / weight / std::numbers::ln2 : 0.0;
}

runs::MetricsRecord metrics_record(const StepMetrics& m) {
  runs::MetricsRecord r;
  r.step = m.step;
  r.loss = m.loss;
  r.lr = m.lr;
  r.grad_norm = m.grad_norm;
  r.tokens_per_s = m.tokens_per_s;
  r.elapsed_s = m.elapsed_s;
  r.val_bpb = m.val_bpb;
  return r;
}

// A failure's one line for status.json: what was thrown, an allocation failure said plainly.
std::string failure_reason(std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::bad_alloc&) {
    return "out of memory (std::bad_alloc): the model, batch or evaluation is too large for this machine";
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown error";
  }
}

// Runs `body` with the run's writer; whatever it throws is written to status.json as "failed"
// (with the step of the last record) before it goes on to the caller, so no run ends "running".
template <class Body>
TrainResult reporting_failure(runs::RunWriter& writer, Body&& body) {
  try {
    return body();
  } catch (...) {
    const std::exception_ptr error = std::current_exception();
    try {
      writer.set_status(runs::RunState::failed, failure_reason(error), writer.last_step());
    } catch (...) {
      // Nothing more can be written (the disk is gone); the caller still gets the first error.
    }
    std::rethrow_exception(error);
  }
}

TrainResult run_loop(Session& s, const TrainHooks& hooks) {
  const auto& t = s.cfg.train;
  auto& model = *s.model;
  auto& be = *s.be.backend;
  const auto ckpt_path = s.writer.path(kCheckpointFile).string();
  const size_t P = model.num_params();
  const auto start = Clock::now();
  auto wall = [&] { return s.state.wall_s + std::chrono::duration<double>(Clock::now() - start).count(); };
  auto checkpoint = [&] {
    CheckpointState c = s.state;
    c.wall_s = wall();
    save_checkpoint(ckpt_path, model, s.opt.get(), c);
  };

  TrainResult r;
  r.run_dir = s.writer.dir().string();
  r.device = s.be.device;
  if (hooks.on_run_dir) hooks.on_run_dir(r.run_dir);
  if (hooks.on_device) hooks.on_device(r.device);
  if (!s.be.message.empty() && hooks.on_message) hooks.on_message(s.be.message);
  double tokens = 0, train_seconds = 0;
  const int first = s.state.step + 1;
  for (int step = first; step <= t.steps; ++step) {
    if (hooks.wait_if_paused) hooks.wait_if_paused();
    if (hooks.should_stop && hooks.should_stop()) {
      checkpoint();
      r.state = runs::RunState::cancelled;
      r.message = "cancelled at step " + std::to_string(s.state.step) + "; resume with 'proteus train --resume " +
                  r.run_dir + "'";
      s.writer.set_status(runs::RunState::cancelled, r.message, s.state.step);
      break;
    }
    const auto t0 = Clock::now();
    const auto batch = s.data->next_train_batch(s.state.rng);
    StepMetrics m;
    m.step = step;
    m.total_steps = t.steps;
    m.loss = model.forward(batch.tokens.data(), batch.targets.data(), batch.weights.data(), batch.B, batch.T);
    if (std::isfinite(m.loss)) {
      model.backward();
      m.grad_norm = std::sqrt(be.sum_squares(model.grads(), P));
    }
    if (!std::isfinite(m.loss) || !std::isfinite(m.grad_norm)) {
      r.state = runs::RunState::failed;
      r.message = std::string("non-finite ") + (std::isfinite(m.loss) ? "gradient" : "loss") + " at step " +
                  std::to_string(step) + " (loss " + std::to_string(m.loss) + ", gradient norm " +
                  std::to_string(m.grad_norm) + "); stopped, the last good checkpoint is kept" +
                  (std::filesystem::exists(ckpt_path) ? " (" + ckpt_path + ")" : "") +
                  "; try a lower train.lr or train.grad_clip";
      s.writer.set_status(runs::RunState::failed, r.message, s.state.step);
      break;
    }
    if (t.grad_clip > 0 && m.grad_norm > t.grad_clip)
      be.scale(model.grads(), static_cast<float>(t.grad_clip / m.grad_norm), P);
    m.lr = learning_rate(t, step);
    s.opt->step(step, m.lr);
    s.state.step = step;
    be.synchronize();

    const double dt = std::chrono::duration<double>(Clock::now() - t0).count();
    tokens += double(batch.B) * batch.T;
    train_seconds += dt;
    m.tokens_per_s = train_seconds > 0 ? tokens / train_seconds : 0;  // mean over this session: steady
    m.elapsed_s = wall();
    r.final_loss = m.loss;
    const bool last = step == t.steps;
    const bool eval_now = (t.eval_every > 0 && step % t.eval_every == 0) || last;
    if (eval_now) {
      m.val_bpb = validation_bpb(model, s.val, &m) / s.val_bytes_per_token;
      r.final_val_bpb = m.val_bpb;
      if (hooks.on_validation) hooks.on_validation(model, s.val);
    }
    if (eval_now || step == 1 || (t.log_every > 0 && step % t.log_every == 0)) {
      s.writer.append_metrics(metrics_record(m));
      if (hooks.on_step) hooks.on_step(m);
    }
    if ((t.checkpoint_every > 0 && step % t.checkpoint_every == 0) || last) checkpoint();
    if (last) {
      r.state = runs::RunState::finished;
      s.writer.set_status(runs::RunState::finished, "trained " + std::to_string(step) + " steps", step);
    } else if (t.log_every > 0 && step % t.log_every == 0) {
      s.writer.set_status(runs::RunState::running, "training", step);
    }
  }
  if (r.state == runs::RunState::running) {  // resumed a run that had already finished
    r.state = runs::RunState::finished;
    s.writer.set_status(runs::RunState::finished, "trained " + std::to_string(s.state.step) + " steps", s.state.step);
  }
  r.steps_done = s.state.step;
  r.wall_s = wall();
  r.tokens_per_s = train_seconds > 0 ? tokens / train_seconds : 0;
  return r;
}

}  // namespace

TrainResult train_new_run(const config::RunConfig& cfg, const TrainHooks& hooks) {
  return train_new_run(validate_run(cfg), hooks);
}

TrainResult train_new_run(const ValidRun& run, const TrainHooks& hooks) {
  const config::RunConfig& cfg = run.config();
  // The data first, corpus loaded and checked: a refused config or corpus leaves no run directory.
  auto data = std::make_unique<data::BatchSource>(cfg.data);
  // A bpe run names the tokenizer it trained by its hash and keeps it beside its weights.
  config::RunConfig run_cfg = cfg;
  run_cfg.data.tokenizer_hash = data->tokenizer().hash();
  auto writer = runs::RunWriter::create(cfg.runs_dir, cfg.name, config::to_json(run_cfg));
  return reporting_failure(writer, [&] {
    data->tokenizer().save_in(writer.dir());
    Session s(run_cfg, writer, std::move(data));
    return run_loop(s, hooks);
  });
}

TrainResult resume_run(const std::string& run_dir, const TrainHooks& hooks) {
  const auto reader = runs::RunReader::open(run_dir);
  const auto cfg = reader.run_config();
  // The data first, so a corpus that changed or vanished (or a missing or altered tokenizer file)
  // is refused with the run as it was.
  auto data = std::make_unique<data::BatchSource>(cfg.data, data::Tokenizer::for_run(run_dir, cfg.data));
  // The lock: a second writer is refused here, touching nothing. From now on whatever fails
  // (no checkpoint, a corrupt one) is the run's failure, written to its status.
  auto writer = runs::RunWriter::reopen(run_dir);
  return reporting_failure(writer, [&] {
    const auto ckpt = (std::filesystem::path(run_dir) / kCheckpointFile).string();
    if (!std::filesystem::exists(ckpt))
      throw InputError(run_dir, "has no " + std::string(kCheckpointFile) + " to resume from");
    // Lines of steps after the checkpoint are dropped: those steps are trained again.
    writer.continue_training(checkpoint_step(ckpt));
    Session s(cfg, writer, std::move(data));
    s.state = load_checkpoint(ckpt, *s.model, s.opt.get());
    if (hooks.on_message) hooks.on_message("resuming " + run_dir + " from step " + std::to_string(s.state.step));
    return run_loop(s, hooks);
  });
}

}  // namespace proteus::train
