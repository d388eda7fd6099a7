// The evaluations of math.md section 6 for one trained model, as configured in cfg.eval.
// `proteus train` runs them after training, `proteus eval RUN` on a saved run; their files in the
// run directory are written and read by core/runs/eval_files.hpp.
#pragma once
#include <functional>
#include <optional>
#include <string>

#include "core/config/config.hpp"
#include "core/data/tokenizer.hpp"
#include "core/eval/block_use.hpp"
#include "core/eval/mqar_eval.hpp"
#include "core/eval/needle_eval.hpp"
#include "core/eval/niah_eval.hpp"
#include "core/eval/occupancy.hpp"
#include "core/eval/per_position.hpp"
#include "core/model/model.hpp"

namespace proteus::eval {

using runs::EvalReport;

// phase ("per-position", "niah", ...) and its fraction done; returning false cancels, and the
// report holds what finished.
using EvalProgress = std::function<bool(const std::string& phase, double fraction)>;

// Which of cfg.eval's evaluations to run (each still only when cfg enables it): Explore asks
// for the quick ones at every edit and for NIAH on request.
struct EvalParts {
  bool per_position = true, occupancy = true, block_use = true, mqar = true, needle = true, niah = true;
  static EvalParts all() { return {}; }
  static EvalParts none() { return {false, false, false, false, false, false}; }
};

// For a caller that draws the per-position curve as it arrives (Explore): the result over the
// sequences done so far after every batch but the last, the first batch only first_batch sequences.
// The finished result is the same as without it.
struct ProgressiveCurve {
  PartialResult on_partial;
  int first_batch = 4;
};

// tokenizer: the run's own (data::Tokenizer::for_run): the held-out text is encoded with it, and
// the per-position result states its bytes per token and per word.
EvalReport evaluate(model::Model<float>& model, const config::RunConfig& cfg, const data::Tokenizer& tokenizer,
                    const EvalProgress& progress, const EvalParts& parts = EvalParts::all(),
                    const ProgressiveCurve& progressive = {});


}  // namespace proteus::eval
