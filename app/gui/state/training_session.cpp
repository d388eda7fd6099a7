#include "app/gui/state/training_session.hpp"

#include <cmath>
#include <cstdio>
#include <set>

#include "core/runs/run_dir.hpp"

namespace proteus::gui {

std::vector<figures::NamedFigure> snapshot_figures(const engine::Snapshot& snapshot,
                                                   const std::vector<config::RunConfig>& configs) {
  using figures::palette;
  std::vector<figures::NamedFigure> out;
  const auto& runs = snapshot.runs;

  std::vector<figures::LossCurve> curves;
  bool any_val = false;
  for (const auto& r : runs) {
    figures::LossCurve c;
    c.name = r.name;
    for (const auto& m : r.history) {
      if (std::isfinite(m.loss)) c.step.push_back(m.step), c.loss.push_back(m.loss);
      if (std::isfinite(m.val_bpb)) c.val_step.push_back(m.step), c.val_bpb.push_back(m.val_bpb);
    }
    any_val |= !c.val_bpb.empty();
    curves.push_back(std::move(c));
  }
  out.push_back({"loss", figures::loss_figure(curves)});
  if (any_val) out.push_back({"val_bpb", figures::val_bpb_figure(curves)});

  // Run i keeps palette(i) in every figure, whichever runs have data yet.
  auto recolour = [](figures::Figure& f, const std::vector<int>& idx) {
    for (size_t k = 0; k < idx.size() && k < f.series.size(); ++k) f.series[k].color = palette(idx[k]);
  };
  std::vector<figures::Named<eval::PerPositionResult>> pp;
  std::vector<int> idx;
  bool any_live = false;
  int live_step = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto& r = runs[i];
    if (r.report && r.report->per_position && !r.report->per_position->nll.empty()) {
      pp.push_back({r.name, *r.report->per_position});
    } else if (r.live_per_position && !r.live_per_position->bucket_nll.empty()) {
      pp.push_back({r.name, *r.live_per_position});
      any_live = true;
      live_step = std::max(live_step, r.live_per_position_step);
    } else {
      continue;
    }
    idx.push_back(static_cast<int>(i));
  }
  const int train_len = configs.empty() ? 0 : configs.front().data.seq_len;
  if (!pp.empty()) {
    auto f = figures::per_position_figure(pp, train_len);
    recolour(f, idx);
    if (any_live) f.notes.push_back("live: validation rows at step " + std::to_string(live_step));
    out.push_back({"per_position", std::move(f)});
  }
  if (pp.size() >= 2) {
    auto f = figures::perplexity_ratio_figure(pp, train_len);
    recolour(f, std::vector<int>(idx.begin() + 1, idx.end()));
    out.push_back({"ppl_ratio", std::move(f)});
  }

  for (const auto& r : runs)
    if (r.report && r.report->niah)
      for (const auto& grid : r.report->niah->tasks)
        out.push_back({"niah_" + figures::file_name_part(grid.task) + "_" + figures::file_name_part(r.name),
                       figures::niah_heatmap_figure(grid, r.name)});
  for (const auto& r : runs) {
    if (!r.report || !r.report->occupancy) continue;
    const auto& occ = *r.report->occupancy;
    if (occ.layers > 0 && occ.heads > 0 && occ.seq_len > 0 && occ.blocks > 0)
      out.push_back({"occupancy_" + figures::file_name_part(r.name) + "_l0_h0",
                     figures::occupancy_figure(occ, 0, 0, r.name)});
  }

  std::vector<figures::EPoint> points;
  std::set<int> es;
  for (size_t i = 0; i < runs.size() && i < configs.size(); ++i) {
    const auto& m = configs[i].model.mixer;
    if (m.type != "memory" || runs[i].val_bpb < 0) continue;
    points.push_back({m.rule, m.E, runs[i].val_bpb});
    es.insert(m.E);
  }
  if (es.size() >= 2) out.push_back({"e_ablation", figures::e_ablation_figure(points)});
  return out;
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

void TrainingSession::start(std::vector<config::RunConfig> runs, bool side_by_side, bool evaluate) {
  handle_.cancel();
  auto h = engine::start_training(runs, evaluate, side_by_side);  // throws before anything starts
  handle_ = std::move(h);  // joins the cancelled job first
  configs_ = std::move(runs);
  snapshot_.reset();
  figures_.clear();
}

void TrainingSession::resume_run(const std::string& run_dir) {
  auto cfg = runs::RunReader::open(run_dir).run_config();  // throws InputError for a non-run
  runs::RunLock::check_free(run_dir);  // another writer holds it: refused before this job is touched
  handle_.cancel();
  handle_ = engine::start_resume(run_dir, true);
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
    for (const auto& r : snapshot_->runs) finished += r.state == "finished";
    return "done: " + std::to_string(finished) + " of " + std::to_string(snapshot_->runs.size()) + " runs finished";
  }
  std::string line;
  for (const auto& r : snapshot_->runs) {
    if (r.state == "queued") continue;
    if (!line.empty()) line += " | ";
    line += r.name + ": " + r.state;
    if (r.state == "training") {
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
