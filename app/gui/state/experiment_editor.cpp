#include "app/gui/state/experiment_editor.hpp"

#include <algorithm>

#include "core/config/config_json.hpp"
#include "core/config/experiment.hpp"
#include "core/engine/experiment_job.hpp"
#include "core/figures/run_figures.hpp"
#include "core/common/input_error.hpp"
#include "core/memory/schedule_edit.hpp"
#include "core/common/atomic_file.hpp"

namespace proteus::gui {

std::vector<PresetFile> find_presets(const std::filesystem::path& experiments_dir) {
  std::vector<PresetFile> out;
  std::error_code ec;
  if (!std::filesystem::is_directory(experiments_dir, ec)) return out;
  for (auto it = std::filesystem::recursive_directory_iterator(experiments_dir, ec);
       it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    const auto rel = std::filesystem::relative(it->path(), experiments_dir, ec).generic_string();
    if (it->is_directory() && (rel == "results" || rel == "reference")) {
      it.disable_recursion_pending();  // measured results and reference code, not presets
      continue;
    }
    if (it->is_regular_file() && it->path().extension() == ".json") out.push_back({rel, it->path()});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.label < b.label; });
  return out;
}

void ExperimentEditor::load(const std::filesystem::path& file) {
  const auto exp = config::load_experiment_json(file);
  std::vector<std::string> new_notes;
  RunMode new_mode = RunMode::single;
  std::vector<int> new_sweep = sweep_E;
  std::string new_field = "model.mixer.E";
  std::vector<nlohmann::json> new_values;
  config::RunConfig new_config;
  int new_seeds = 1;
  if (const auto it = exp.find("seeds"); it != exp.end() && it->is_array() && !it->empty()) {
    // The window trains consecutive seeds from the first: other lists are told in a note.
    new_seeds = static_cast<int>(std::min<size_t>(it->size(), kMaxSeeds));
    bool consecutive = (*it)[0].is_number_unsigned();
    for (size_t i = 1; consecutive && i < it->size(); ++i)
      consecutive = (*it)[i].is_number_unsigned() && (*it)[i].get<uint64_t>() == (*it)[0].get<uint64_t>() + i;
    if (!consecutive || it->size() > kMaxSeeds)
      new_notes.push_back("the window trains consecutive seeds from the first: " + std::to_string(new_seeds) + " seeds");
  }
  if (exp.contains("sweep") && exp["sweep"].is_object()) {
    const auto& grid = exp["sweep"];
    auto base = exp;
    base.erase("sweep");
    base.erase("variants");
    new_config = config::expand_variants(base).front();
    new_config.name = exp.value("name", new_config.name);  // runs() adds the seed suffix again
    if (grid.contains("model.mixer.E")) {
      new_mode = RunMode::sweep_e;
      new_sweep.clear();
      for (const auto& e : grid["model.mixer.E"]) {
        if (!e.is_number_integer()) throw InputError("sweep.model.mixer.E", "must be a list of integers");
        new_sweep.push_back(e.get<int>());
      }
    }
    for (const auto& [path, values] : grid.items()) {
      if (path == "model.mixer.E") continue;
      if (new_field == "model.mixer.E" && values.is_array() && !values.empty()) {
        // The first other field is the one the window sweeps; E (if listed) is its largest gated value.
        new_mode = RunMode::sweep_e;
        new_field = path;
        new_values.assign(values.begin(), values.end());
        if (!new_sweep.empty() && grid.contains("model.mixer.E"))
          new_config.model.mixer.E = *std::max_element(new_sweep.begin(), new_sweep.end());
        continue;
      }
      new_notes.push_back("the window sweeps one field beside E: sweep over " + path +
                          " left out (run it with 'proteus sweep')");
    }
  } else {
    const auto runs = config::expand_variants(exp);
    const bool has_baseline =
        runs.size() > 1 && std::any_of(runs.begin(), runs.end(), [](const auto& r) { return r.model.mixer.E == 1; });
    if (has_baseline) {
      new_mode = RunMode::compare;
      new_config = *std::max_element(runs.begin(), runs.end(), [](const auto& a, const auto& b) {
        return a.model.mixer.E < b.model.mixer.E;
      });
      // The variant's name suffix is added again by runs(): keep the experiment's own name.
      new_config.name = exp.value("name", new_config.name);
      if (runs.size() > 2 * static_cast<size_t>(new_seeds))
        new_notes.push_back("the window compares two runs: the baseline and the variant with the largest E");
    } else {
      new_config = runs.front();
      if (runs.size() > static_cast<size_t>(new_seeds))
        new_notes.push_back("only the first of " + std::to_string(runs.size() / new_seeds) + " variants loaded");
    }
  }
  new_config.group.clear();  // runs() names the groups again
  config = std::move(new_config);
  mode = new_mode;
  seeds = new_seeds;
  sweep_E = std::move(new_sweep);
  sweep_field = std::move(new_field);
  sweep_values = std::move(new_values);
  source = file.string();
  notes = std::move(new_notes);
}

nlohmann::json ExperimentEditor::to_experiment_json() const {
  auto j = config::to_json(config, config::JsonForm::as_given);
  j.erase("group");
  if (seeds > 1) {
    j["seeds"] = nlohmann::json::array();
    for (int i = 0; i < seeds; ++i) j["seeds"].push_back(config.seed + static_cast<uint64_t>(i));
  }
  const bool custom = config.model.mixer.schedule.type == "custom";
  if (mode == RunMode::compare) {
    // A custom unlock list fits one E only: the baseline's (E = 1) schedule goes back to the default.
    nlohmann::json base_set = {{"model.mixer.E", 1}};
    if (custom) base_set["model.mixer.schedule"] = nullptr;
    j["variants"] = nlohmann::json::array(
        {{{"name", "baseline"}, {"set", base_set}},
         {{"name", "proteus-e" + std::to_string(config.model.mixer.E)}, {"set", {{"model.mixer.E", config.model.mixer.E}}}}});
  } else if (mode == RunMode::sweep_e && sweep_field != "model.mixer.E") {
    j["sweep"] = {{sweep_field, sweep_values}};
    if (config.model.mixer.E > 1) j["sweep"]["model.mixer.E"] = {1, config.model.mixer.E};  // a baseline at every point
    if (custom) j["model"]["mixer"]["schedule"] = {{"type", "uniform"}};  // as runs() does
  } else if (mode == RunMode::sweep_e) {
    j["sweep"] = {{"model.mixer.E", sweep_E}};
    if (custom) j["model"]["mixer"]["schedule"] = {{"type", "uniform"}};  // as runs() does
  }
  return j;
}

void ExperimentEditor::save(const std::filesystem::path& file) {
  common::write_file_atomically(file, to_experiment_json().dump(2) + "\n");
  source = file.string();
}

std::vector<config::RunConfig> ExperimentEditor::runs() const {
  // What only the window's modes ask; the field errors of the runs themselves come from the checks below.
  if (mode == RunMode::compare) {
    if (config.model.mixer.type != "memory")
      throw InputError("model.mixer.type", "compare trains a baseline and a Proteus memory model; got '" +
                                               config.model.mixer.type + "' (use one run)");
    if (config.model.mixer.E <= 1)
      throw InputError("model.mixer.E", "compare needs E > 1 for the Proteus run (the baseline is E = 1)");
  }
  const bool e_sweep = sweep_field == "model.mixer.E";
  if (mode == RunMode::sweep_e && e_sweep && sweep_E.empty()) throw InputError("sweep.model.mixer.E", "needs at least one E");
  if (mode == RunMode::sweep_e && !e_sweep) {
    const auto paths = config::override_paths();
    if (std::find(paths.begin(), paths.end(), sweep_field) == paths.end())
      throw InputError("sweep", "'" + sweep_field + "' is not a config field (pick one from the list)");
    if (sweep_values.empty()) throw InputError("sweep." + sweep_field, "needs at least one value");
  }
  if (seeds < 1 || seeds > kMaxSeeds)
    throw InputError("seeds", "must be in [1, " + std::to_string(kMaxSeeds) + "], got " + std::to_string(seeds));
  // The edited run is itself a run of single and compare mode: its problems are named by field.
  if (mode != RunMode::sweep_e) engine::validate_run(config);
  // The runs are what the command line makes of the saved file.
  const auto experiment = to_experiment_json();
  auto out = mode == RunMode::sweep_e ? config::expand_sweep(experiment) : config::expand_variants(experiment);
  for (const auto& run : out) {
    try {
      engine::validate_run(run);
    } catch (const InputError& e) {
      if (mode == RunMode::sweep_e) throw InputError(e.field(), e.reason() + " (sweep run " + run.name + ")");
      throw;
    }
  }
  return out;
}

std::string ExperimentEditor::problem() const {
  try {
    runs();
    return "";
  } catch (const std::exception& e) {
    return e.what();
  }
}

memory::Schedule ExperimentEditor::schedule() const {
  const auto& m = config.model.mixer;
  const int64_t D = int64_t(m.d_head) * m.d_head;
  return memory::Schedule::make(m.schedule, D, m.E, config::resolved_mixer_horizon(config));
}

figures::Figure ExperimentEditor::activation_figure() const {
  const auto s = schedule();
  const int64_t eval_len = config.eval.per_position.seq_len > 0 ? config.eval.per_position.seq_len : 2 * config.data.seq_len;
  return figures::activation_map_figure(s, std::max<int64_t>(2 * s.N(), eval_len), config.name);
}

void ExperimentEditor::set_E(int E) {
  auto& m = config.model.mixer;
  const int D = m.d_head * m.d_head;
  E = std::clamp(E, 1, std::max(1, D));
  if (m.schedule.type == "custom" && !m.schedule.unlock.empty() && E != m.E)
    m.schedule.unlock = memory::respread_unlocks(m.schedule.unlock, E, config::resolved_mixer_horizon(config));
  m.E = E;
}

void ExperimentEditor::set_schedule_type(const std::string& type) {
  auto& spec = config.model.mixer.schedule;
  if (type == spec.type) return;
  if (type == "custom") {
    std::vector<int64_t> u;
    try {
      u = schedule().unlock();
    } catch (const std::exception&) {
      u = memory::Schedule::uniform(int64_t(config.model.mixer.d_head) * config.model.mixer.d_head,
                                    config.model.mixer.E, config::resolved_mixer_horizon(config))
              .unlock();
    }
    spec.unlock = std::move(u);
  }
  spec.type = type;
}

int64_t ExperimentEditor::drag_unlock(int j, int64_t position) {
  auto& spec = config.model.mixer.schedule;
  if (spec.type != "custom") return j == 0 ? 1 : -1;
  return memory::drag_unlock(spec.unlock, j, position, config::resolved_mixer_horizon(config));
}

void ExperimentEditor::set_N(int N) {
  config.model.mixer.N = std::max(0, N);
  memory::clamp_unlocks(config.model.mixer.schedule.unlock, config::resolved_mixer_horizon(config));
}

}  // namespace proteus::gui
