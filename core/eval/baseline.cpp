#include "core/eval/baseline.hpp"

#include <algorithm>

#include "core/config/field_role.hpp"
#include "core/config/flat_fields.hpp"

namespace proteus::eval {
namespace {

// Which experiment a run came from, as far as names say: its seed group, else its own name.
std::string family(const BaselineCandidate& r) { return r.config->group.empty() ? r.name : r.config->group; }

size_t shared_prefix(const std::string& a, const std::string& b) {
  const size_t n = std::min(a.size(), b.size());
  return static_cast<size_t>(std::mismatch(a.begin(), a.begin() + n, b.begin()).first - a.begin());
}

std::string seeded_key(const config::RunConfig& c) { return baseline_pairing_key(c) + "#" + std::to_string(c.seed); }

// a ranks before b as the family's baseline group: the longer shared prefix, then the name sorting first.
bool family_before(const std::string& gated_family, const std::string& a, const std::string& b) {
  const size_t pa = shared_prefix(gated_family, a), pb = shared_prefix(gated_family, b);
  return pa != pb ? pa > pb : a < b;
}

}  // namespace

bool schedule_owned_field(const std::string& p) { return config::role_traits(config::field_role(p)).schedule_owned; }

bool gated_run(const config::RunConfig& c) { return c.model.mixer.type == config::MixerType::memory && c.model.mixer.E > 1; }

bool baseline_run(const config::RunConfig& c) {
  return c.model.mixer.type == config::MixerType::memory && c.model.mixer.E == 1;
}

std::string baseline_pairing_key(const config::RunConfig& c) {
  std::string key;
  for (const auto& [path, value] : config::flat_fields(c, config::JsonForm::as_given))
    if (!config::run_identity_field(path) && !schedule_owned_field(path)) key += path + "=" + value.dump() + ";";
  return key;
}

Baselines::Baselines(std::vector<BaselineCandidate> candidates) : candidates_(std::move(candidates)) {
  for (size_t i = 0; i < candidates_.size(); ++i)
    if (candidates_[i].config && baseline_run(*candidates_[i].config))
      by_key_[seeded_key(*candidates_[i].config)].push_back(static_cast<int>(i));
}

bool Baselines::ranks_before(const std::string& gated_family, int i, int j) const {
  const auto &a = candidates_[i], &b = candidates_[j];
  const std::string fa = family(a), fb = family(b);
  if (fa != fb) return family_before(gated_family, fa, fb);
  return a.name != b.name ? a.name < b.name : i < j;
}

int Baselines::find(const BaselineCandidate& gated) const {
  if (!gated.config || !gated_run(*gated.config)) return -1;
  const auto it = by_key_.find(seeded_key(*gated.config));
  if (it == by_key_.end()) return -1;
  const std::string mine = family(gated);
  int best = -1;
  for (int i : it->second)
    if (best < 0 || ranks_before(mine, i, best)) best = i;
  return best;
}

std::string Baselines::baseline_group(const std::vector<int>& baselines, const std::string& gated_group) const {
  std::map<std::string, int> votes;  // baseline group -> how many of the baselines are in it
  for (int b : baselines)
    if (b >= 0) ++votes[candidates_[b].config->group];
  if (votes.empty()) return "";
  auto chosen = votes.begin();
  for (auto v = votes.begin(); v != votes.end(); ++v)
    if (v->second > chosen->second || (v->second == chosen->second && family_before(gated_group, v->first, chosen->first)))
      chosen = v;
  return chosen->first;
}

int find_baseline(const BaselineCandidate& gated, const std::vector<BaselineCandidate>& candidates) {
  return Baselines(candidates).find(gated);
}

}  // namespace proteus::eval
