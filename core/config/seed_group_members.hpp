// Which runs make one seed group: the runs of one experiment that differ only by seed. A run that
// differs in anything else (an E, a rule, a length) is not one more seed of the group, and a seed
// trained twice is one seed, not two: the group summaries and the figures both choose their
// members here, so neither reports an n it does not have.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "core/config/config.hpp"

namespace proteus::config {

struct SeedGroupCandidate {
  std::string name;  // the run's folder name, as a note names it
  const RunConfig* config = nullptr;
};

struct SeedGroupMembers {
  std::vector<size_t> kept;            // indices into the candidates: one run per seed, by seed
  std::vector<std::string> left_out;   // "seed group G: run R left out: ..." for every other one
};

// The group's members among the candidates: those whose config agrees with the one most of them
// share (ties: the earliest given), run identity fields aside (run_identity_field: the field's role,
// field_role.hpp), each seed once (the earliest given). A run left out for its config is named
// with the first field a user sets in which it differs (differing_fields in schema order), as
// "model.mixer.E (16 here, 8 in the group)".
SeedGroupMembers choose_seed_group_members(const std::string& group, const std::vector<SeedGroupCandidate>& candidates);

}  // namespace proteus::config
