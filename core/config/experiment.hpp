// Experiment files: a run config (config_json.hpp) that may also hold three keys.
//   "parent": "base.json"       a file (relative to this one) loaded first; this file's fields
//                               override it recursively (JSON merge patch, RFC 7386: objects merge,
//                               other values replace, null resets a field to its default). Chains
//                               are followed; a cycle is an error.
//   "variants": [{"name": "baseline", "set": {"model.mixer.E": 1}}, ...]
//                               one run per variant: the base config with those dotted-path
//                               overrides, named "<base name>-<variant name>".
//   "sweep": {"model.mixer.E": [1, 2, 4], "seed": [1, 2]}
//                               a grid: the cartesian product of the lists (paths in sorted order,
//                               the first varying slowest), crossed with the variants; names gain
//                               "-E1-seed2" (last path component, then the value).
//   "seeds": [1, 2, 3]          every run (each variant, each grid point) once per seed: the seed
//                               sets "seed" (initialisation and data order), the run is named
//                               "<name>-s2" and records "group": "<name>", its seed group.
// Errors are InputErrors naming where to look: "experiments/x.json: cannot open",
// "experiments/x.json:12:3: parse error: ...", "variants[1].set.model.mixer.F: unknown key".
#pragma once
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/common/json_read.hpp"
#include "core/config/config.hpp"
#include "core/config/config_json.hpp"

namespace proteus::config {

// The most seeds one experiment lists: a seed group's size, one limit for the file, the command
// line and the window.
inline constexpr int kMaxSeeds = 100;

// The reader's limits for a config file and each of its parents (common::read_json_file).
inline constexpr common::JsonLimits kConfigFileLimits{size_t{4} << 20, 64, "a config file"};

// A config file's value, read within kConfigFileLimits. Errors name the file ("x.json: cannot open")
// and, for bad JSON, the line and column of the first bad byte ("x.json:12:3: parse error: ...");
// a key given twice is refused ("model.mixer.E: appears twice in one object of x.json ...").
nlohmann::json read_json_file(const std::filesystem::path& path);

// The experiment file with its parent chain merged in and "parent" removed (Experiment::load's
// first step; the value is the file's, not yet checked as an experiment).
nlohmann::json load_experiment_json(const std::filesystem::path& path);

// One variant: its name (part of each run's name) and its dotted-path overrides, in the file's order.
struct Variant {
  std::string name;
  std::vector<std::pair<std::string, nlohmann::json>> set;

  // "d16: model.mixer.d_head = 16, data.seq_len = 512": the variant as the window shows it.
  std::string describe() const;
  bool operator==(const Variant&) const = default;
};

// A sweep grid: dotted path -> its values. Paths in sorted order, the first varying slowest.
using SweepGrid = std::map<std::string, std::vector<nlohmann::json>>;

// "16, 32, 64" or "pairs-first, spread": a list of values as the window shows it.
std::string values_text(const std::vector<nlohmann::json>& values);
// One line per variant (Variant::describe) and per axis ("sweep data.mqar.layout: pairs-first, spread").
std::vector<std::string> describe_grid(const std::vector<Variant>& variants, const SweepGrid& sweep);
// The config fields the variants and the grid set in some run (sorted, unique).
std::vector<std::string> grid_fields(const std::vector<Variant>& variants, const SweepGrid& sweep);

// An experiment as one typed value: what `proteus train` and `proteus sweep`, the window's editor
// and a Slurm job plan hold. The base is stored as the file gives it (overrides are dotted paths
// over it, and a field the file leaves out keeps following its default); base_config() and
// set_base_config() are its typed face, so code edits it as a RunConfig and no JSON is written
// outside this room. The runs are made from it, every override checked against the schema.
struct Experiment {
  nlohmann::json base = nlohmann::json::object();  // the run config less "variants", "sweep", "seeds"
  std::vector<Variant> variants;                   // none: one run per grid point and seed
  std::optional<SweepGrid> sweep;                  // none: no grid (`proteus sweep` refuses it)
  std::vector<uint64_t> seeds;                     // none: each run once, at the base's seed

  // The file with its parents merged (load_experiment_json), then from_json.
  static Experiment load(const std::filesystem::path& path);
  // A merged experiment's value, checked: the base is an object with no "parent" left, the
  // variants {"name": string, "set": {path: value}} with unique names fit for a folder name, the
  // seeds distinct integers >= 0 (at most kMaxSeeds), the grid non-empty lists under paths of the
  // schema, and all of it at most 10,000 runs. Throws InputError naming the field ("variants[1].name",
  // "seeds[0]", "sweep.model.mixer.EE"). Values inside the base, the variants and the grid are
  // checked when the runs are made, where they were written.
  static Experiment from_json(const nlohmann::json& experiment);
  // The value from_json reads back to the same runs.
  nlohmann::json to_json() const;

  // runs() and sweep_runs() first make from_json's checks again (the same errors), for a value
  // built or edited in code (the window's editor, --seeds).
  // One run per variant (one run when there are none), times the seeds; the grid is left alone.
  // Each run's name is "<name>[-<variant>][-s<seed>]"; with seeds it records its seed group.
  std::vector<RunConfig> runs() const;
  // The grid x the variants x the seeds, grid-major. Throws InputError("sweep", ...) when there is
  // no grid. Where a variant and the grid set the same field the grid wins, so a run's name tells
  // the truth; names gain "-E1-seed2" (last path component, then the value).
  std::vector<RunConfig> sweep_runs() const;
  // What the experiment's command trains: sweep_runs() with a grid, else runs().
  std::vector<RunConfig> all_runs() const { return sweep ? sweep_runs() : runs(); }
  // How many runs all_runs() makes (the grid's sizes x the variants x the seeds), unchecked.
  size_t run_count() const;

  // Sets one base field by its dotted path (apply_override: the same checks and errors).
  void set(const std::string& dotted_path, const nlohmann::json& value);

  // The base as a typed config (read_run_config: keys and types checked, ranges left to runs(), so
  // a value being edited may be out of range), named name(), in no group. Throws InputError naming
  // the field when the base cannot be read as a config.
  RunConfig base_config() const;
  // Replaces the base with `config` less its group, every field written as given (JSON form
  // as_given: a zero keeps following the field it derives from).
  void set_base_config(const RunConfig& config);
  // n consecutive seeds from the base's seed (none for n <= 1): what the window's seed count writes.
  void set_seed_count(int n);

  // The name runs are named after: the base's "name" when it is a string, else RunConfig's default.
  std::string name() const;
  // The base's "name" as given; none when the file gives none (or not a string).
  std::optional<std::string> given_name() const;
  // The base alone as a run (no variants, no grid) at the first seed, named name(), in no group.
  RunConfig base_run() const;

  // The experiment of one run: its config (less its group) as the base, trained at seed_count
  // consecutive seeds from its own (no "seeds" for one).
  static Experiment of_run(const RunConfig& run, int seed_count = 1);
  // The compare pair of a Proteus run: of_run(proteus, seed_count) with the variants "baseline"
  // (E = 1; a custom schedule reset to the default, since its unlocks fit one E) and "proteus-e<E>".
  static Experiment compare_pair(const RunConfig& proteus, int seed_count = 1);
  // compare_pair's two variants alone, for the Proteus run `proteus`.
  static std::vector<Variant> compare_variants(const RunConfig& proteus);
  // The Proteus run when the experiment's variants are a compare pair: its largest-E run (E > 1,
  // named name(), in no group, at the first seed) whose compare_pair makes exactly these runs().
  // None otherwise (and without variants). Throws what runs() throws.
  std::optional<RunConfig> compare_proteus() const;
  // The e of a grid whose E axis is [1, e] with e > 1 (a baseline at every point of another field).
  std::optional<int> sweep_baseline_E() const;
  // The seeds are consecutive from the first (1, 2, 3): what the window's seed count writes.
  bool consecutive_seeds() const;
  // describe_grid and grid_fields of the variants and the grid.
  std::vector<std::string> describe() const;
  std::vector<std::string> fields_set() const;
};

// Sets one config field by its dotted path ("model.mixer.E"). The path must name a field of the
// schema (or an object of fields, whose value is then merged in); otherwise InputError naming the
// path up to the first unknown key ("model.mixr: unknown key (did you mean mixer?)"). The value's
// type and range are checked when the result is parsed. A null value resets the field to its default.
nlohmann::json apply_override(nlohmann::json config, const std::string& dotted_path, const nlohmann::json& value);

// A command line's "PATH=VALUE" (--set): the path and the value, which is JSON when the text parses
// as JSON (16, true, {"type": "uniform"}) and the text as a string otherwise (delta). JSON that
// parses but is refused (a duplicate key, too deep, 1e999) is an InputError, not a string.
// Throws InputError("--set", ...) when there is no '='.
std::pair<std::string, nlohmann::json> parse_override(const std::string& path_equals_value);

// The paths apply_override accepts for single values: config_paths(), for the window's sweep editor.
std::vector<std::string> override_paths();

}  // namespace proteus::config
