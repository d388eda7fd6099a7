#include "core/config/seed_group_members.hpp"

#include <algorithm>
#include <map>

#include "core/common/json_fields.hpp"
#include "core/config/config_json.hpp"
#include "core/config/flat_fields.hpp"

namespace proteus::config {
namespace {

using nlohmann::json;
using Flat = std::map<std::string, json>;

Flat experiment_fields(const RunConfig& c) {
  Flat kept;
  for (auto& [path, value] : flat_fields(c))
    if (!run_identity_field(path)) kept.emplace(path, std::move(value));
  return kept;
}

std::string shown(const json& value) { return value.is_null() ? "absent" : common::clipped(value.dump()); }

}  // namespace

bool run_identity_field(const std::string& path) {
  return path == "name" || path == "group" || path == "seed" || path == "runs_dir" || path == "device" ||
         path == "threads" || path == "train.eval_every" || path == "train.log_every" ||
         path == "train.checkpoint_every";
}

std::string differing_field(const RunConfig& run, const RunConfig& group) {
  const Flat a = experiment_fields(run), b = experiment_fields(group);
  std::string derived;  // named only when no field a user sets differs
  for (const auto& path : config_paths()) {
    const auto x = a.find(path), y = b.find(path);
    const json vx = x == a.end() ? json() : x->second, vy = y == b.end() ? json() : y->second;
    if (vx == vy) continue;
    const std::string named = path + " (" + shown(vx) + " here, " + shown(vy) + " in the group)";
    if (!derived_field(path)) return named;
    if (derived.empty()) derived = named;
  }
  return derived;
}

SeedGroupMembers choose_seed_group_members(const std::string& group, const std::vector<SeedGroupCandidate>& candidates) {
  SeedGroupMembers out;
  if (candidates.empty()) return out;
  // The experiment the group is: the config most candidates share.
  std::vector<Flat> fields;
  for (const auto& c : candidates) fields.push_back(experiment_fields(*c.config));
  size_t reference = 0, best = 0;
  for (size_t i = 0; i < fields.size(); ++i) {
    const auto agree = static_cast<size_t>(std::count(fields.begin(), fields.end(), fields[i]));
    if (agree > best) best = agree, reference = i;
  }
  const std::string prefix = "seed group " + group + ": run ";
  std::map<uint64_t, size_t> by_seed;  // seed -> the candidate that stands for it
  for (size_t i = 0; i < candidates.size(); ++i) {
    const auto& c = candidates[i];
    if (fields[i] != fields[reference]) {
      out.left_out.push_back(prefix + c.name + " left out: it differs from the group in more than the seed: " +
                             differing_field(*c.config, *candidates[reference].config));
    } else if (auto [it, added] = by_seed.emplace(c.config->seed, i); !added) {
      out.left_out.push_back(prefix + c.name + " left out: seed " + std::to_string(c.config->seed) +
                             " is counted once (run " + candidates[it->second].name + " has it)");
    }
  }
  for (const auto& [seed, index] : by_seed) out.kept.push_back(index);
  return out;
}

}  // namespace proteus::config
