// Explore: a trained run's schedule as live controls. Each request (a config delta over the
// run's E, N, schedule, p, custom unlock points) is evaluated on one worker thread: per-position
// loss and block occupancy at every edit, NIAH when asked. The curve is published as its sequences
// arrive (a small first batch, then every batch) and whole at the end. The newest request wins: a
// generation counter makes an older evaluation stop at its next batch, and only the newest is published.
// The worker also evaluates the trained schedule itself under the same eval settings, so the
// edited curve is always drawn against a reference on the same sequences (paired intervals).
// The window reads latest() each frame and never waits (ARCHITECTURE seam 3).
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/common/input_error.hpp"
#include "core/engine/job.hpp"
#include "core/engine/trained_run.hpp"

namespace proteus::engine {

// A request: the evaluation settings both curves share (eval.*: sequences, lengths) and the
// schedule edit (model.mixer.*). An empty edit is the trained schedule.
struct ExploreRequest {
  ConfigDelta eval_settings;
  ConfigDelta edit;
  bool niah = false;  // also the NIAH grid (slow): on request
};

// One point of an inference sweep over one model: the value on the sweep's axis and its report.
struct SweepPoint {
  double x = 0;
  ConfigDelta edit;
  std::shared_ptr<const eval::EvalReport> report;  // null while waiting or on error
  std::string error;
};

struct ExploreSnapshot {
  std::string run_name;
  int train_len = 0;                    // the run's data.seq_len
  // The trained schedule under the latest eval settings; null until evaluated, its per-position
  // curve alone (partial) while it is evaluated.
  std::shared_ptr<const eval::EvalReport> trained;
  config::RunConfig trained_config;     // the run's config with those eval settings
  // The latest evaluated edit: its request, config, report and the seconds from request to result.
  // While it is evaluated, edited holds only the per-position curve over the sequences done so far
  // (per_position->partial(): k of sequences_total), refreshed after every batch; then the whole.
  uint64_t edited_generation = 0;
  ExploreRequest edited_request;
  std::optional<config::RunConfig> edited_config;
  std::shared_ptr<const eval::EvalReport> edited;
  double edited_first_seconds = 0;  // request -> its first curve (partial or whole)
  double edited_seconds = 0;        // request -> its whole result (set when it is whole)
  // The latest sweep ("N" or "E"), its points filled in as they finish.
  std::string sweep_axis;
  std::vector<SweepPoint> sweep;
  // The newest request so far, and whether the worker is on it; its error when it failed.
  uint64_t generation = 0;
  bool busy = false;
  std::string phase;
  std::string error;
};

class ScheduleExplorer {
 public:
  // Every snapshot as it is published, in order, on the worker's thread (tests and benchmarks
  // that must see each one; the window polls latest()).
  using PublishObserver = std::function<void(const std::shared_ptr<const ExploreSnapshot>&)>;
  // Opens the run (TrainedRun::open's errors) and starts the worker, which evaluates the trained
  // schedule under the run's own eval settings first.
  explicit ScheduleExplorer(const std::string& run_dir, PublishObserver on_publish = {});
  ~ScheduleExplorer();
  ScheduleExplorer(const ScheduleExplorer&) = delete;
  ScheduleExplorer& operator=(const ScheduleExplorer&) = delete;

  const TrainedRun& run() const { return run_; }
  // Checks the request in the caller's thread (edited_config's InputError names the field) and
  // queues it, replacing and cancelling whatever was queued or running. Returns its generation.
  uint64_t request(const ExploreRequest& r);
  // A sweep over one axis: every edit in turn, each a SweepPoint at its x; cancels like request.
  uint64_t request_sweep(const ConfigDelta& eval_settings, const std::string& axis, std::vector<SweepPoint> points);
  // The worker's latest picture (never null once constructed).
  std::shared_ptr<const ExploreSnapshot> latest() const;

 private:
  struct Job {
    uint64_t generation = 0;
    ExploreRequest request;
    std::string sweep_axis;  // non-empty: a sweep
    std::vector<SweepPoint> sweep;
    double requested_at_s = 0;  // steady clock: the result's latency is counted from here
  };
  struct Pass;  // one job's evaluations on the worker (schedule_explore.cpp)
  uint64_t enqueue(Job job);
  void work(JobContext<ExploreSnapshot>& ctx);
  std::optional<Job> wait_for_job();  // nullopt once stopped

  TrainedRun run_;
  PublishObserver on_publish_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::optional<Job> pending_;
  uint64_t generation_ = 0;      // under mu_
  bool stop_ = false;            // under mu_
  std::atomic<uint64_t> newest_{0};
  Handle<ExploreSnapshot> worker_;  // last: stopped and joined before the members it uses go
};

// The eval settings Explore starts from and the latency benchmark uses: per-position loss over
// `sequences` x `positions` (0 = the run's own), no block-use statistics.
ConfigDelta explore_eval_settings(int sequences = 0, int positions = 0);

// Sweeps over one model: N in {0.5, 1, 2, 4} x the training length, or E in {1, 2, 4, ..., 32}
// (the E's the model's memory can hold; a custom schedule becomes uniform, its list no longer fits).
std::vector<SweepPoint> horizon_sweep(const config::RunConfig& run);
std::vector<SweepPoint> blocks_sweep(const config::RunConfig& run);

}  // namespace proteus::engine
