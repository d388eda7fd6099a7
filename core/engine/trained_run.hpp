// A trained run evaluated under another config (ARCHITECTURE seam 7). The schedule only masks
// q, k and the memory state, so a run's weights serve any E, N or schedule: its saved config plus
// a delta of dotted overrides ("model.mixer.N" = 1024) is built into a model that loads the run's
// checkpoint. Explore in the window and `proteus eval RUN --set ... --as NAME` both come here.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config/config.hpp"
#include "core/data/tokenizer.hpp"
#include "core/eval/evaluate.hpp"

namespace proteus::engine {

// Dotted-path overrides in the order given (config::apply_override's paths and values).
using ConfigDelta = std::vector<std::pair<std::string, nlohmann::json>>;

// {"model.mixer.N": 1024, ...}: the delta as delta.json stores it.
nlohmann::json delta_json(const ConfigDelta& delta);

// A saved run as far as evaluating it needs: its config, as saved and parsed, and its checkpoint.
struct TrainedRun {
  std::string run_dir;
  std::string name;
  nlohmann::json config_json;
  config::RunConfig config;
  std::string checkpoint;
  data::Tokenizer tokenizer;  // the run's own (bytes, or its tokenizer.model)
  // Throws InputError naming the directory when it is not a run or has no checkpoint yet, and
  // naming the tokenizer file when a bpe run's is missing or altered.
  static TrainedRun open(const std::string& run_dir);
};

// True for the paths an evaluation may change: the fields the memory schedule owns
// (eval::schedule_owned_field: model.mixer.E, N, schedule, normalize, form, block_axis), eval.*,
// data.text.* (other held-out text), the MQAR load (data.mqar.pairs, layout, alpha: what the model
// is asked, not what it is), device and threads. The weights fix the rest.
bool is_evaluation_path(const std::string& dotted_path);

// The run's config with the delta applied and checked. Throws InputError naming the path for a
// field an evaluation cannot change, or the field a bad value breaks ("model.mixer.E: must be ...").
config::RunConfig edited_config(const TrainedRun& run, const ConfigDelta& delta);

// Builds the model of `cfg` (the run's weights under cfg's schedule), loads the run's checkpoint
// and evaluates the chosen parts. progress may cancel (the report then holds what finished);
// progressive, when set, gets the per-position curve as its sequences arrive.
eval::EvalReport evaluate_trained(const TrainedRun& run, const config::RunConfig& cfg, const eval::EvalParts& parts,
                                  const eval::EvalProgress& progress = {},
                                  const eval::ProgressiveCurve& progressive = {});

}  // namespace proteus::engine
