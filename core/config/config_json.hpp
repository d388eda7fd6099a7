// The run configuration as JSON (ARCHITECTURE seam 6): one schema (config_schema.hpp), read
// (config_reader.cpp), checked (config_validation.cpp) and written (config_json.cpp) from the
// structs in config.hpp, so every default lives there and nowhere else. The reader starts from the
// defaults and overrides only the fields a file gives; every refusal is an InputError whose field
// is the full dotted path ("model.mixer.E: must be in [1, D = d_head^2 = 1024], got 0",
// "data.mix[1].task: ...", "model.mixr: unknown key (did you mean mixer?)").
// Experiment files (parent, variants, sweep) are experiment.hpp's; this is one run's config.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config/config.hpp"
#include "core/common/input_error.hpp"
#include "core/common/json_fields.hpp"

namespace proteus::config {

// Every derived default filled in: d_hidden, both schedule horizons, eval.per_position.seq_len,
// eval.niah.tasks and lengths, eval.occupancy.seq_len. What a run actually uses.
RunConfig resolve(const RunConfig& c);

// resolved: what ran, every derived value written out (a run directory's config.json).
// as_given: zeros and empty lists kept, so they keep following the fields they derive from
// (a preset a user saves from the window).
enum class JsonForm { resolved, as_given };

// Every field, in the schema's nesting ({"name", "seed", ..., "model": {"mixer": {...}}, ...}).
// The result reads back through parse_run_config to the same config.
nlohmann::json to_json(const RunConfig& c, JsonForm form = JsonForm::resolved);

// Defaults, then the fields j gives, then validate(). A top-level "comment" (a string or an array
// of strings) is allowed and ignored, so preset files can explain themselves.
RunConfig parse_run_config(const nlohmann::json& j);
// parse_run_config less validate(): the keys and types checked, not the ranges. What an editor
// reads a config it is changing through, where a value out of range is shown, not refused.
RunConfig read_run_config(const nlohmann::json& j);

// The range and cross-field checks parse_run_config runs; the window calls it on structs it edits.
void validate(const RunConfig& c);

// The reader's and validate()'s refusal of a name outside `allowed`: throws
// InputError(field, "unknown value \"delat\" (did you mean delta?); expected one of linear, delta, ...").
[[noreturn]] void refuse_unknown_value(const std::string& field, const std::string& value,
                                       const std::vector<std::string>& allowed);

// Every leaf field's dotted path in schema order ("name", ..., "model.mixer.E", ...); arrays such
// as "data.mix" and "eval.niah.lengths" are leaves.
std::vector<std::string> config_paths();

// The shared field helpers (core/common), under the names this room's callers know.
using common::closest_name;
using common::describe_json;
using common::unknown_key_reason;

}  // namespace proteus::config
