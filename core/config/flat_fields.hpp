// A config as a flat list of leaf fields by dotted path: what compares two runs field by field
// (a seed group's members, a sweep's axes and its baselines).
#pragma once
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "core/config/config_json.hpp"

namespace proteus::config {

// Every leaf of to_json(c, form) by its dotted path ("model.mixer.E" -> 16); arrays are leaves.
std::map<std::string, nlohmann::json> flat_fields(const RunConfig& c, JsonForm form = JsonForm::resolved);

// Fields resolve() derives from others (d_hidden, the horizons, eval.*'s lengths): where two
// configs differ in one of these and in the field it follows, the latter is the one to name.
bool derived_field(const std::string& path);

}  // namespace proteus::config
