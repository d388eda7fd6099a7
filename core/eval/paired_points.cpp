#include "core/eval/paired_points.hpp"

#include <algorithm>
#include <cstdint>
#include <map>

#include "core/config/flat_fields.hpp"
#include "core/config/seed_group_members.hpp"

namespace proteus::eval {

std::string point_key(const config::RunConfig& c) {
  std::string key;
  for (const auto& [path, value] : config::flat_fields(c, config::JsonForm::as_given))
    if (!config::run_identity_field(path)) key += path + "=" + value.dump() + ";";
  return key;
}

std::vector<PairedPoint> paired_points(const std::vector<BaselineCandidate>& candidates) {
  const Baselines baselines(candidates);
  std::vector<PairedPoint> points;
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const int b = baselines.find(candidates[i]);
    if (b < 0) continue;  // not gated, or no baseline pairs
    auto [it, added] = index.emplace(point_key(*candidates[i].config), points.size());
    if (added) points.push_back({});
    auto& p = points[it->second];
    const uint64_t seed = candidates[i].config->seed;
    if (std::any_of(p.gated.begin(), p.gated.end(), [&](size_t g) { return candidates[g].config->seed == seed; }))
      continue;  // a seed listed twice counts once
    p.gated.push_back(i);
    p.baseline.push_back(static_cast<size_t>(b));
  }
  return points;
}

}  // namespace proteus::eval
