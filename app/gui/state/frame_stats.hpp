// Frame times of the render loop, kept to report p50 / p99 while training runs (the window must
// not stutter while the worker trains): the interval from one frame's start to the next's (what
// a user sees), the frame's own work (building the UI, drawing, swapping), and of that the UI's
// share (panels and plots, without the OpenGL rasterisation).
#pragma once
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

namespace proteus::gui {

class FrameStats {
 public:
  // `scanning`: the runs browser's worker is reading the runs folder (and nothing trains).
  void add(double interval_ms, double work_ms, double ui_ms, bool training, bool scanning = false) {
    auto [at, work, ui] = training ? std::tie(training_, training_work_, training_ui_)
                           : scanning ? std::tie(scanning_, scanning_work_, scanning_ui_)
                                      : std::tie(idle_, idle_work_, idle_ui_);
    at.push_back(interval_ms);
    work.push_back(work_ms);
    ui.push_back(ui_ms);
  }
  // The q-quantile (0..1) of the samples, nearest rank; NaN when there are none.
  static double quantile(std::vector<double> samples, double q);
  // {"training": {"frames", "p50_ms", "p99_ms", "max_ms", "work_p50_ms", "work_p99_ms", "ui_p50_ms",
  //  "ui_p99_ms"}, "scanning": {...}, "idle": {...}}
  nlohmann::json summary() const;
  const std::vector<double>& training() const { return training_; }

 private:
  std::vector<double> training_, idle_, training_work_, idle_work_, training_ui_, idle_ui_;
  std::vector<double> scanning_, scanning_work_, scanning_ui_;
};

}  // namespace proteus::gui
