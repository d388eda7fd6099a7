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
#include <filesystem>
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

// The experiment file with its parent chain merged in and "parent" removed.
nlohmann::json load_experiment_json(const std::filesystem::path& path);

// One run per variant (one run when there are none), times the seeds; "sweep" is left alone. The experiment must
// already be loaded (no "parent" left).
std::vector<RunConfig> expand_variants(const nlohmann::json& experiment);

// The grid x the variants, grid-major. Throws InputError("sweep", ...) when there is no grid.
// Where a variant and the grid set the same field the grid wins, so a run's name tells the truth.
std::vector<RunConfig> expand_sweep(const nlohmann::json& experiment);

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
