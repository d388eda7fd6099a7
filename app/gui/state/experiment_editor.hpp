// What the window's controls edit: one config::Experiment, edited in place (its base through its
// typed face, its variants, grid and seeds by the run mode: one run, the compare pair baseline
// E = 1 vs Proteus, a sweep, or a file's own variants), loaded from and saved to the same files
// `proteus train` and `proteus sweep` read. What the controls cannot edit of a file's grid is kept
// as given (kept_variants, kept_sweep). No drawing, no JSON written here: tested headlessly.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config/config.hpp"
#include "core/config/experiment.hpp"
#include "core/figures/figure.hpp"
#include "core/memory/schedule.hpp"
#include "core/train/run_validation.hpp"

namespace proteus::gui {

// variants: the loaded file's own variants (kept_variants), trained as the file gives them.
enum class RunMode { single, compare, sweep_e, variants };

// The most seeds the window trains per run: the experiment's own limit.
using config::kMaxSeeds;

// The fields a sweep is most often over: the one the controls edit when a file sweeps several.
const std::vector<std::string>& common_sweep_fields();

struct PresetFile {
  std::string label;  // path relative to experiments/, e.g. "rules/delta-cpu.json"
  std::filesystem::path path;
};

// Every *.json under experiments_dir (presets; results/ left out), sorted by label.
std::vector<PresetFile> find_presets(const std::filesystem::path& experiments_dir);

// The preset the window opens on when none is named.
inline constexpr const char* kDefaultPreset = "quickstart-cpu.json";

class ExperimentEditor {
 public:
  ExperimentEditor() { commit(); }

  // The experiment the controls say: what Save writes and Start trains, the same value the command
  // line reads back from the saved file. Every edit below goes into it at once.
  const config::Experiment& experiment() const { return experiment_; }
  // Its base as a typed config (in compare mode: the Proteus run): the controls' fields.
  const config::RunConfig& config() const { return config_; }
  // Edits the base in place: `edit(config::RunConfig&)` returns whether it changed anything, and
  // what it changed is written into experiment() (with the mode's variants, grid and seeds, which
  // follow E, the schedule and the seed). Returns what `edit` returned.
  template <class Edit>
  bool edit_config(Edit&& edit) {
    if (!edit(config_)) return false;
    commit();
    return true;
  }
  // Replaces the base (a run's config, a test's), less its group.
  void set_config(config::RunConfig config);

  RunMode mode() const { return mode_; }
  // A sweep turns a custom schedule back to uniform: its unlocks fit one E, the grid trains several.
  void set_mode(RunMode mode);
  // Sweep mode over E: its values. Over another field (any config::override_paths() entry): its
  // values, each point trained with E = 1 beside config's E when sweep_baseline(), so the
  // gating-effect map has a baseline at every point.
  const std::vector<int>& sweep_E() const { return sweep_E_; }
  void set_sweep_E(std::vector<int> es);
  const std::string& sweep_field() const { return sweep_field_; }  // model.mixer.E: the E sweep
  const std::vector<nlohmann::json>& sweep_values() const { return sweep_values_; }
  void set_sweep_values(std::vector<nlohmann::json> values);
  bool sweep_baseline() const { return sweep_baseline_; }
  void set_sweep_baseline(bool baseline);
  // Each run trained once per seed: config's seed, +1, ... (a seed group).
  int seeds() const { return seeds_; }
  void set_seeds(int seeds);
  // The part of a loaded file's run grid the controls cannot edit, kept as the file gives it, shown
  // read-only and trained in the modes that train it, so the window trains what `proteus train` /
  // `proteus sweep` train from the file: variants other than the compare pair (rows-per-block's
  // d16..d128, normalize-variants' four), and sweep axes beside the one swept field (memory-load's
  // data.mqar.layout beside data.mqar.pairs).
  const std::vector<config::Variant>& kept_variants() const { return kept_variants_; }
  const config::SweepGrid& kept_sweep() const { return kept_sweep_; }
  // Leaves the kept grid out of the runs (the variants mode, with nothing left, becomes one run).
  void leave_out_kept();

  std::string source;                  // the file last loaded or saved; "" for the defaults
  std::vector<std::string> notes;      // what loading changed (a seed list the window cannot train, ...)

  // Loads an experiment file (parent chain merged): variants that are the compare pair (an E = 1
  // baseline and "proteus-e<E>") become compare mode, other variants variants mode; a sweep becomes
  // sweep mode over E or over one other field (E = [1, e] gives config's E and a baseline at every
  // point), its other axes and any variants kept as given; anything else one run. The runs are
  // the file's, as the command line makes them. Throws InputError naming the file or field; the
  // editor is unchanged then.
  void load(const std::filesystem::path& file);
  // The experiment the window opens on when no preset is named, never one with a config error:
  // kDefaultPreset among `presets` when it loads and validates (returned), else the built-in
  // defaults in compare mode at E = 16 (compare needs E > 1; nullopt).
  std::optional<PresetFile> open_default(const std::vector<PresetFile>& presets);
  // Writes experiment().to_json() atomically. Throws std::runtime_error when it cannot.
  void save(const std::filesystem::path& file);

  // experiment()'s runs as the command line makes them (its runs(), or sweep_runs() in sweep
  // mode), each through train::validate_runs, the CLI's one check: throws InputError naming the
  // field, the same refusal `proteus train` gives the saved file. compare: "<name>-baseline"
  // (E = 1) and "<name>-proteus-e<E>"; sweep: "<name>-E<e>" per E (over another field:
  // "<name>-E<e>-<field><value>" per value, E = 1 and config's E), crossed with the kept grid's
  // axes and variants; the file's variants: "<name>-<variant>" each.
  std::vector<train::ValidRun> valid_runs() const;
  // The configs of valid_runs().
  std::vector<config::RunConfig> runs() const;
  // "" when runs() would succeed, else the InputError's text (the window shows it and disables Start).
  std::string problem() const;
  // How many runs experiment() makes (the grid's sizes x the variants x the seeds), unchecked.
  size_t run_count() const { return experiment_.run_count(); }
  // The command that trains the saved file: "sweep" in sweep mode, else "train".
  std::string cli_command() const;
  bool kept_empty() const { return kept_variants_.empty() && kept_sweep_.empty(); }
  // The kept grid as the window shows it: config::describe_grid and config::grid_fields.
  std::vector<std::string> kept_describe() const { return config::describe_grid(kept_variants_, kept_sweep_); }
  std::vector<std::string> kept_fields() const { return config::grid_fields(kept_variants_, kept_sweep_); }
  // What of the kept grid the current mode does not train ("" when all of it is trained).
  std::string kept_left_out() const;
  // Sweeps over `field` instead of sweep_field(). A field of the kept grid trades places with the
  // edited one (its values come along, the runs stay the same); another field starts empty.
  // Returns what changed for the user ("" when nothing worth saying).
  std::string pick_sweep_field(const std::string& field);

  // The memory schedule of one head as configured (D = d_head^2, E, N); throws InputError for
  // values out of range.
  memory::Schedule schedule() const;
  // The activation map (block x position) of schedule(), drawn to 2 N positions or the
  // per-position evaluation length, whichever is longer, so the unlocks and the tail both show.
  figures::Figure activation_figure() const;
  // Which elements of one layer's state those blocks are (the block axis); nullopt with one block.
  std::optional<figures::Figure> state_opening_figure() const;

  // Schedule edits that keep the config valid (the unlock-point math is core/memory/schedule_edit.hpp).
  // Sets E in [1, D]; a custom schedule is re-spread over the new E (its shape kept).
  void set_E(int E);
  // bytes or bpe (data.tokenizer), keeping model.vocab equal to the tokenizer's (bpe: 4096
  // pieces to start with, bytes: 256) and forgetting a trained tokenizer's hash.
  void set_tokenizer(config::Tokenizer tokenizer);
  // The BPE's pieces (data.vocab), model.vocab with it.
  void set_bpe_vocab(int pieces);
  // Sets the type; switching to custom starts from the unlock points of the current schedule.
  void set_schedule_type(memory::ScheduleType type);
  // The power schedule's exponent (model.mixer.schedule.power).
  void set_schedule_power(double power);
  // Moves custom unlock point j (j >= 1; u_1 = 1 is fixed) to `position`, clamped between its
  // neighbours and to [1, N]. Returns the position it landed on. No-op unless type is custom.
  int64_t drag_unlock(int j, int64_t position);
  // Sets the horizon N (0 = data.seq_len); custom unlock points past it are pulled back to N.
  void set_N(int N);

  // The MLP chain (model.mlp.chain, Hope-Attention), kept valid: 1 to kMaxMlpChain blocks, the
  // first updated every step (C_1 = 1). A new block updates 4x less often than the last one;
  // removing drops the last; set_mlp_every clamps to [1, kMaxMlpEvery] and leaves block 0 at 1.
  void add_mlp_block();
  void remove_mlp_block();
  void set_mlp_every(int block, int every);

 private:
  // Writes config_ and the mode's variants, grid and seeds into experiment_: the one way an edit
  // reaches it, so config_ is always experiment_'s base, typed.
  void commit();

  config::Experiment experiment_;
  config::RunConfig config_;
  RunMode mode_ = RunMode::compare;
  std::vector<int> sweep_E_ = {1, 2, 4, 8, 16, 32};
  std::string sweep_field_ = "model.mixer.E";
  std::vector<nlohmann::json> sweep_values_;
  bool sweep_baseline_ = true;
  int seeds_ = 1;
  std::vector<config::Variant> kept_variants_;
  config::SweepGrid kept_sweep_;
};

}  // namespace proteus::gui
