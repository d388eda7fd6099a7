#include "core/eval/seed_group_summary.hpp"

#include <cmath>

namespace proteus::eval {

SeedGroupSummary summarise_seed_group(const std::vector<SeedGroupValue>& members) {
  SeedGroupSummary s;
  std::vector<double> values, effects;
  for (const auto& m : members) {
    s.seeds.push_back(m.seed);
    values.push_back(m.value);  // t_interval leaves NaN out
    if (std::isnan(m.effect)) continue;
    effects.push_back(m.effect);
    s.seeds_better += m.effect < 0;
  }
  s.mean = t_interval(values);
  s.effect = t_interval(effects);
  s.detectable_effect = detectable_effect(effects);
  return s;
}

}  // namespace proteus::eval
