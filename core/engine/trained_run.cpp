#include "core/engine/trained_run.hpp"

#include <filesystem>

#include "core/backend/registry.hpp"
#include "core/model/model_backend.hpp"
#include "core/common/input_error.hpp"
#include "core/config/config_json.hpp"
#include "core/config/experiment.hpp"
#include "core/eval/baseline.hpp"
#include "core/runs/run_dir.hpp"
#include "core/train/checkpoint.hpp"

namespace proteus::engine {

nlohmann::json delta_json(const ConfigDelta& delta) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [path, value] : delta) j[path] = value;
  return j;
}

TrainedRun TrainedRun::open(const std::string& run_dir) {
  const auto reader = runs::RunReader::open(run_dir);
  TrainedRun r;
  r.run_dir = run_dir;
  r.name = reader.name();
  r.config_json = reader.config();
  r.config = config::parse_run_config(r.config_json);
  r.checkpoint = (std::filesystem::path(run_dir) / train::kCheckpointFile).string();
  if (!std::filesystem::exists(r.checkpoint)) throw InputError(run_dir, "has no checkpoint to evaluate");
  r.tokenizer = data::Tokenizer::for_run(run_dir, r.config.data);
  return r;
}

bool is_evaluation_path(const std::string& p) {
  const auto under = [&](const std::string& prefix) { return p == prefix || p.starts_with(prefix + "."); };
  return eval::schedule_owned_field(p) || under("eval") || under("data.text") || p == "data.mqar.pairs" ||
         p == "data.mqar.layout" || p == "data.mqar.alpha" || p == "device" || p == "threads";
}

config::RunConfig edited_config(const TrainedRun& run, const ConfigDelta& delta) {
  auto j = run.config_json;
  for (const auto& [path, value] : delta) {
    if (!is_evaluation_path(path))
      throw InputError(common::clipped(path), "an evaluation of a trained run can change only the schedule (model.mixer.E, "
                             "model.mixer.N, model.mixer.schedule, model.mixer.normalize, model.mixer.form, "
                             "model.mixer.block_axis), eval.*, data.text.*, "
                             "the MQAR load (data.mqar.pairs, layout, alpha), "
                             "device and threads: the weights fix the rest");
    j = config::apply_override(std::move(j), path, value);
  }
  return config::parse_run_config(j);
}

eval::EvalReport evaluate_trained(const TrainedRun& run, const config::RunConfig& cfg, const eval::EvalParts& parts,
                                  const eval::EvalProgress& progress, const eval::ProgressiveCurve& progressive) {
  auto be = model::make_model_backend(cfg);
  model::Model<float> model(cfg.model, config::resolved_mixer_horizon(cfg), *be.backend, cfg.seed);
  train::load_checkpoint(run.checkpoint, model, nullptr);
  return eval::evaluate(model, cfg, run.tokenizer, progress, parts, progressive);
}

}  // namespace proteus::engine
