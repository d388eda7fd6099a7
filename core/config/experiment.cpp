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

void check_variant_count(size_t count) {
  if (count > kMaxRuns)
    throw InputError(kVariants, "holds " + std::to_string(count) + " variants, more than the limit of " +
                                    std::to_string(kMaxRuns) + " runs");
}

// A variant's name becomes part of a directory name; the full name is checked again once it is built.
void check_variant_name(const std::string& name, const std::string& at, std::set<std::string>& names) {
  if (name.empty()) throw InputError(at + ".name", "expected a non-empty string, got " + describe_json(json(name)));
  const bool control = std::any_of(name.begin(), name.end(), [](char ch) { return static_cast<unsigned char>(ch) < 0x20; });
  if (control || name.find_first_of("/\\") != std::string::npos)
    throw InputError(at + ".name", "must not hold '/', '\\' or control characters, got " + describe_json(json(name)));
  if (!names.insert(name).second) throw InputError(at + ".name", "duplicate variant name " + common::quoted(name));
}

// The variants list, checked: each {"name": string, "set": {path: value}} with unique names.
std::vector<Variant> read_variants(const json& experiment) {
  const auto it = experiment.find(kVariants);
  if (it == experiment.end()) return {};
  if (!it->is_array() || it->empty())
    throw InputError(kVariants, "expected a non-empty array of {\"name\": ..., \"set\": {...}}, got " + describe_json(*it));
  check_variant_count(it->size());
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
    if (!name->is_string()) throw InputError(at + ".name", "expected a non-empty string, got " + describe_json(*name));
    variant.name = name->get<std::string>();
    check_variant_name(variant.name, at, names);
    if (const auto set = v.find("set"); set != v.end()) {
      if (!set->is_object()) throw InputError(at + ".set", "expected an object of {\"dotted.path\": value}, got " + describe_json(*set));
      for (const auto& [path, value] : set->items()) variant.set.emplace_back(path, value);
    }
    variants.push_back(std::move(variant));
  }
  return variants;
}

void check_seed_count(size_t count) {
  if (count > static_cast<size_t>(kMaxSeeds))
    throw InputError(kSeeds, "holds " + std::to_string(count) + " seeds, more than the limit of " + std::to_string(kMaxSeeds));
}

void check_duplicate_seed(const std::vector<uint64_t>& seeds, size_t i) {
  if (std::find(seeds.begin(), seeds.begin() + static_cast<std::ptrdiff_t>(i), seeds[i]) != seeds.begin() + static_cast<std::ptrdiff_t>(i))
    throw InputError(indexed(kSeeds, i), "duplicate seed " + std::to_string(seeds[i]));
}

// The seeds list, checked: distinct integers >= 0 (empty when the experiment has none).
std::vector<uint64_t> read_seeds(const json& experiment) {
  const auto it = experiment.find(kSeeds);
  if (it == experiment.end() || it->is_null()) return {};
  if (!it->is_array() || it->empty())
    throw InputError(kSeeds, "expected a non-empty array of seeds, e.g. [1, 2, 3], got " + describe_json(*it));
  check_seed_count(it->size());
  std::vector<uint64_t> seeds;
  for (size_t i = 0; i < it->size(); ++i) {
    const json& s = (*it)[i];
    if (!s.is_number_integer() || (s.is_number_integer() && !s.is_number_unsigned() && s.get<int64_t>() < 0))
      throw InputError(indexed(kSeeds, i), "expected an integer >= 0, got " + describe_json(s));
    seeds.push_back(s.get<uint64_t>());
    check_duplicate_seed(seeds, i);
  }
  return seeds;
}

// The experiment less its experiment keys: the base run config.
json base_of(const json& experiment) {
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
    config = apply_override(std::move(config), path, value);  // paths were checked with the grid
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

// Each variant once (the base once when there are none), or once per seed (the seeds of one variant together).
void expand_point(const json& base, const std::vector<Variant>& variants, const std::vector<uint64_t>& seeds,
                  const std::vector<std::pair<std::string, json>>& point, const std::vector<size_t>& index,
                  std::vector<RunConfig>& runs) {
  static const std::vector<Variant> kNoVariants{Variant{}};
  const std::vector<Variant>& each = variants.empty() ? kNoVariants : variants;
  for (size_t v = 0; v < each.size(); ++v) {
    if (seeds.empty()) {
      runs.push_back(expand_one(base, each[v], v, point, index));
      continue;
    }
    for (size_t s = 0; s < seeds.size(); ++s)
      runs.push_back(expand_one(base, each[v], v, point, index, std::make_pair(seeds[s], s)));
  }
}

namespace {

// The grid's axes, checked: each a non-empty list under a path of the schema.
void check_axis(const std::string& path, const std::vector<json>& values, const json& shown) {
  const std::string at = std::string(kSweep) + "." + path;
  if (values.empty()) throw InputError(at, "expected a non-empty array of values, got " + describe_json(shown));
  try {
    apply_override(json::object(), path, values[0]);
  } catch (const InputError& e) {
    throw InputError(std::string(kSweep) + "." + e.field(), e.reason());
  }
}

// The grid, read: an object of {"dotted.path": [values...]} (its axes checked).
SweepGrid read_sweep(const json& sweep) {
  if (!sweep.is_object() || sweep.empty())
    throw InputError(kSweep, "expected an object of {\"dotted.path\": [values...]}, got " + describe_json(sweep));
  SweepGrid grid;
  for (const auto& [path, values] : sweep.items()) {
    if (!values.is_array())
      throw InputError(std::string(kSweep) + "." + path, "expected a non-empty array of values, got " + describe_json(values));
    auto& axis = grid[path];
    axis.assign(values.begin(), values.end());
    check_axis(path, axis, values);
  }
  return grid;
}

// With the variants and seeds: one grid field set twice, and the size of it all.
void check_grid(const SweepGrid& grid, size_t variants, size_t seeds) {
  if (seeds > 0 && grid.contains("seed"))
    throw InputError(std::string(kSweep) + ".seed", "the experiment also gives \"seeds\": use one or the other");
  size_t total = std::max<size_t>(1, variants) * std::max<size_t>(1, seeds);
  for (const auto& [path, values] : grid) {
    total = values.size() > kMaxRuns ? kMaxRuns + 1 : total * values.size();
    if (total > kMaxRuns)
      throw InputError(kSweep, "expands into more than " + std::to_string(kMaxRuns) +
                                   " runs (the grid's sizes multiplied, times the variants)");
  }
}

void check_variant_runs(size_t variants, size_t seeds) {
  if (std::max<size_t>(1, variants) * std::max<size_t>(1, seeds) > kMaxRuns)
    throw InputError(kSeeds, "the variants times the seeds make more than " + std::to_string(kMaxRuns) + " runs");
}

json variant_json(const Variant& v) {
  json j = {{"name", v.name}};
  if (!v.set.empty()) {
    j["set"] = json::object();
    for (const auto& [path, value] : v.set) j["set"][path] = value;
  }
  return j;
}

// Two lists of runs are the same runs: names and resolved configs, in order.
bool same_runs(const std::vector<RunConfig>& a, const std::vector<RunConfig>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].name != b[i].name || config::to_json(a[i]) != config::to_json(b[i])) return false;
  return true;
}

std::string shown_value(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// The checks from_json makes, over a value that may have been built in code (the window's editor).
void check(const Experiment& e) {
  base_of(e.base);
  check_variant_count(e.variants.size());
  std::set<std::string> names;
  for (size_t i = 0; i < e.variants.size(); ++i) check_variant_name(e.variants[i].name, indexed(kVariants, i), names);
  check_seed_count(e.seeds.size());
  for (size_t i = 0; i < e.seeds.size(); ++i) check_duplicate_seed(e.seeds, i);
  if (!e.sweep) return check_variant_runs(e.variants.size(), e.seeds.size());
  if (e.sweep->empty())
    throw InputError(kSweep, "expected an object of {\"dotted.path\": [values...]}, got " + describe_json(json::object()));
  for (const auto& [path, values] : *e.sweep) check_axis(path, values, json(values));
  check_grid(*e.sweep, e.variants.size(), e.seeds.size());
}

}  // namespace

std::string Variant::describe() const {
  std::string line = name + ":";
  bool first = true;
  for (const auto& [path, value] : set) line += (first ? " " : ", ") + path + " = " + shown_value(value), first = false;
  return line;
}

std::string values_text(const std::vector<json>& values) {
  std::string s;
  for (const auto& v : values) s += (s.empty() ? "" : ", ") + shown_value(v);
  return s;
}

std::vector<std::string> describe_grid(const std::vector<Variant>& variants, const SweepGrid& sweep) {
  std::vector<std::string> lines;
  for (const auto& v : variants) lines.push_back(v.describe());
  for (const auto& [path, values] : sweep) lines.push_back("sweep " + path + ": " + values_text(values));
  return lines;
}

std::vector<std::string> grid_fields(const std::vector<Variant>& variants, const SweepGrid& sweep) {
  std::vector<std::string> fields;
  for (const auto& v : variants)
    for (const auto& [path, value] : v.set) fields.push_back(path);
  for (const auto& [path, values] : sweep) fields.push_back(path);
  std::sort(fields.begin(), fields.end());
  fields.erase(std::unique(fields.begin(), fields.end()), fields.end());
  return fields;
}

Experiment Experiment::load(const std::filesystem::path& path) { return from_json(load_experiment_json(path)); }

// The checks in the order the command line has always made them: the grid's shape first, then the
// variants, the seeds, and what they make together.
Experiment Experiment::from_json(const json& experiment) {
  Experiment e;
  e.base = base_of(experiment);
  if (const auto sweep = experiment.find(kSweep); sweep != experiment.end()) e.sweep = read_sweep(*sweep);
  e.variants = read_variants(experiment);
  e.seeds = read_seeds(experiment);
  if (e.sweep) check_grid(*e.sweep, e.variants.size(), e.seeds.size());
  else check_variant_runs(e.variants.size(), e.seeds.size());
  return e;
}

json Experiment::to_json() const {
  json j = base;
  if (!variants.empty()) {
    j[kVariants] = json::array();
    for (const auto& v : variants) j[kVariants].push_back(variant_json(v));
  }
  if (sweep) {
    j[kSweep] = json::object();
    for (const auto& [path, values] : *sweep) j[kSweep][path] = values;
  }
  if (!seeds.empty()) j[kSeeds] = seeds;
  return j;
}

std::vector<RunConfig> Experiment::runs() const {
  check(*this);
  std::vector<RunConfig> out;
  expand_point(base, variants, seeds, {}, {}, out);
  return out;
}

std::vector<RunConfig> Experiment::sweep_runs() const {
  if (!sweep) {
    base_of(base);
    throw InputError(kSweep, "this config has no sweep grid");
  }
  check(*this);
  std::vector<RunConfig> out;
  std::vector<SweepGrid::const_iterator> axes;
  for (auto it = sweep->begin(); it != sweep->end(); ++it) axes.push_back(it);
  std::vector<size_t> index(axes.size(), 0);  // an odometer over the grid, the last axis fastest
  while (true) {
    std::vector<std::pair<std::string, json>> point;
    for (size_t a = 0; a < axes.size(); ++a) point.emplace_back(axes[a]->first, axes[a]->second[index[a]]);
    expand_point(base, variants, seeds, point, index, out);
    size_t a = axes.size();
    while (a > 0) {
      --a;
      if (++index[a] < axes[a]->second.size()) break;
      index[a] = 0;
      if (a == 0) return out;
    }
  }
}

size_t Experiment::run_count() const {
  size_t n = std::max<size_t>(1, variants.size()) * std::max<size_t>(1, seeds.size());
  if (sweep)
    for (const auto& [path, values] : *sweep) n *= values.size();
  return n;
}

void Experiment::set(const std::string& dotted_path, const json& value) {
  base = apply_override(std::move(base), dotted_path, value);
}

std::string Experiment::name() const { return given_name().value_or(RunConfig().name); }

std::optional<std::string> Experiment::given_name() const {
  const auto it = base.find("name");
  if (it == base.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

RunConfig Experiment::base_run() const {
  Experiment alone = *this;
  alone.variants.clear();
  alone.sweep.reset();
  RunConfig run = alone.runs().front();
  run.name = name();
  run.group.clear();
  return run;
}

RunConfig Experiment::base_config() const {
  RunConfig run = read_run_config(base);
  run.name = name();
  run.group.clear();
  return run;
}

void Experiment::set_base_config(const RunConfig& config) {
  base = config::to_json(config, JsonForm::as_given);
  base.erase("group");
}

void Experiment::set_seed_count(int n) {
  seeds.clear();
  if (n <= 1) return;
  const auto it = base.find("seed");
  const uint64_t first = it != base.end() && it->is_number_unsigned() ? it->get<uint64_t>() : RunConfig().seed;
  for (int i = 0; i < n; ++i) seeds.push_back(first + static_cast<uint64_t>(i));
}

Experiment Experiment::of_run(const RunConfig& run, int seed_count) {
  Experiment e;
  e.set_base_config(run);
  e.set_seed_count(seed_count);
  return e;
}

std::vector<Variant> Experiment::compare_variants(const RunConfig& proteus) {
  Variant baseline{"baseline", {{"model.mixer.E", 1}}};
  if (proteus.model.mixer.schedule.type == memory::ScheduleType::custom) baseline.set.emplace_back("model.mixer.schedule", nullptr);
  return {std::move(baseline),
          Variant{"proteus-e" + std::to_string(proteus.model.mixer.E), {{"model.mixer.E", proteus.model.mixer.E}}}};
}

Experiment Experiment::compare_pair(const RunConfig& proteus, int seed_count) {
  Experiment e = of_run(proteus, seed_count);
  e.variants = compare_variants(proteus);
  return e;
}

std::optional<RunConfig> Experiment::compare_proteus() const {
  if (variants.empty()) return std::nullopt;
  const auto all = runs();
  RunConfig proteus = *std::max_element(all.begin(), all.end(), [](const auto& a, const auto& b) {
    return a.model.mixer.E < b.model.mixer.E;
  });
  if (proteus.model.mixer.E <= 1) return std::nullopt;
  proteus.name = name();
  proteus.group.clear();
  const int seed_count = static_cast<int>(std::min<size_t>(std::max<size_t>(1, seeds.size()), kMaxSeeds));
  if (!same_runs(compare_pair(proteus, seed_count).runs(), all)) return std::nullopt;
  return proteus;
}

std::optional<int> Experiment::sweep_baseline_E() const {
  if (!sweep) return std::nullopt;
  const auto it = sweep->find("model.mixer.E");
  if (it == sweep->end()) return std::nullopt;
  const auto& es = it->second;
  if (es.size() == 2 && es[0].is_number_integer() && es[0].get<int64_t>() == 1 && es[1].is_number_integer() &&
      es[1].get<int64_t>() > 1 && es[1].get<int64_t>() <= (1 << 30))
    return es[1].get<int>();
  return std::nullopt;
}

bool Experiment::consecutive_seeds() const {
  for (size_t i = 1; i < seeds.size(); ++i)
    if (seeds[i] != seeds[0] + i) return false;
  return true;
}

std::vector<std::string> Experiment::describe() const { return describe_grid(variants, sweep.value_or(SweepGrid{})); }

std::vector<std::string> Experiment::fields_set() const { return grid_fields(variants, sweep.value_or(SweepGrid{})); }

}  // namespace proteus::config
