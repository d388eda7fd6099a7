#include "app/gui/state/experiment_editor.hpp"

#include <algorithm>

#include "core/config/config_json.hpp"
#include "core/config/experiment.hpp"
#include "core/config/mixer_schedule.hpp"
#include "core/engine/experiment_job.hpp"
#include "core/figures/run_figures.hpp"
#include "core/figures/state_opening_figure.hpp"
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
    std::error_code entry_ec;  // a symlink loop among the presets is skipped, never thrown at start
    if (it->is_directory(entry_ec) && (rel == "results" || rel == "reference")) {
      it.disable_recursion_pending();  // measured results and reference code, not presets
      continue;
    }
    if (it->is_regular_file(entry_ec) && it->path().extension() == ".json") out.push_back({rel, it->path()});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.label < b.label; });
  return out;
}

namespace {

constexpr const char* kE = "model.mixer.E";

// The experiment's own name: runs() adds the variant, grid and seed suffixes again.
std::string experiment_name(const nlohmann::json& experiment) {
  const auto it = experiment.find("name");
  return it != experiment.end() && it->is_string() ? it->get<std::string>() : config::RunConfig().name;
}

// The run the controls edit: the file less its variants and sweep, at its first seed.
config::RunConfig base_run(const nlohmann::json& experiment) {
  auto base = experiment;
  base.erase("sweep");
  base.erase("variants");
  auto run = config::expand_variants(base).front();
  run.name = experiment_name(experiment);
  run.group.clear();
  return run;
}

// Two lists of runs are the same runs: names and resolved configs, in order.
bool same_runs(const std::vector<config::RunConfig>& a, const std::vector<config::RunConfig>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].name != b[i].name || config::to_json(a[i]) != config::to_json(b[i])) return false;
  return true;
}

// "E = [1, e]" with e > 1: what the controls write for a sweep over another field (a baseline at every point).
bool is_baseline_pair(const nlohmann::json& es) {
  return es.is_array() && es.size() == 2 && es[0].is_number_integer() && es[0].get<int64_t>() == 1 &&
         es[1].is_number_integer() && es[1].get<int64_t>() > 1 && es[1].get<int64_t>() <= (1 << 30);
}

std::vector<int> e_list(const nlohmann::json& es) {
  std::vector<int> out;
  for (const auto& e : es) {
    if (!e.is_number_integer()) throw InputError("sweep.model.mixer.E", "must be a list of integers");
    out.push_back(e.get<int>());
  }
  return out;
}

}  // namespace

const std::vector<std::string>& common_sweep_fields() {
  static const std::vector<std::string> fields = {kE, "model.mixer.d_head", "train.steps", "data.mqar.pairs",
                                                  "data.seq_len", "model.mixer.rule"};
  return fields;
}

void ExperimentEditor::load(const std::filesystem::path& file) {
  const auto exp = config::load_experiment_json(file);
  std::vector<std::string> new_notes;
  RunMode new_mode = RunMode::single;
  std::vector<int> new_sweep = sweep_E;
  std::string new_field = kE;
  std::vector<nlohmann::json> new_values;
  bool new_baseline = true;
  KeptGrid new_kept;
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
    new_config = base_run(exp);
    new_mode = RunMode::sweep_e;
    if (exp.contains("variants")) new_kept.variants = exp["variants"];  // crossed with the grid, as the CLI does
    std::vector<std::string> fields;
    for (const auto& [path, values] : grid.items())
      if (path != kE) fields.push_back(path);
    if (fields.empty()) {
      new_sweep = grid.contains(kE) ? e_list(grid[kE]) : std::vector<int>{};
    } else {
      // The controls edit one field, a common one first; the other axes are kept as given.
      const auto& common = common_sweep_fields();
      const auto edited = std::find_first_of(common.begin(), common.end(), fields.begin(), fields.end());
      new_field = edited != common.end() ? *edited : fields.front();
      for (const auto& [path, values] : grid.items()) {
        if (path == new_field && values.is_array()) new_values.assign(values.begin(), values.end());
        else if (path != kE) new_kept.sweep[path] = values;
      }
      new_baseline = grid.contains(kE);
      if (grid.contains(kE) && is_baseline_pair(grid[kE])) new_config.model.mixer.E = grid[kE][1].get<int>();
      else if (grid.contains(kE)) new_kept.sweep[kE] = grid[kE];  // an E list the field controls cannot write
    }
  } else if (exp.contains("variants")) {
    const auto runs = config::expand_variants(exp);
    // Compare mode when its pair makes exactly the file's runs; else the file's variants as given.
    ExperimentEditor pair;
    pair.mode = RunMode::compare;
    pair.seeds = new_seeds;
    pair.config = *std::max_element(runs.begin(), runs.end(), [](const auto& a, const auto& b) {
      return a.model.mixer.E < b.model.mixer.E;
    });
    pair.config.name = experiment_name(exp);
    pair.config.group.clear();
    if (pair.config.model.mixer.E > 1 && same_runs(config::expand_variants(pair.to_experiment_json()), runs)) {
      new_mode = RunMode::compare;
      new_config = std::move(pair.config);
    } else {
      new_mode = RunMode::variants;
      new_config = base_run(exp);
      new_kept.variants = exp["variants"];
    }
  } else {
    new_config = base_run(exp);
  }
  config = std::move(new_config);
  mode = new_mode;
  seeds = new_seeds;
  sweep_E = std::move(new_sweep);
  sweep_field = std::move(new_field);
  sweep_values = std::move(new_values);
  sweep_baseline = new_baseline;
  kept = std::move(new_kept);
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
  } else if (mode == RunMode::variants) {
    if (kept.has_variants()) j["variants"] = kept.variants;
  } else if (mode == RunMode::sweep_e) {
    if (kept.has_variants()) j["variants"] = kept.variants;
    auto grid = kept.sweep;
    if (sweep_field == kE) {
      grid[kE] = sweep_E;
    } else {
      grid[sweep_field] = sweep_values;
      // A baseline at every point, unless the kept grid lists E itself.
      if (sweep_baseline && config.model.mixer.E > 1 && !grid.contains(kE)) grid[kE] = {1, config.model.mixer.E};
    }
    j["sweep"] = std::move(grid);
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
  if (mode == RunMode::variants && !kept.has_variants())
    throw InputError("variants", "no variants loaded from a file: pick one run, compare or sweep");
  // The edited run is itself a run of single and compare mode: its problems are named by field.
  if (mode == RunMode::single || mode == RunMode::compare) engine::validate_run(config);
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

size_t ExperimentEditor::run_count() const {
  const auto j = to_experiment_json();
  size_t n = static_cast<size_t>(std::max(1, seeds));
  if (const auto v = j.find("variants"); v != j.end() && v->is_array()) n *= v->size();
  if (const auto grid = j.find("sweep"); grid != j.end() && grid->is_object())
    for (const auto& [path, values] : grid->items()) n *= values.is_array() ? values.size() : 1;
  return n;
}

std::string ExperimentEditor::cli_command() const { return mode == RunMode::sweep_e ? "sweep" : "train"; }

std::string ExperimentEditor::kept_left_out() const {
  std::string left;
  if (kept.has_variants() && mode != RunMode::variants && mode != RunMode::sweep_e)
    left = "the file's " + std::to_string(kept.variant_count()) + " variants";
  if (!kept.sweep.empty() && mode != RunMode::sweep_e) {
    std::string axes;
    for (const auto& [path, values] : kept.sweep.items()) axes += (axes.empty() ? "" : ", ") + path;
    left += (left.empty() ? "the file's sweep over " : " and its sweep over ") + axes;
  }
  if (left.empty()) return "";
  const char* mode_name = mode == RunMode::single ? "one run" : mode == RunMode::compare ? "compare" : "the file's variants";
  return std::string(mode_name) + " leaves out " + left + " (sweep trains them all)";
}

std::string ExperimentEditor::pick_sweep_field(const std::string& field) {
  if (field == sweep_field) return "";
  const std::string before = sweep_field;
  std::string note;
  if (const auto axis = kept.sweep.find(field); axis != kept.sweep.end()) {
    // Trade places: the edited field joins the kept grid, so the runs stay the same.
    const nlohmann::json values = *axis;
    kept.sweep.erase(field);
    if (before == kE) kept.sweep[kE] = sweep_E;
    else kept.sweep[before] = sweep_values;
    if (field == kE) sweep_E = e_list(values);
    else sweep_values.assign(values.begin(), values.end());
    note = field + " is edited here now; " + before + " joins the file's grid (read-only): the same runs";
  } else {
    if (before != kE && !sweep_values.empty()) note = "the sweep over " + before + " is left out: " + field + " is swept now";
    if (field != kE) sweep_values.clear();
  }
  sweep_field = field;
  return note;
}

memory::Schedule ExperimentEditor::schedule() const {
  return config::schedule_from_config(config);
}

figures::Figure ExperimentEditor::activation_figure() const {
  const auto s = schedule();
  const int64_t eval_len = config.eval.per_position.seq_len > 0 ? config.eval.per_position.seq_len : 2 * config.data.seq_len;
  return figures::activation_map_figure(s, std::max<int64_t>(2 * s.N(), eval_len), config.name);
}

std::optional<figures::Figure> ExperimentEditor::state_opening_figure() const {
  const auto& m = config.model.mixer;
  const auto axis = memory::block_axis_from_name(m.block_axis);
  if (m.E <= 1 || !axis) return std::nullopt;
  return figures::state_opening_figure(schedule(), *axis, m.heads, m.d_head, m.d_head, config.name);
}

void ExperimentEditor::set_tokenizer(const std::string& name) {
  auto& d = config.data;
  if (name == d.tokenizer) return;
  d.tokenizer = name;
  d.tokenizer_hash.clear();
  d.vocab = name == "bpe" ? 4096 : 0;
  config.model.vocab = name == "bpe" ? d.vocab : 256;
}

void ExperimentEditor::set_bpe_vocab(int pieces) {
  config.data.vocab = pieces;
  config.model.vocab = pieces;
}

void ExperimentEditor::set_E(int E) {
  auto& m = config.model.mixer;
  const int D = int(config::mixer_state_size(m));
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
      u = memory::Schedule::uniform(config::mixer_state_size(config.model.mixer), config.model.mixer.E,
                                    config::resolved_mixer_horizon(config))
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
