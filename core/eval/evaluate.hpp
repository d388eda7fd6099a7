// The evaluations of SPEC section 6 for one trained model, as configured in cfg.eval, and their
// files in the run directory (per_position.csv/json, niah.csv/json, needle.csv/json, mqar.json,
// occupancy.json).
// `proteus train` runs them after training, `proteus eval RUN` on a saved run; the window and
// `proteus export` read them back with read_eval_report.
#pragma once
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/config/config.hpp"
#include "core/eval/block_use.hpp"
#include "core/eval/mqar_eval.hpp"
#include "core/eval/needle_eval.hpp"
#include "core/eval/niah_eval.hpp"
#include "core/eval/occupancy.hpp"
#include "core/eval/per_position.hpp"
#include "core/model/model.hpp"

namespace proteus::runs {
class RunWriter;
class RunReader;
}  // namespace proteus::runs

namespace proteus::eval {

struct EvalReport {
  std::optional<PerPositionResult> per_position;
  std::optional<NiahResult> niah;
  std::optional<NeedleResult> needle;
  std::optional<MqarResult> mqar;
  std::optional<OccupancyResult> occupancy;
  std::optional<BlockUseResult> block_use;  // with occupancy, for every memory model
};

// phase ("per-position", "niah", ...) and its fraction done; returning false cancels, and the
// report holds what finished.
using EvalProgress = std::function<bool(const std::string& phase, double fraction)>;

// Which of cfg.eval's evaluations to run (each still only when cfg enables it): Explore asks
// for the quick ones at every edit and for NIAH on request.
struct EvalParts {
  bool per_position = true, occupancy = true, block_use = true, mqar = true, needle = true, niah = true;
  static EvalParts all() { return {}; }
};

// For a caller that draws the per-position curve as it arrives (Explore): the result over the
// sequences done so far after every batch but the last, the first batch only first_batch sequences.
// The finished result is the same as without it.
struct ProgressiveCurve {
  PartialResult on_partial;
  int first_batch = 4;
};

EvalReport evaluate(model::Model<float>& model, const config::RunConfig& cfg, const EvalProgress& progress,
                    const EvalParts& parts = EvalParts::all(), const ProgressiveCurve& progressive = {});

void write_eval_report(runs::RunWriter& writer, const EvalReport& report);

// An interval as the result files store it: {"mean", "lo", "hi", "n"}.
nlohmann::json interval_json(const Interval& interval);
nlohmann::json intervals_json(const std::vector<Interval>& intervals);
Interval interval_from_json(const nlohmann::json& j);
std::vector<Interval> intervals_from_json(const nlohmann::json& j);
EvalReport read_eval_report(const runs::RunReader& reader);

}  // namespace proteus::eval
