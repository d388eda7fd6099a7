// Experiment files: parent chains, variants and sweep grids expanded into checked run configs.
// Every override passes through apply_override, so a typo in a variant or a sweep path is caught
// before any run starts, and value errors are reported where the value was written.
#include "core/config/experiment.hpp"

#include <algorithm>
#include <set>
#include <sstream>

#include "core/common/json_fields.hpp"
#include "core/common/json_read.hpp"

namespace proteus::config {
namespace {

using common::indexed;
using nlohmann::json;

// The keys an experiment file adds to a run config.
constexpr const char* kParent = "parent";
constexpr const char* kVariants = "variants";
constexpr const char* kSweep = "sweep";
constexpr const char* kSeeds = "seeds";

// Far more runs than anyone trains from one file; a grid of a million is a typo, refused in a line.
constexpr size_t kMaxRuns = 10'000;

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  size_t begin = 0;
  while (true) {
    const size_t dot = path.find('.', begin);
    parts.push_back(path.substr(begin, dot == std::string::npos ? std::string::npos : dot - begin));
    if (dot == std::string::npos) return parts;
    begin = dot + 1;
  }
}

// The schema's shape: every object and leaf of a default config, keys in the schema's nesting.
const json& schema() {
  static const json skeleton = [] {
    const RunConfig defaults;
    return to_json(defaults, JsonForm::as_given);
  }();
  return skeleton;
}

std::vector<std::string> keys_of(const json& object) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : object.items()) keys.push_back(key);
  return keys;
}

// Where a parse error came from: a value some override wrote at `path`, reported as `origin`.
struct Origin {
  std::string path;    // "model.mixer.E"
  std::string origin;  // "variants[1].set.model.mixer.E" or "sweep.model.mixer.E[2]"
};

// Parses one expanded run; an error inside an overridden value is renamed to where it was written,
// any other error gets the run's name, since it may come from a combination of overrides.
RunConfig parse_expanded(const json& config, const std::vector<Origin>& origins) {
  try {
    return parse_run_config(config);
  } catch (const InputError& e) {
    const std::string& field = e.field();
    for (const Origin& o : origins) {
      const bool inside = field == o.path || (field.size() > o.path.size() && field.compare(0, o.path.size(), o.path) == 0 &&
                                              (field[o.path.size()] == '.' || field[o.path.size()] == '['));
      if (inside) throw InputError(o.origin + field.substr(o.path.size()), e.reason());
    }
    if (origins.empty()) throw;
    const std::string name = config.contains("name") && config["name"].is_string() ? config["name"].get<std::string>() : "";
    throw InputError(field, e.reason() + " (in run " + common::quoted(name, common::kShownPath) + ")");
  }
}

// "-E4" for a grid value: the last path component, then the value as a file name can hold it.
std::string grid_suffix(const std::string& path, const json& value) {
  std::string text;
  if (value.is_string()) {
    text = value.get<std::string>();
  } else if (value.is_number_float()) {
    text = describe_json(value);
  } else {
    text = value.dump();
  }
  for (char& ch : text) {
    const bool plain = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                       ch == '.' || ch == '-' || ch == '+' || ch == '_';
    if (!plain) ch = '_';
  }
  return "-" + split_path(path).back() + text;
}

struct Variant {
  std::string name;                          // "" when the experiment has no variants
  std::vector<std::pair<std::string, json>> set;  // dotted path -> value, in the file's order
};

// The variants list, checked: each {"name": string, "set": {path: value}} with unique names.
std::vector<Variant> read_variants(const json& experiment) {
  const auto it = experiment.find(kVariants);
  if (it == experiment.end()) return {Variant{}};
  if (!it->is_array() || it->empty())
    throw InputError(kVariants, "expected a non-empty array of {\"name\": ..., \"set\": {...}}, got " + describe_json(*it));
  if (it->size() > kMaxRuns)
    throw InputError(kVariants, "holds " + std::to_string(it->size()) + " variants, more than the limit of " +
                                    std::to_string(kMaxRuns) + " runs");
  std::vector<Variant> variants;
  std::set<std::string> names;
  for (size_t i = 0; i < it->size(); ++i) {
    const json& v = (*it)[i];
    const std::string at = indexed(kVariants, i);
    if (!v.is_object()) throw InputError(at, "expected an object {\"name\": ..., \"set\": {...}}, got " + describe_json(v));
    for (const auto& [key, value] : v.items())
      if (key != "name" && key != "set")
        throw InputError(at + "." + common::clipped(key), unknown_key_reason(key, {"name", "set"}));
    Variant variant;
    const auto name = v.find("name");
    if (name == v.end()) throw InputError(at + ".name", "required: the variant's name, added to the run's name");
    if (!name->is_string() || name->get<std::string>().empty())
      throw InputError(at + ".name", "expected a non-empty string, got " + describe_json(*name));
    variant.name = name->get<std::string>();
    // It becomes part of a directory name; the full name is checked again once it is built.
    const bool control = std::any_of(variant.name.begin(), variant.name.end(),
                                     [](char ch) { return static_cast<unsigned char>(ch) < 0x20; });
    if (control || variant.name.find_first_of("/\\") != std::string::npos)
      throw InputError(at + ".name", "must not hold '/', '\\' or control characters, got " + describe_json(*name));
    if (!names.insert(variant.name).second)
      throw InputError(at + ".name", "duplicate variant name " + common::quoted(variant.name));
    if (const auto set = v.find("set"); set != v.end()) {
      if (!set->is_object()) throw InputError(at + ".set", "expected an object of {\"dotted.path\": value}, got " + describe_json(*set));
      for (const auto& [path, value] : set->items()) variant.set.emplace_back(path, value);
    }
    variants.push_back(std::move(variant));
  }
  return variants;
}

// The seeds list, checked: distinct integers >= 0 (empty when the experiment has none).
std::vector<uint64_t> read_seeds(const json& experiment) {
  const auto it = experiment.find(kSeeds);
  if (it == experiment.end() || it->is_null()) return {};
  if (!it->is_array() || it->empty())
    throw InputError(kSeeds, "expected a non-empty array of seeds, e.g. [1, 2, 3], got " + describe_json(*it));
  if (it->size() > static_cast<size_t>(kMaxSeeds))
    throw InputError(kSeeds, "holds " + std::to_string(it->size()) + " seeds, more than the limit of " + std::to_string(kMaxSeeds));
  std::vector<uint64_t> seeds;
  for (size_t i = 0; i < it->size(); ++i) {
    const json& s = (*it)[i];
    if (!s.is_number_integer() || (s.is_number_integer() && !s.is_number_unsigned() && s.get<int64_t>() < 0))
      throw InputError(indexed(kSeeds, i), "expected an integer >= 0, got " + describe_json(s));
    const uint64_t seed = s.get<uint64_t>();
    if (std::find(seeds.begin(), seeds.end(), seed) != seeds.end())
      throw InputError(indexed(kSeeds, i), "duplicate seed " + std::to_string(seed));
    seeds.push_back(seed);
  }
  return seeds;
}

// The experiment less its experiment keys: the base run config.
json base_config(const json& experiment) {
  if (!experiment.is_object()) throw InputError("config", "expected a JSON object, got " + describe_json(experiment));
  if (experiment.contains(kParent))
    throw InputError(kParent, "not resolved: read the file with load_experiment_json, which merges its parent");
  json base = experiment;
  base.erase(kVariants);
  base.erase(kSweep);
  base.erase(kSeeds);
  return base;
}

// The base name runs are named after; a "name" that is not a string is refused here, before the
// expanded run's own name (a string) would hide it.
std::string config_name(const json& config) {
  const auto it = config.find("name");
  if (it == config.end() || it->is_null()) return RunConfig().name;
  if (!it->is_string()) throw InputError("name", "expected a string, got " + describe_json(*it));
  return it->get<std::string>();
}

// One run: base + a variant's overrides + a grid point's overrides (the grid last, so it wins).
// With a seed (an experiment's "seeds"), the run joins the seed group named as the run would be
// without it, and its name gains "-s<seed>".
RunConfig expand_one(const json& base, const Variant& variant, size_t variant_index,
                     const std::vector<std::pair<std::string, json>>& grid_point,
                     const std::vector<size_t>& grid_indices, std::optional<std::pair<uint64_t, size_t>> seed = {}) {
  json config = base;
  std::vector<Origin> origins;
  const std::string set_at = indexed(kVariants, variant_index) + ".set.";
  for (const auto& [path, value] : variant.set) {
    try {
      config = apply_override(std::move(config), path, value);
    } catch (const InputError& e) {
      throw InputError(set_at + e.field(), e.reason());
    }
    origins.push_back({path, set_at + path});
  }
  std::string name = config_name(config);
  if (!variant.name.empty()) name += "-" + variant.name;
  for (size_t g = 0; g < grid_point.size(); ++g) {
    const auto& [path, value] = grid_point[g];
    config = apply_override(std::move(config), path, value);  // paths were checked by expand_sweep
    // The grid is applied last, so its origin must be found first.
    origins.insert(origins.begin(), {path, indexed(std::string(kSweep) + "." + path, grid_indices[g])});
    name += grid_suffix(path, value);
  }
  if (seed) {
    config["seed"] = seed->first;
    config["group"] = name;
    origins.insert(origins.begin(), {"seed", indexed(kSeeds, seed->second)});
    name += "-s" + std::to_string(seed->first);
  }
  config["name"] = name;
  return parse_expanded(config, origins);
}

}  // namespace

json read_json_file(const std::filesystem::path& path) { return common::read_json_file(path, kConfigFileLimits); }

json load_experiment_json(const std::filesystem::path& path) {
  // The chain from the file the user named up to the oldest parent, each file's value with it.
  std::vector<std::filesystem::path> chain;
  std::vector<json> values;
  std::vector<std::filesystem::path> identities;  // canonical, to recognise a cycle
  std::filesystem::path current = path;
  while (true) {
    std::error_code ec;
    const std::filesystem::path identity = std::filesystem::weakly_canonical(current, ec);
    const auto seen = std::find(identities.begin(), identities.end(), ec ? current : identity);
    if (seen != identities.end()) {
      std::string cycle;
      for (size_t i = static_cast<size_t>(seen - identities.begin()); i < chain.size(); ++i)
        cycle += chain[i].generic_string() + " -> ";
      throw InputError(chain.back().generic_string(), "parent cycle: " + cycle + current.generic_string());
    }
    json value = read_json_file(current);
    const std::string shown = current.generic_string();
    if (!value.is_object()) throw InputError(shown, "expected a JSON object (a run config), got " + describe_json(value));
    chain.push_back(current);
    identities.push_back(ec ? current : identity);
    const auto parent = value.find(kParent);
    if (parent == value.end()) {
      values.push_back(std::move(value));
      break;
    }
    if (!parent->is_string() || parent->get<std::string>().empty())
      throw InputError(shown, "parent: expected a file name, got " + describe_json(*parent));
    const std::filesystem::path next = current.parent_path() / parent->get<std::string>();
    value.erase(kParent);
    values.push_back(std::move(value));
    current = next;
  }
  // Oldest first; each child patches what its parents built.
  json merged = std::move(values.back());
  for (size_t i = values.size() - 1; i-- > 0;) merged.merge_patch(values[i]);
  return merged;
}

json apply_override(json config, const std::string& dotted_path, const json& value) {
  if (dotted_path.empty()) throw InputError("set", "an override path must name a config field, got \"\"");
  const std::vector<std::string> parts = split_path(dotted_path);
  const json* node = &schema();
  std::string walked;
  for (const std::string& part : parts) {
    const std::string shown = common::clipped(part);  // a path is echoed, never a 50 MB one
    const std::string here = walked.empty() ? shown : walked + "." + shown;
    if (!node->is_object())
      throw InputError(here, "unknown key (" + walked + " is a value, not an object of fields)");
    const auto it = node->find(part);
    if (it == node->end()) {
      throw InputError(here, unknown_key_reason(part, keys_of(*node)));
    }
    node = &*it;
    walked = here;
  }
  // {"model": {"mixer": {"E": value}}} as a merge patch: objects merge, values replace, null resets.
  json patch = value;
  for (size_t i = parts.size(); i-- > 0;) patch = json{{parts[i], std::move(patch)}};
  if (!config.is_object()) config = json::object();
  config.merge_patch(patch);
  return config;
}

std::vector<std::string> override_paths() { return config_paths(); }

std::pair<std::string, json> parse_override(const std::string& path_equals_value) {
  const auto eq = path_equals_value.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError("--set", "expected PATH=VALUE, got " + common::quoted(path_equals_value));
  std::string path = path_equals_value.substr(0, eq);
  const std::string text = path_equals_value.substr(eq + 1);
  try {
    return {std::move(path), common::parse_json(text, "--set " + common::clipped(path), kConfigFileLimits)};
  } catch (const InputError& e) {
    if (e.reason().rfind("parse error", 0) == 0) return {std::move(path), json(text)};  // a bare word
    throw;
  }
}

// Each variant once, or once per seed (the seeds of one variant together).
void expand_point(const json& base, const std::vector<Variant>& variants, const std::vector<uint64_t>& seeds,
                  const std::vector<std::pair<std::string, json>>& point, const std::vector<size_t>& index,
                  std::vector<RunConfig>& runs) {
  for (size_t v = 0; v < variants.size(); ++v) {
    if (seeds.empty()) {
      runs.push_back(expand_one(base, variants[v], v, point, index));
      continue;
    }
    for (size_t s = 0; s < seeds.size(); ++s)
      runs.push_back(expand_one(base, variants[v], v, point, index, std::make_pair(seeds[s], s)));
  }
}

std::vector<RunConfig> expand_variants(const json& experiment) {
  const json base = base_config(experiment);
  const std::vector<Variant> variants = read_variants(experiment);
  const std::vector<uint64_t> seeds = read_seeds(experiment);
  if (variants.size() * std::max<size_t>(1, seeds.size()) > kMaxRuns)
    throw InputError(kSeeds, "the variants times the seeds make more than " + std::to_string(kMaxRuns) + " runs");
  std::vector<RunConfig> runs;
  expand_point(base, variants, seeds, {}, {}, runs);
  return runs;
}

std::vector<RunConfig> expand_sweep(const json& experiment) {
  const json base = base_config(experiment);
  const auto sweep = experiment.find(kSweep);
  if (sweep == experiment.end()) throw InputError(kSweep, "this config has no sweep grid");
  if (!sweep->is_object() || sweep->empty())
    throw InputError(kSweep, "expected an object of {\"dotted.path\": [values...]}, got " + describe_json(*sweep));
  std::vector<std::pair<std::string, const json*>> axes;  // sorted by path: json objects keep keys sorted
  for (const auto& [path, values] : sweep->items()) {
    const std::string at = std::string(kSweep) + "." + path;
    if (!values.is_array() || values.empty())
      throw InputError(at, "expected a non-empty array of values, got " + describe_json(values));
    try {
      apply_override(json::object(), path, values[0]);
    } catch (const InputError& e) {
      throw InputError(std::string(kSweep) + "." + e.field(), e.reason());
    }
    axes.emplace_back(path, &values);
  }
  const std::vector<Variant> variants = read_variants(experiment);
  const std::vector<uint64_t> seeds = read_seeds(experiment);
  if (!seeds.empty() && sweep->contains("seed"))
    throw InputError(std::string(kSweep) + ".seed", "the experiment also gives \"seeds\": use one or the other");
  size_t total = variants.size() * std::max<size_t>(1, seeds.size());
  for (const auto& axis : axes) {
    total = axis.second->size() > kMaxRuns ? kMaxRuns + 1 : total * axis.second->size();
    if (total > kMaxRuns)
      throw InputError(kSweep, "expands into more than " + std::to_string(kMaxRuns) +
                                   " runs (the grid's sizes multiplied, times the variants)");
  }

  std::vector<RunConfig> runs;
  std::vector<size_t> index(axes.size(), 0);  // an odometer over the grid, the last axis fastest
  while (true) {
    std::vector<std::pair<std::string, json>> point;
    for (size_t a = 0; a < axes.size(); ++a) point.emplace_back(axes[a].first, (*axes[a].second)[index[a]]);
    expand_point(base, variants, seeds, point, index, runs);
    size_t a = axes.size();
    while (a > 0) {
      --a;
      if (++index[a] < axes[a].second->size()) break;
      index[a] = 0;
      if (a == 0) return runs;
    }
  }
}

}  // namespace proteus::config
