// One line of metrics.jsonl as a type: the trainer writes it, the engine (a resumed run's history)
// and the figures (loss curves) read it, all through these two functions, so the file's fields
// are named in one place:
//   {"step": 10, "loss": 4.1, "lr": 0.003, "grad_norm": 0.9, "tokens_per_s": 5000, "elapsed_s": 12.5,
//    "val_bpb": 2.4}   (val_bpb only at evaluation steps)
#pragma once
#include <cstdint>
#include <limits>
#include <optional>

#include <nlohmann/json.hpp>

namespace proteus::runs {

struct MetricsRecord {
  static constexpr double kAbsent = std::numeric_limits<double>::quiet_NaN();
  int64_t step = 0;
  double loss = kAbsent;          // mean next-token NLL of the step's batch, nats
  double lr = kAbsent;
  double grad_norm = kAbsent;     // before clipping
  double tokens_per_s = kAbsent;
  double elapsed_s = kAbsent;
  double val_bpb = kAbsent;       // held-out bits per byte, at evaluation steps
};

// The line's object; absent (NaN) fields are left out.
nlohmann::json to_json(const MetricsRecord& r);

// The record of a line, or nullopt when it has no step (a finite integral number). A field that is
// missing, not a number or not finite reads as absent, so one bad value hides only itself.
std::optional<MetricsRecord> metrics_record_from_json(const nlohmann::json& line);

}  // namespace proteus::runs
