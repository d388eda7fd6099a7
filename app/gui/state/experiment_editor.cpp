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

std::vector<int> e_list(const std::vector<nlohmann::json>& es) {
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
  const auto exp = config::Experiment::load(file);
  std::vector<std::string> new_notes;
  RunMode new_mode = RunMode::single;
  std::vector<int> new_sweep = sweep_E;
  std::string new_field = kE;
  std::vector<nlohmann::json> new_values;
  bool new_baseline = true;
  std::vector<config::Variant> new_kept_variants;
  config::SweepGrid new_kept_sweep;
  config::RunConfig new_config;
  int new_seeds = 1;
  if (!exp.seeds.empty()) {
    // The window trains consecutive seeds from the first: other lists are told in a note.
    new_seeds = static_cast<int>(std::min<size_t>(exp.seeds.size(), kMaxSeeds));
    if (!exp.consecutive_seeds() || exp.seeds.size() > kMaxSeeds)
      new_notes.push_back("the window trains consecutive seeds from the first: " + std::to_string(new_seeds) + " seeds");
  }
  if (exp.sweep) {
    const auto& grid = *exp.sweep;
    new_config = exp.base_run();
    new_mode = RunMode::sweep_e;
    new_kept_variants = exp.variants;  // crossed with the grid, as the CLI does
    std::vector<std::string> fields;
    for (const auto& [path, values] : grid)
      if (path != kE) fields.push_back(path);
    if (fields.empty()) {
      new_sweep = grid.contains(kE) ? e_list(grid.at(kE)) : std::vector<int>{};
    } else {
      // The controls edit one field, a common one first; the other axes are kept as given.
      const auto& common = common_sweep_fields();
      const auto edited = std::find_first_of(common.begin(), common.end(), fields.begin(), fields.end());
      new_field = edited != common.end() ? *edited : fields.front();
      for (const auto& [path, values] : grid) {
        if (path == new_field) new_values = values;
        else if (path != kE) new_kept_sweep[path] = values;
      }
      new_baseline = grid.contains(kE);
      if (const auto e = exp.sweep_baseline_E()) new_config.model.mixer.E = *e;
      else if (grid.contains(kE)) new_kept_sweep[kE] = grid.at(kE);  // an E list the field controls cannot write
    }
  } else if (!exp.variants.empty()) {
    // Compare mode when its pair makes exactly the file's runs; else the file's variants as given.
    if (auto proteus = exp.compare_proteus()) {
      new_mode = RunMode::compare;
      new_config = std::move(*proteus);
    } else {
      new_mode = RunMode::variants;
      new_config = exp.base_run();
      new_kept_variants = exp.variants;
    }
  } else {
    new_config = exp.base_run();
  }
  config = std::move(new_config);
  mode = new_mode;
  seeds = new_seeds;
  sweep_E = std::move(new_sweep);
  sweep_field = std::move(new_field);
  sweep_values = std::move(new_values);
  sweep_baseline = new_baseline;
  kept_variants = std::move(new_kept_variants);
  kept_sweep = std::move(new_kept_sweep);
  source = file.string();
  notes = std::move(new_notes);
}

std::optional<PresetFile> ExperimentEditor::open_default(const std::vector<PresetFile>& presets) {
  for (const auto& p : presets) {
    if (p.label != kDefaultPreset) continue;
    try {
      load(p.path);
      if (problem().empty()) return p;
    } catch (const std::exception&) {
      // unreadable: the built-in defaults below
    }
  }
  *this = ExperimentEditor{};
  set_E(16);
  return std::nullopt;
}

config::Experiment ExperimentEditor::to_experiment() const {
  if (mode == RunMode::compare) return config::Experiment::compare_pair(config, seeds);
  auto e = config::Experiment::of_run(config, seeds);
  if (mode == RunMode::variants) {
    e.variants = kept_variants;
  } else if (mode == RunMode::sweep_e) {
    e.variants = kept_variants;
    auto grid = kept_sweep;
    if (sweep_field == kE) {
      grid[kE].assign(sweep_E.begin(), sweep_E.end());
    } else {
      grid[sweep_field] = sweep_values;
      // A baseline at every point, unless the kept grid lists E itself.
      if (sweep_baseline && config.model.mixer.E > 1 && !grid.contains(kE)) grid[kE] = {1, config.model.mixer.E};
    }
    e.sweep = std::move(grid);
    if (config.model.mixer.schedule.type == memory::ScheduleType::custom)  // as runs() does
      e.base["model"]["mixer"]["schedule"] = {{"type", memory::ScheduleType::uniform}};
  }
  return e;
}

void ExperimentEditor::save(const std::filesystem::path& file) {
  common::write_file_atomically(file, to_experiment().to_json().dump(2) + "\n");
  source = file.string();
}

std::vector<config::RunConfig> ExperimentEditor::runs() const {
  // What only the window's modes ask; the field errors of the runs themselves come from the checks below.
  if (mode == RunMode::compare) {
    if (config.model.mixer.type != config::MixerType::memory)
      throw InputError("model.mixer.type", "compare trains a baseline and a Proteus memory model; got '" +
                                               std::string(common::choice_name(config.model.mixer.type)) + "' (use one run)");
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
  if (mode == RunMode::variants && kept_variants.empty())
    throw InputError("variants", "no variants loaded from a file: pick one run, compare or sweep");
  // The edited run is itself a run of single and compare mode: its problems are named by field.
  if (mode == RunMode::single || mode == RunMode::compare) engine::validate_run(config);
  // The runs are what the command line makes of the saved file.
  const auto experiment = to_experiment();
  auto out = mode == RunMode::sweep_e ? experiment.sweep_runs() : experiment.runs();
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

size_t ExperimentEditor::run_count() const { return to_experiment().run_count(); }

std::string ExperimentEditor::cli_command() const { return mode == RunMode::sweep_e ? "sweep" : "train"; }

std::string ExperimentEditor::kept_left_out() const {
  std::string left;
  if (!kept_variants.empty() && mode != RunMode::variants && mode != RunMode::sweep_e)
    left = "the file's " + std::to_string(kept_variants.size()) + " variants";
  if (!kept_sweep.empty() && mode != RunMode::sweep_e) {
    std::string axes;
    for (const auto& [path, values] : kept_sweep) axes += (axes.empty() ? "" : ", ") + path;
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
  if (const auto axis = kept_sweep.find(field); axis != kept_sweep.end()) {
    // Trade places: the edited field joins the kept grid, so the runs stay the same.
    const std::vector<nlohmann::json> values = axis->second;
    kept_sweep.erase(field);
    if (before == kE) kept_sweep[kE].assign(sweep_E.begin(), sweep_E.end());
    else kept_sweep[before] = sweep_values;
    if (field == kE) sweep_E = e_list(values);
    else sweep_values = values;
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
  if (m.E <= 1) return std::nullopt;
  return figures::state_opening_figure(schedule(), m.block_axis, m.heads, m.d_head, m.d_head, config.name);
}

void ExperimentEditor::set_tokenizer(config::Tokenizer tokenizer) {
  auto& d = config.data;
  if (tokenizer == d.tokenizer) return;
  d.tokenizer = tokenizer;
  d.tokenizer_hash.clear();
  const bool bpe = tokenizer == config::Tokenizer::bpe;
  d.vocab = bpe ? 4096 : 0;
  config.model.vocab = bpe ? d.vocab : 256;
}

void ExperimentEditor::set_bpe_vocab(int pieces) {
  config.data.vocab = pieces;
  config.model.vocab = pieces;
}

void ExperimentEditor::add_mlp_block() {
  auto& chain = config.model.mlp.chain;
  if (static_cast<int>(chain.size()) >= config::kMaxMlpChain) return;
  const int64_t every = chain.empty() ? 1 : int64_t{chain.back().every} * 4;
  chain.push_back({static_cast<int>(std::min<int64_t>(every, config::kMaxMlpEvery))});
}

void ExperimentEditor::remove_mlp_block() {
  auto& chain = config.model.mlp.chain;
  if (chain.size() > 1) chain.pop_back();
}

void ExperimentEditor::set_mlp_every(int block, int every) {
  auto& chain = config.model.mlp.chain;
  if (block <= 0 || block >= static_cast<int>(chain.size())) return;  // block 0 updates every step
  chain[block].every = std::clamp(every, 1, config::kMaxMlpEvery);
}

void ExperimentEditor::set_E(int E) {
  auto& m = config.model.mixer;
  const int D = int(config::mixer_state_size(m));
  E = std::clamp(E, 1, std::max(1, D));
  if (m.schedule.type == memory::ScheduleType::custom && !m.schedule.unlock.empty() && E != m.E)
    m.schedule.unlock = memory::respread_unlocks(m.schedule.unlock, E, config::resolved_mixer_horizon(config));
  m.E = E;
}

void ExperimentEditor::set_schedule_type(memory::ScheduleType type) {
  auto& spec = config.model.mixer.schedule;
  if (type == spec.type) return;
  if (type == memory::ScheduleType::custom) {
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
  if (spec.type != memory::ScheduleType::custom) return j == 0 ? 1 : -1;
  return memory::drag_unlock(spec.unlock, j, position, config::resolved_mixer_horizon(config));
}

void ExperimentEditor::set_N(int N) {
  config.model.mixer.N = std::max(0, N);
  memory::clamp_unlocks(config.model.mixer.schedule.unlock, config::resolved_mixer_horizon(config));
}

}  // namespace proteus::gui
