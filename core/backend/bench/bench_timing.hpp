// The one way the benchmark harnesses time work (the kernel table, `bench --op memory-rule`, the
// training step): a stopwatch that waits for the backend's queued work before every reading, so
// a lap is the time of the work and not of its launch, and the median of the laps.
#pragma once
#include <chrono>
#include <vector>

#include "core/backend/ops/backend.hpp"

namespace proteus::backend {

class SyncedStopwatch {
 public:
  explicit SyncedStopwatch(Backend<float>& be) : be_(be) {}
  void start();     // waits for the backend, then starts
  double lap_ms();  // waits for the backend; ms since start() or the previous lap

 private:
  Backend<float>& be_;
  std::chrono::steady_clock::time_point last_;
};

// The median of timed samples (the upper middle for an even count); 0 for none.
double median(std::vector<double> samples);

}  // namespace proteus::backend
