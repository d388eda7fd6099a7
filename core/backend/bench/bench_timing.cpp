#include "core/backend/bench/bench_timing.hpp"

#include <algorithm>

namespace proteus::backend {

void SyncedStopwatch::start() {
  be_.synchronize();
  last_ = std::chrono::steady_clock::now();
}

double SyncedStopwatch::lap_ms() {
  be_.synchronize();
  const auto now = std::chrono::steady_clock::now();
  const double ms = std::chrono::duration<double, std::milli>(now - last_).count();
  last_ = now;
  return ms;
}

double median(std::vector<double> samples) {
  if (samples.empty()) return 0.0;
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

}  // namespace proteus::backend
