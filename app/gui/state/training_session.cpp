#include "app/gui/state/training_session.hpp"

#include <cmath>
#include <cstdio>

#include "core/runs/run_dir.hpp"

namespace proteus::gui {

std::vector<figures::NamedFigure> snapshot_figures(const engine::Snapshot& snapshot,
                                                   const std::vector<config::RunConfig>& configs) {
  std::vector<figures::RunResults> runs;
  for (size_t i = 0; i < snapshot.runs.size(); ++i) {
    const auto& view = snapshot.runs[i];
    figures::RunResults r;
    r.name = view.name;
    if (i < configs.size()) r.config = configs[i];
    for (const auto& m : view.history) {
      if (std::isfinite(m.loss)) r.curve.step.push_back(m.step), r.curve.loss.push_back(m.loss);
      if (std::isfinite(m.val_bpb)) r.curve.val_step.push_back(m.step), r.curve.val_bpb.push_back(m.val_bpb);
    }
    r.report = view.report;
    r.live_per_position = view.live_per_position;
    r.live_per_position_step = view.live_per_position_step;
    r.live_block_use = view.live_block_use;
    runs.push_back(std::move(r));
  }
  return figures::figure_set(std::move(runs), {.loss_before_data = true});
}

std::string format_rate(double tokens_per_s) {
  char buf[32];
  if (tokens_per_s >= 1e6) std::snprintf(buf, sizeof buf, "%.2fM tok/s", tokens_per_s / 1e6);
  else if (tokens_per_s >= 1e3) std::snprintf(buf, sizeof buf, "%.1fk tok/s", tokens_per_s / 1e3);
  else std::snprintf(buf, sizeof buf, "%.0f tok/s", tokens_per_s);
  return buf;
}

std::string format_duration(double seconds) {
  if (!(seconds >= 0)) return "?";
  char buf[32];
  const long s = std::lround(seconds);
  if (s >= 3600) std::snprintf(buf, sizeof buf, "%ld h %02ld min", s / 3600, (s / 60) % 60);
  else if (s >= 60) std::snprintf(buf, sizeof buf, "%ld min %02ld s", s / 60, s % 60);
  else std::snprintf(buf, sizeof buf, "%ld s", s);
  return buf;
}

void TrainingSession::start(const std::vector<config::RunConfig>& runs, engine::TrainingOptions options) {
  start(train::validate_runs(runs), options);
}

void TrainingSession::start(std::vector<train::ValidRun> runs, engine::TrainingOptions options) {
  handle_.cancel();
  std::vector<config::RunConfig> configs;
  for (const auto& r : runs) configs.push_back(r.config());
  auto h = engine::start_training(std::move(runs), options);
  reaper_.retire(std::move(handle_));  // the cancelled job checkpoints and is joined off this thread
  handle_ = std::move(h);
  configs_ = std::move(configs);
  snapshot_.reset();
  figures_.clear();
}

void TrainingSession::resume_run(const std::string& run_dir) {
  auto cfg = runs::RunReader::open(run_dir).run_config();  // throws InputError for a non-run
  runs::RunLock::check_free(run_dir);  // another writer holds it: refused before this job is touched
  handle_.cancel();
  auto h = engine::start_resume(run_dir, {.evaluate = true});
  reaper_.retire(std::move(handle_));  // as in start(): the window never waits for the old job
  handle_ = std::move(h);
  configs_ = {cfg};
  snapshot_.reset();
  figures_.clear();
}

bool TrainingSession::refresh() {
  if (!handle_.valid()) return false;
  auto s = handle_.latest();
  if (!s || s == snapshot_) return false;
  snapshot_ = std::move(s);
  figures_ = snapshot_figures(*snapshot_, configs_);
  return true;
}

std::string TrainingSession::status_line() const {
  if (!handle_.valid()) return "idle";
  if (!handle_.running()) {
    const auto err = handle_.error_message();
    if (!err.empty()) return "failed: " + err;
  }
  if (!snapshot_) return "starting";
  if (snapshot_->done) {
    int finished = 0;
    for (const auto& r : snapshot_->runs) finished += r.state == engine::RunPhase::finished;
    return "done: " + std::to_string(finished) + " of " + std::to_string(snapshot_->runs.size()) + " runs finished";
  }
  std::string line;
  for (const auto& r : snapshot_->runs) {
    if (r.state == engine::RunPhase::queued) continue;
    if (!line.empty()) line += " | ";
    line += r.name + ": " + engine::run_phase_name(r.state);
    if (r.state == engine::RunPhase::training) {
      line += " " + std::to_string(r.step) + "/" + std::to_string(r.total_steps);
      if (r.tokens_per_s > 0) line += ", " + format_rate(r.tokens_per_s);
    } else if (!r.message.empty()) {
      line += " (" + r.message + ")";
    }
  }
  const auto p = handle_.progress();
  if (p.eta_s >= 0) line += " | about " + format_duration(p.eta_s) + " left";
  if (handle_.paused()) line = "paused | " + line;
  return line;
}

std::vector<std::string> TrainingSession::run_dirs() const {
  std::vector<std::string> out;
  if (snapshot_)
    for (const auto& r : snapshot_->runs)
      if (!r.run_dir.empty()) out.push_back(r.run_dir);
  return out;
}

}  // namespace proteus::gui
