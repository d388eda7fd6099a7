#include "app/gui/state/explore_session.hpp"

#include <cmath>
#include <cstdio>

#include "core/config/config_json.hpp"

namespace proteus::gui {

std::string ExploreSession::open(const std::string& run_dir) {
  try {
    auto x = std::make_unique<engine::ScheduleExplorer>(run_dir);
    trained_ = x->run().config;
    edit = ExperimentEditor{};
    edit.set_mode(RunMode::single);
    edit.set_config(trained_);
    sequences = positions = 0;
    if (explorer_) reaper_.retire(std::move(explorer_));  // its worker stops and is joined off this thread
    explorer_ = std::move(x);
    run_dir_ = run_dir;
    requested_ = 1;            // the explorer's own first request: the trained schedule
    snapshot_.reset();
    figures_.clear();
    return "";
  } catch (const std::exception& e) {
    return e.what();
  }
}

void ExploreSession::close() {
  if (explorer_) reaper_.retire(std::move(explorer_));
  run_dir_.clear();
  snapshot_.reset();
  figures_.clear();
}

engine::ConfigDelta ExploreSession::eval_settings() const { return engine::explore_eval_settings(sequences, positions); }

engine::ConfigDelta ExploreSession::delta() const {
  engine::ConfigDelta d;
  const auto& a = trained_.model.mixer;
  const auto& b = edit.config().model.mixer;
  if (b.E != a.E) d.push_back({"model.mixer.E", b.E});
  // N = 0 means data.seq_len: compare the horizons the model gets.
  if (config::resolved_mixer_horizon(edit.config()) != config::resolved_mixer_horizon(trained_))
    d.push_back({"model.mixer.N", config::resolved_mixer_horizon(edit.config())});
  if (b.schedule.type != a.schedule.type) d.push_back({"model.mixer.schedule.type", b.schedule.type});
  using memory::ScheduleType;
  if (b.schedule.type == ScheduleType::power && b.schedule.power != a.schedule.power)
    d.push_back({"model.mixer.schedule.power", b.schedule.power});
  if (b.schedule.type == ScheduleType::custom && b.schedule.unlock != a.schedule.unlock)
    d.push_back({"model.mixer.schedule.unlock", b.schedule.unlock});
  else if (b.schedule.type != ScheduleType::custom && !a.schedule.unlock.empty())
    d.push_back({"model.mixer.schedule.unlock", nullptr});
  return d;
}

std::string ExploreSession::edit_label() const {
  const auto d = delta();
  if (d.empty()) return "trained schedule";
  std::string out;
  for (const auto& [path, value] : d) {
    if (value.is_null()) continue;
    const auto name = path.substr(path.rfind('.') + 1);
    std::string v = value.dump();
    if (value.is_string()) v = value.get<std::string>();
    if (name == "unlock") v = "[" + std::to_string(value.size()) + " points]";
    out += (out.empty() ? "" : ", ") + name + " = " + v;
  }
  return out;
}

std::string ExploreSession::submit(ExploreAsk ask) {
  if (!explorer_) return "no run is open in Explore";
  try {
    requested_ = explorer_->request({eval_settings(), delta(), ask.niah});
    return "";
  } catch (const std::exception& e) {
    return e.what();
  }
}

std::string ExploreSession::sweep(const std::string& axis) {
  if (!explorer_) return "no run is open in Explore";
  try {
    auto points = axis == "N" ? engine::horizon_sweep(trained_) : engine::blocks_sweep(trained_);
    requested_ = explorer_->request_sweep(eval_settings(), axis, std::move(points));
    return "";
  } catch (const std::exception& e) {
    return e.what();
  }
}

void ExploreSession::reset() {
  edit.set_config(trained_);
  submit();
}

bool ExploreSession::settled() const { return snapshot_ && snapshot_->generation >= requested_ && !snapshot_->busy; }

bool ExploreSession::refresh() {
  if (!explorer_) return false;
  auto s = explorer_->latest();
  if (s == snapshot_) return false;
  snapshot_ = std::move(s);
  figures_.clear();
  if (!snapshot_->trained) return true;
  figures::ExploreResults r;
  r.run = snapshot_->run_name;
  r.train_len = snapshot_->train_len;
  r.trained = snapshot_->trained.get();
  if (snapshot_->edited && snapshot_->edited != snapshot_->trained) {
    r.edited = snapshot_->edited.get();
    r.edited_config = snapshot_->edited_config;
    // The label of what was evaluated, not of the controls (they may have moved on).
    ExploreSession shown;
    shown.trained_ = trained_;
    shown.edit.set_config(*snapshot_->edited_config);
    r.edit_label = shown.edit_label();
  }
  figures_ = figures::explore_figures(r);
  if (!snapshot_->sweep.empty()) {
    std::vector<figures::SweepCurve> pts;
    for (const auto& p : snapshot_->sweep)
      pts.push_back({p.x, p.report && p.report->per_position ? &*p.report->per_position : nullptr});
    const auto* t = snapshot_->trained->per_position ? &*snapshot_->trained->per_position : nullptr;
    figures_.push_back({"explore_sweep_" + snapshot_->sweep_axis,
                        figures::sweep_figure(snapshot_->sweep_axis, pts, t, snapshot_->train_len)});
  }
  return true;
}

std::string ExploreSession::status_line() const {
  if (!explorer_) return "Open a finished run (Runs or Training) in Explore.";
  if (!snapshot_) return "loading " + run_dir_;
  if (!snapshot_->error.empty()) return "error: " + snapshot_->error;
  char buf[160];
  if (snapshot_->busy || snapshot_->generation < requested_) {
    // A curve drawn from the first sequences: say how many of them so far.
    const auto partial = [](const std::shared_ptr<const eval::EvalReport>& r) -> const eval::PerPositionResult* {
      return r && r->per_position && r->per_position->partial() ? &*r->per_position : nullptr;
    };
    const auto* p = partial(snapshot_->edited);
    const char* which = "edited";
    if (!p || snapshot_->edited_generation != snapshot_->generation) p = partial(snapshot_->trained), which = "trained";
    if (p) {
      std::snprintf(buf, sizeof buf, "evaluating: %s curve over %d of %d sequences", which, p->sequences,
                    p->sequences_total);
      return buf;
    }
    return "evaluating: " + snapshot_->phase;
  }
  std::snprintf(buf, sizeof buf, "up to date (last edit: first curve in %.2f s, all sequences in %.2f s)",
                snapshot_->edited_first_seconds, snapshot_->edited_seconds);
  return buf;
}

}  // namespace proteus::gui
