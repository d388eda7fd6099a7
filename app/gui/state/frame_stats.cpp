#include "app/gui/state/frame_stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace proteus::gui {

double FrameStats::quantile(std::vector<double> samples, double q) {
  if (samples.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(samples.begin(), samples.end());
  const double rank = std::ceil(std::clamp(q, 0.0, 1.0) * samples.size());
  const size_t i = rank < 1 ? 0 : static_cast<size_t>(rank) - 1;
  return samples[std::min(i, samples.size() - 1)];
}

nlohmann::json FrameStats::summary() const {
  auto one = [](const std::vector<double>& s, const std::vector<double>& work, const std::vector<double>& ui) {
    nlohmann::json j = {{"frames", s.size()}};
    if (!s.empty()) {
      j["p50_ms"] = quantile(s, 0.5);
      j["p99_ms"] = quantile(s, 0.99);
      j["max_ms"] = *std::max_element(s.begin(), s.end());
      j["work_p50_ms"] = quantile(work, 0.5);
      j["work_p99_ms"] = quantile(work, 0.99);
      j["ui_p50_ms"] = quantile(ui, 0.5);
      j["ui_p99_ms"] = quantile(ui, 0.99);
    }
    return j;
  };
  return {{"training", one(training_, training_work_, training_ui_)},
          {"scanning", one(scanning_, scanning_work_, scanning_ui_)},
          {"idle", one(idle_, idle_work_, idle_ui_)}};
}

}  // namespace proteus::gui
