#include "core/engine/schedule_explore.hpp"

#include <chrono>
#include <functional>

#include "core/config/mixer_schedule.hpp"

namespace proteus::engine {
namespace {

using Clock = std::chrono::steady_clock;

// The first batch of every curve: a few sequences, so that a first curve comes within a fraction
// of the whole evaluation (issue 13: on screen within 1 s of an edit on a 2-core CPU).
constexpr int kFirstBatch = 4;

double seconds_since(double steady_s) {
  return std::chrono::duration<double>(Clock::now().time_since_epoch()).count() - steady_s;
}

ConfigDelta joined(const ConfigDelta& a, const ConfigDelta& b) {
  ConfigDelta out = a;
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

// At every edit: the curves and the occupancy. Block use (16 sequences of 2N) and the synthetic
// tasks are left to a full evaluation (`proteus eval --as`); NIAH comes on request.
enum class Niah { skipped, asked };

eval::EvalParts explore_parts(Niah niah) {
  eval::EvalParts p;
  p.block_use = p.mqar = p.needle = false;
  p.niah = niah == Niah::asked;
  return p;
}

}  // namespace

ConfigDelta explore_eval_settings(int sequences, int positions) {
  ConfigDelta d;
  if (sequences > 0) d.push_back({"eval.per_position.sequences", sequences});
  if (positions > 0) d.push_back({"eval.per_position.seq_len", positions});
  return d;
}

std::vector<SweepPoint> horizon_sweep(const config::RunConfig& run) {
  std::vector<SweepPoint> out;
  const int L = run.data.seq_len;
  for (int n : {std::max(1, L / 2), L, 2 * L, 4 * L}) out.push_back({double(n), {{"model.mixer.N", n}}, nullptr, ""});
  return out;
}

std::vector<SweepPoint> blocks_sweep(const config::RunConfig& run) {
  std::vector<SweepPoint> out;
  const int64_t D = config::mixer_state_size(run.model.mixer);
  for (int e : {1, 2, 4, 8, 16, 32}) {
    if (e > D) break;
    SweepPoint p{double(e), {{"model.mixer.E", e}}, nullptr, ""};
    if (run.model.mixer.schedule.type == memory::ScheduleType::custom) {
      p.edit.push_back({"model.mixer.schedule.type", memory::ScheduleType::uniform});
      p.edit.push_back({"model.mixer.schedule.unlock", nullptr});
    }
    out.push_back(std::move(p));
  }
  return out;
}

ScheduleExplorer::ScheduleExplorer(const std::string& run_dir, PublishObserver on_publish)
    : run_(TrainedRun::open(run_dir)), on_publish_(std::move(on_publish)) {
  request({explore_eval_settings(), {}, false});  // the trained schedule first
  worker_ = Handle<ExploreSnapshot>::start([this](JobContext<ExploreSnapshot>& ctx) { work(ctx); });
}

ScheduleExplorer::~ScheduleExplorer() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  worker_.cancel();  // the running evaluation stops at its next batch; ~Handle joins
}

uint64_t ScheduleExplorer::request(const ExploreRequest& r) {
  edited_config(run_, joined(r.eval_settings, r.edit));  // a bad edit is refused here, naming the field
  Job job;
  job.request = r;
  return enqueue(std::move(job));
}

uint64_t ScheduleExplorer::request_sweep(const ConfigDelta& eval_settings, const std::string& axis,
                                         std::vector<SweepPoint> points) {
  edited_config(run_, eval_settings);
  Job job;
  job.request.eval_settings = eval_settings;
  job.sweep_axis = axis;
  job.sweep = std::move(points);
  return enqueue(std::move(job));
}

uint64_t ScheduleExplorer::enqueue(Job job) {
  uint64_t g;
  {
    std::lock_guard<std::mutex> lock(mu_);
    g = ++generation_;
    job.generation = g;
    job.requested_at_s = seconds_since(0);
    pending_ = std::move(job);
    newest_ = g;  // the running evaluation sees this at its next batch and stops
  }
  wake_.notify_all();
  return g;
}

std::shared_ptr<const ExploreSnapshot> ScheduleExplorer::latest() const {
  auto s = worker_.latest();
  if (s) return s;
  auto first = std::make_shared<ExploreSnapshot>();
  first->run_name = run_.name;
  first->train_len = run_.config.data.seq_len;
  first->trained_config = run_.config;
  first->generation = newest_.load();
  first->busy = true;
  return first;
}

// One job's evaluations, each step returning false when the job went stale (a newer request, or
// cancel) so the worker drops it and takes the next.
struct ScheduleExplorer::Pass {
  const TrainedRun& run;
  const Job& job;
  ExploreSnapshot& s;
  std::optional<ConfigDelta>& trained_settings;  // the eval settings s.trained was evaluated under
  std::function<bool()> stale;
  std::function<void()> publish;
  eval::EvalProgress progress;

  const ConfigDelta& settings() const { return job.request.eval_settings; }
  bool niah() const { return job.request.niah; }
  Niah niah_part() const { return niah() ? Niah::asked : Niah::skipped; }

  // The reference: the trained schedule under these settings (again only when they changed, or
  // when NIAH is asked for and it has none yet).
  bool reference() {
    if (!trained_settings || *trained_settings != settings()) return evaluate_reference();
    if (niah() && !s.trained->niah) return add_reference_niah();
    return true;
  }

  // A curve published as its batches arrive: `show` puts the partial report in the snapshot.
  template <class Show>
  eval::ProgressiveCurve progressive(Show show) {
    eval::ProgressiveCurve curve;
    curve.first_batch = kFirstBatch;
    curve.on_partial = [this, show](const eval::PerPositionResult& so_far) {
      if (stale()) return;
      auto rep = std::make_shared<eval::EvalReport>();
      rep->per_position = so_far;
      show(std::move(rep));
      publish();
    };
    return curve;
  }

  bool evaluate_reference() {
    const auto cfg = edited_config(run, settings());
    trained_settings.reset();  // s.trained is being replaced: a cancelled one must be evaluated again
    const auto trained_curve = progressive([&](std::shared_ptr<const eval::EvalReport> rep) {
      s.trained = std::move(rep);
      s.trained_config = cfg;
      s.edited.reset();  // drawn against another reference: no longer comparable
      s.edited_config.reset();
    });
    auto rep = evaluate_trained(run, cfg, explore_parts(niah_part()), progress, trained_curve);
    if (stale()) return false;
    s.trained = std::make_shared<const eval::EvalReport>(std::move(rep));
    s.trained_config = cfg;
    trained_settings = settings();
    s.edited.reset();  // drawn against another reference: no longer comparable
    s.edited_config.reset();
    publish();
    return true;
  }

  bool add_reference_niah() {
    auto only_niah = eval::EvalParts::none();
    only_niah.niah = true;
    auto rep = evaluate_trained(run, s.trained_config, only_niah, progress);
    if (stale()) return false;
    auto merged = std::make_shared<eval::EvalReport>(*s.trained);
    merged->niah = rep.niah;
    s.trained = merged;
    publish();
    return true;
  }

  // Every point of the sweep, published as each arrives.
  bool sweep() {
    s.sweep_axis = job.sweep_axis;
    s.sweep = job.sweep;
    publish();
    for (auto& p : s.sweep) {
      try {
        const auto cfg = edited_config(run, joined(settings(), p.edit));
        auto rep = evaluate_trained(run, cfg, explore_parts(Niah::skipped), progress);
        if (stale()) break;
        p.report = std::make_shared<const eval::EvalReport>(std::move(rep));
      } catch (const InputError& e) {
        p.error = e.what();  // this point cannot be built (E past D, say); the others can
      }
      publish();
    }
    return !stale();
  }

  // The edited schedule, its curve published batch by batch.
  bool edited() {
    const auto cfg = edited_config(run, joined(settings(), job.request.edit));
    const auto mark_edited = [&] {
      const double waited = seconds_since(job.requested_at_s);
      if (s.edited_generation != job.generation) s.edited_first_seconds = waited;
      s.edited_config = cfg;
      s.edited_request = job.request;
      s.edited_generation = job.generation;
      return waited;
    };
    const auto edited_curve = progressive([&](std::shared_ptr<const eval::EvalReport> rep) {
      s.edited = std::move(rep);
      mark_edited();
    });
    auto rep = evaluate_trained(run, cfg, explore_parts(niah_part()), progress, edited_curve);
    if (stale()) return false;
    s.edited = std::make_shared<const eval::EvalReport>(std::move(rep));
    s.edited_seconds = mark_edited();
    return true;
  }

  // The trained schedule itself: the edited curve is the reference.
  void edited_is_reference() {
    s.edited = s.trained;
    s.edited_config = s.trained_config;
    s.edited_request = job.request;
    s.edited_generation = job.generation;
    s.edited_seconds = s.edited_first_seconds = seconds_since(job.requested_at_s);
  }

  // Every step the job asks for; false when it went stale on the way.
  bool run_all() {
    if (!reference()) return false;
    if (!job.sweep_axis.empty()) return sweep();
    if (!job.request.edit.empty() || niah()) return edited();
    edited_is_reference();
    return true;
  }
};

std::optional<ScheduleExplorer::Job> ScheduleExplorer::wait_for_job() {
  std::unique_lock<std::mutex> lock(mu_);
  wake_.wait(lock, [&] { return stop_ || pending_.has_value(); });
  if (stop_) return std::nullopt;
  Job job = std::move(*pending_);
  pending_.reset();
  return job;
}

void ScheduleExplorer::work(JobContext<ExploreSnapshot>& ctx) {
  ExploreSnapshot s;
  s.run_name = run_.name;
  s.train_len = run_.config.data.seq_len;
  s.trained_config = run_.config;
  std::optional<ConfigDelta> trained_settings;
  const auto publish = [&] {
    auto shown = std::make_shared<const ExploreSnapshot>(s);
    if (on_publish_) on_publish_(shown);
    ctx.publish(std::move(shown));
  };
  while (auto job = wait_for_job()) {
    const auto stale = [&] { return ctx.cancelled() || newest_.load() != job->generation; };
    const auto progress = [&](const std::string& phase, double f) {
      if (stale()) return false;
      ctx.set_progress({f, phase, -1});
      return true;
    };
    s.generation = job->generation;
    s.busy = true;
    s.error.clear();
    s.phase = "evaluating";
    publish();
    Pass pass{run_, *job, s, trained_settings, stale, publish, progress};
    try {
      if (!pass.run_all()) continue;
    } catch (const std::exception& e) {
      if (stale()) continue;
      s.error = e.what();
    }
    if (stale()) continue;
    s.busy = false;
    s.phase.clear();
    publish();
  }
}

}  // namespace proteus::engine
