#include "core/config/seed_group_members.hpp"

#include <algorithm>
#include <map>

#include "core/common/json_fields.hpp"
#include "core/config/flat_fields.hpp"

namespace proteus::config {
namespace {

using nlohmann::json;

FlatConfig experiment_fields(const RunConfig& c) {
  FlatConfig kept;
  for (auto& [path, value] : flat_fields(c))
    if (!run_identity_field(path)) kept.emplace(path, std::move(value));
  return kept;
}

std::string shown(const FlatConfig& f, const std::string& path) {
  const auto it = f.find(path);
  return it == f.end() ? "absent" : common::clipped(it->second.dump());
}

// "model.mixer.E (16 here, 8 in the group)": the first field a user sets in which they differ.
std::string first_difference(const FlatConfig& run, const FlatConfig& group) {
  const auto fields = differing_fields<FlatConfig>({&run, &group}, {.order = DifferingOptions::Order::schema});
  if (fields.empty()) return "";
  const std::string& path = fields.front();
  return path + " (" + shown(run, path) + " here, " + shown(group, path) + " in the group)";
}

}  // namespace

SeedGroupMembers choose_seed_group_members(const std::string& group, const std::vector<SeedGroupCandidate>& candidates) {
  SeedGroupMembers out;
  if (candidates.empty()) return out;
  // The experiment the group is: the config most candidates share.
  std::vector<FlatConfig> fields;
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
                             first_difference(fields[i], fields[reference]));
    } else if (auto [it, added] = by_seed.emplace(c.config->seed, i); !added) {
      out.left_out.push_back(prefix + c.name + " left out: seed " + std::to_string(c.config->seed) +
                             " is counted once (run " + candidates[it->second].name + " has it)");
    }
  }
  for (const auto& [seed, index] : by_seed) out.kept.push_back(index);
  return out;
}

}  // namespace proteus::config
