#include "app/gui/state/experiment_editor.hpp"

#include <algorithm>

#include "core/config/config_json.hpp"
#include "core/config/experiment.hpp"
#include "core/config/mixer_schedule.hpp"
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
  ExperimentEditor loaded;  // built whole, then taken: a refused file leaves this editor as it was
  loaded.sweep_E_ = sweep_E_;  // the E list the controls had, unless the file sweeps E
  config::RunConfig base;
  if (!exp.seeds.empty()) {
    // The window trains consecutive seeds from the first: other lists are told in a note.
    loaded.seeds_ = static_cast<int>(std::min<size_t>(exp.seeds.size(), kMaxSeeds));
    if (!exp.consecutive_seeds() || exp.seeds.size() > kMaxSeeds)
      loaded.notes.push_back("the window trains consecutive seeds from the first: " + std::to_string(loaded.seeds_) + " seeds");
  }
  if (exp.sweep) {
    const auto& grid = *exp.sweep;
    base = exp.base_run();
    loaded.mode_ = RunMode::sweep_e;
    loaded.kept_variants_ = exp.variants;  // crossed with the grid, as the CLI does
    std::vector<std::string> fields;
    for (const auto& [path, values] : grid)
      if (path != kE) fields.push_back(path);
    if (fields.empty()) {
      loaded.sweep_E_ = grid.contains(kE) ? e_list(grid.at(kE)) : std::vector<int>{};
    } else {
      // The controls edit one field, a common one first; the other axes are kept as given.
      const auto& common = common_sweep_fields();
      const auto edited = std::find_first_of(common.begin(), common.end(), fields.begin(), fields.end());
      loaded.sweep_field_ = edited != common.end() ? *edited : fields.front();
      for (const auto& [path, values] : grid) {
        if (path == loaded.sweep_field_) loaded.sweep_values_ = values;
        else if (path != kE) loaded.kept_sweep_[path] = values;
      }
      loaded.sweep_baseline_ = grid.contains(kE);
      if (const auto e = exp.sweep_baseline_E()) base.model.mixer.E = *e;
      else if (grid.contains(kE)) loaded.kept_sweep_[kE] = grid.at(kE);  // an E list the field controls cannot write
    }
  } else if (!exp.variants.empty()) {
    // Compare mode when its pair makes exactly the file's runs; else the file's variants as given.
    if (auto proteus = exp.compare_proteus()) {
      loaded.mode_ = RunMode::compare;
      base = std::move(*proteus);
    } else {
      loaded.mode_ = RunMode::variants;
      base = exp.base_run();
      loaded.kept_variants_ = exp.variants;
    }
  } else {
    loaded.mode_ = RunMode::single;
    base = exp.base_run();
  }
  loaded.source = file.string();
  loaded.set_config(std::move(base));
  *this = std::move(loaded);
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

void ExperimentEditor::commit() {
  auto& schedule = config_.model.mixer.schedule;
  if (mode_ == RunMode::sweep_e && schedule.type == memory::ScheduleType::custom) schedule = {};
  experiment_.set_base_config(config_);
  experiment_.variants.clear();
  experiment_.sweep.reset();
  if (mode_ == RunMode::compare) experiment_.variants = config::Experiment::compare_variants(config_);
  if (mode_ == RunMode::variants || mode_ == RunMode::sweep_e) experiment_.variants = kept_variants_;
  if (mode_ == RunMode::sweep_e) {
    auto grid = kept_sweep_;
    if (sweep_field_ == kE) {
      grid[kE].assign(sweep_E_.begin(), sweep_E_.end());
    } else {
      grid[sweep_field_] = sweep_values_;
      // A baseline at every point, unless the kept grid lists E itself.
      if (sweep_baseline_ && config_.model.mixer.E > 1 && !grid.contains(kE)) grid[kE].assign({1, config_.model.mixer.E});
    }
    experiment_.sweep = std::move(grid);
  }
  experiment_.set_seed_count(seeds_);
}

void ExperimentEditor::set_config(config::RunConfig config) {
  config.group.clear();
  config_ = std::move(config);
  commit();
}

void ExperimentEditor::set_mode(RunMode mode) {
  mode_ = mode;
  commit();
}

void ExperimentEditor::set_sweep_E(std::vector<int> es) {
  sweep_E_ = std::move(es);
  commit();
}

void ExperimentEditor::set_sweep_values(std::vector<nlohmann::json> values) {
  sweep_values_ = std::move(values);
  commit();
}

void ExperimentEditor::set_sweep_baseline(bool baseline) {
  sweep_baseline_ = baseline;
  commit();
}

void ExperimentEditor::set_seeds(int seeds) {
  seeds_ = seeds;
  commit();
}

void ExperimentEditor::leave_out_kept() {
  kept_variants_.clear();
  kept_sweep_.clear();
  if (mode_ == RunMode::variants) mode_ = RunMode::single;  // no variants left to train
  commit();
}

void ExperimentEditor::save(const std::filesystem::path& file) {
  common::write_file_atomically(file, experiment_.to_json().dump(2) + "\n");
  source = file.string();
}

std::vector<train::ValidRun> ExperimentEditor::valid_runs() const {
  // What only the window's modes ask; the field errors of the runs themselves come from the checks below.
  if (mode_ == RunMode::compare) {
    if (config_.model.mixer.type != config::MixerType::memory)
      throw InputError("model.mixer.type", "compare trains a baseline and a Proteus memory model; got '" +
                                               std::string(common::choice_name(config_.model.mixer.type)) + "' (use one run)");
    if (config_.model.mixer.E <= 1)
      throw InputError("model.mixer.E", "compare needs E > 1 for the Proteus run (the baseline is E = 1)");
  }
  const bool e_sweep = sweep_field_ == kE;
  if (mode_ == RunMode::sweep_e && e_sweep && sweep_E_.empty()) throw InputError("sweep.model.mixer.E", "needs at least one E");
  if (mode_ == RunMode::sweep_e && !e_sweep) {
    const auto paths = config::override_paths();
    if (std::find(paths.begin(), paths.end(), sweep_field_) == paths.end())
      throw InputError("sweep", "'" + sweep_field_ + "' is not a config field (pick one from the list)");
    if (sweep_values_.empty()) throw InputError("sweep." + sweep_field_, "needs at least one value");
  }
  if (seeds_ < 1 || seeds_ > kMaxSeeds)
    throw InputError("seeds", "must be in [1, " + std::to_string(kMaxSeeds) + "], got " + std::to_string(seeds_));
  if (mode_ == RunMode::variants && kept_variants_.empty())
    throw InputError("variants", "no variants loaded from a file: pick one run, compare or sweep");
  // The runs the command line makes of the saved file, and its one check of them.
  return train::validate_runs(mode_ == RunMode::sweep_e ? experiment_.sweep_runs() : experiment_.runs());
}

std::vector<config::RunConfig> ExperimentEditor::runs() const {
  std::vector<config::RunConfig> out;
  for (const auto& run : valid_runs()) out.push_back(run.config());
  return out;
}

std::string ExperimentEditor::problem() const {
  try {
    valid_runs();
    return "";
  } catch (const std::exception& e) {
    return e.what();
  }
}

std::string ExperimentEditor::cli_command() const { return mode_ == RunMode::sweep_e ? "sweep" : "train"; }

std::string ExperimentEditor::kept_left_out() const {
  std::string left;
  if (!kept_variants_.empty() && mode_ != RunMode::variants && mode_ != RunMode::sweep_e)
    left = "the file's " + std::to_string(kept_variants_.size()) + " variants";
  if (!kept_sweep_.empty() && mode_ != RunMode::sweep_e) {
    std::string axes;
    for (const auto& [path, values] : kept_sweep_) axes += (axes.empty() ? "" : ", ") + path;
    left += (left.empty() ? "the file's sweep over " : " and its sweep over ") + axes;
  }
  if (left.empty()) return "";
  const char* mode_name = mode_ == RunMode::single ? "one run" : mode_ == RunMode::compare ? "compare" : "the file's variants";
  return std::string(mode_name) + " leaves out " + left + " (sweep trains them all)";
}

std::string ExperimentEditor::pick_sweep_field(const std::string& field) {
  if (field == sweep_field_) return "";
  const std::string before = sweep_field_;
  std::string note;
  if (const auto axis = kept_sweep_.find(field); axis != kept_sweep_.end()) {
    // Trade places: the edited field joins the kept grid, so the runs stay the same.
    const std::vector<nlohmann::json> values = axis->second;
    const std::vector<int> es = field == kE ? e_list(values) : sweep_E_;  // before any change: a bad list changes nothing
    kept_sweep_.erase(field);
    if (before == kE) kept_sweep_[kE].assign(sweep_E_.begin(), sweep_E_.end());
    else kept_sweep_[before] = sweep_values_;
    if (field == kE) sweep_E_ = es;
    else sweep_values_ = values;
    note = field + " is edited here now; " + before + " joins the file's grid (read-only): the same runs";
  } else {
    if (before != kE && !sweep_values_.empty()) note = "the sweep over " + before + " is left out: " + field + " is swept now";
    if (field != kE) sweep_values_.clear();
  }
  sweep_field_ = field;
  commit();
  return note;
}

memory::Schedule ExperimentEditor::schedule() const {
  return config::schedule_from_config(config_);
}

figures::Figure ExperimentEditor::activation_figure() const {
  const auto s = schedule();
  const auto& c = config_;
  const int64_t eval_len = c.eval.per_position.seq_len > 0 ? c.eval.per_position.seq_len : 2 * c.data.seq_len;
  return figures::activation_map_figure(s, std::max<int64_t>(2 * s.N(), eval_len), c.name);
}

std::optional<figures::Figure> ExperimentEditor::state_opening_figure() const {
  const auto& m = config_.model.mixer;
  if (m.E <= 1) return std::nullopt;
  return figures::state_opening_figure(schedule(), m.block_axis, m.heads, m.d_head, m.d_head, config_.name);
}

void ExperimentEditor::set_tokenizer(config::Tokenizer tokenizer) {
  edit_config([&](config::RunConfig& c) {
    auto& d = c.data;
    if (tokenizer == d.tokenizer) return false;
    d.tokenizer = tokenizer;
    d.tokenizer_hash.clear();
    const bool bpe = tokenizer == config::Tokenizer::bpe;
    d.vocab = bpe ? 4096 : 0;
    c.model.vocab = bpe ? d.vocab : 256;
    return true;
  });
}

void ExperimentEditor::set_bpe_vocab(int pieces) {
  edit_config([&](config::RunConfig& c) {
    c.data.vocab = pieces;
    c.model.vocab = pieces;
    return true;
  });
}

void ExperimentEditor::add_mlp_block() {
  edit_config([](config::RunConfig& c) {
    auto& chain = c.model.mlp.chain;
    if (static_cast<int>(chain.size()) >= config::kMaxMlpChain) return false;
    const int64_t every = chain.empty() ? 1 : int64_t{chain.back().every} * 4;
    chain.push_back({static_cast<int>(std::min<int64_t>(every, config::kMaxMlpEvery))});
    return true;
  });
}

void ExperimentEditor::remove_mlp_block() {
  edit_config([](config::RunConfig& c) {
    auto& chain = c.model.mlp.chain;
    if (chain.size() <= 1) return false;
    chain.pop_back();
    return true;
  });
}

void ExperimentEditor::set_mlp_every(int block, int every) {
  edit_config([&](config::RunConfig& c) {
    auto& chain = c.model.mlp.chain;
    if (block <= 0 || block >= static_cast<int>(chain.size())) return false;  // block 0 updates every step
    chain[block].every = std::clamp(every, 1, config::kMaxMlpEvery);
    return true;
  });
}

void ExperimentEditor::set_E(int E) {
  edit_config([&](config::RunConfig& c) {
    auto& m = c.model.mixer;
    const int D = int(config::mixer_state_size(m));
    E = std::clamp(E, 1, std::max(1, D));
    if (m.schedule.type == memory::ScheduleType::custom && !m.schedule.unlock.empty() && E != m.E)
      m.schedule.unlock = memory::respread_unlocks(m.schedule.unlock, E, config::resolved_mixer_horizon(c));
    m.E = E;
    return true;
  });
}

void ExperimentEditor::set_schedule_type(memory::ScheduleType type) {
  if (type == config_.model.mixer.schedule.type) return;
  std::vector<int64_t> unlock = config_.model.mixer.schedule.unlock;
  if (type == memory::ScheduleType::custom) {
    try {
      unlock = schedule().unlock();
    } catch (const std::exception&) {
      unlock = memory::Schedule::uniform(config::mixer_state_size(config_.model.mixer), config_.model.mixer.E,
                                         config::resolved_mixer_horizon(config_))
                   .unlock();
    }
  }
  edit_config([&](config::RunConfig& c) {
    c.model.mixer.schedule.unlock = std::move(unlock);
    c.model.mixer.schedule.type = type;
    return true;
  });
}

void ExperimentEditor::set_schedule_power(double power) {
  edit_config([&](config::RunConfig& c) {
    c.model.mixer.schedule.power = power;
    return true;
  });
}

int64_t ExperimentEditor::drag_unlock(int j, int64_t position) {
  if (config_.model.mixer.schedule.type != memory::ScheduleType::custom) return j == 0 ? 1 : -1;
  int64_t landed = 0;
  edit_config([&](config::RunConfig& c) {
    landed = memory::drag_unlock(c.model.mixer.schedule.unlock, j, position, config::resolved_mixer_horizon(c));
    return true;
  });
  return landed;
}

void ExperimentEditor::set_N(int N) {
  edit_config([&](config::RunConfig& c) {
    c.model.mixer.N = std::max(0, N);
    memory::clamp_unlocks(c.model.mixer.schedule.unlock, config::resolved_mixer_horizon(c));
    return true;
  });
}

}  // namespace proteus::gui
