// The one check on the way to training (run_validation.hpp), moved here from the engine so the
// trainer, the engine, the CLI and the window share it.
#include "core/train/run_validation.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "core/common/file_read.hpp"
#include "core/common/input_error.hpp"
#include "core/common/json_fields.hpp"
#include "core/config/config_json.hpp"
#include "core/config/flat_fields.hpp"
#include "core/data/batch_source.hpp"
#include "core/data/needle.hpp"
#include "core/data/niah.hpp"
#include "core/runs/run_dir.hpp"

namespace proteus::train {
namespace {

// The run's config.json is read back by every reader of the run (resume, eval, export, the
// window) within kRunFileLimits: a config too large for them is refused before anything runs,
// naming the field that takes the most room.
void check_config_size(const config::RunConfig& cfg) {
  const size_t size = runs::config_file_text(config::to_json(cfg)).size();
  if (size <= runs::kRunFileLimits.max_bytes) return;
  std::string largest = "name";
  size_t most = 0;
  for (const auto& [path, value] : config::flat_fields(cfg))
    if (const size_t n = value.dump(2).size(); n > most) most = n, largest = path;
  throw InputError(largest, "makes the run's config.json " + common::format_bytes(size) + ", over the limit of " +
                                common::format_bytes(runs::kRunFileLimits.max_bytes) +
                                " within which every reader of a run reads it (the same as a config file's)");
}

// Every NIAH and token-needle evaluation length holds its task's prompt (before training, not after).
void check_eval_lengths(const config::RunConfig& cfg) {
  const auto& ne = cfg.eval.needle;
  bool needle_in_mix = false;
  for (const auto& m : cfg.data.mix) needle_in_mix |= m.task == "needle" && m.weight > 0;
  if (ne.enabled && needle_in_mix) {
    const int L = cfg.data.seq_len;
    const auto lengths = ne.lengths.empty() ? std::vector<int>{std::max(1, L / 2), L, 2 * L} : ne.lengths;
    for (const auto& form : ne.forms.empty() ? cfg.data.needle.forms : ne.forms)
      for (size_t i = 0; i < lengths.size(); ++i)
        if (lengths[i] < data::needle::min_length(form, cfg.data.needle.distractors))
          throw InputError(ne.lengths.empty() ? "eval.needle.lengths" : "eval.needle.lengths[" + std::to_string(i) + "]",
                           "a " + form + " needle prompt needs at least " +
                               std::to_string(data::needle::min_length(form, cfg.data.needle.distractors)) +
                               " tokens, got " + std::to_string(lengths[i]) +
                               (ne.lengths.empty() ? " (the default half of data.seq_len)" : ""));
  }
  const auto& e = cfg.eval.niah;
  bool niah_in_mix = false;
  for (const auto& m : cfg.data.mix) niah_in_mix |= m.task == "niah" && m.weight > 0;
  if (!e.enabled || !niah_in_mix) return;
  const auto tasks = e.tasks.empty() ? cfg.data.niah.tasks : e.tasks;
  for (size_t i = 0; i < e.tasks.size(); ++i)
    if (!data::niah::is_task(e.tasks[i]))
      throw InputError("eval.niah.tasks[" + std::to_string(i) + "]", "unknown task " + common::quoted(e.tasks[i]));
  const int L = cfg.data.seq_len;
  const auto lengths = e.lengths.empty() ? std::vector<int>{L / 2, L, 2 * L} : e.lengths;
  for (const auto& task : tasks) {
    const int need = data::niah::min_total_length(task, cfg.data.niah.question);
    for (size_t i = 0; i < lengths.size(); ++i)
      if (lengths[i] < need)
        throw InputError(e.lengths.empty() ? "eval.niah.lengths" : "eval.niah.lengths[" + std::to_string(i) + "]",
                         "a " + task + " prompt (" + cfg.data.niah.question + " question) needs at least " +
                             std::to_string(need) + " bytes, got " + std::to_string(lengths[i]) +
                             (e.lengths.empty() ? " (the default half of data.seq_len)" : ""));
  }
}

}  // namespace

void ValidRun::share_threads(int parts, int cores) {
  if (parts <= 1) return;
  const int all = config_.threads > 0 ? config_.threads : std::max(1, cores);
  config_.threads = std::max(1, all / parts);
}

ValidRun validate_run(const config::RunConfig& cfg) {
  config::validate(cfg);
  check_config_size(cfg);
  data::validate(cfg.data);  // the corpus's files too: a missing, empty or too short one is refused here
  check_eval_lengths(cfg);
  return ValidRun(cfg);
}

std::vector<ValidRun> validate_runs(const std::vector<config::RunConfig>& runs) {
  std::vector<ValidRun> valid;
  for (const auto& run : runs) try {
      valid.push_back(validate_run(run));
    } catch (const InputError& e) {
      if (runs.size() < 2) throw;
      throw InputError(e.field(), e.reason() + " (in run " + common::quoted(run.name, common::kShownPath) + ")");
    }
  return valid;
}

}  // namespace proteus::train
