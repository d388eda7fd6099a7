// A gated run's E = 1 baseline (math.md section 7): which fields the two may differ in, and the one
// rule that picks a baseline among several. The seed-group summaries (core/engine), the
// gating-effect maps and the forest plot (core/figures) and the runs table (app/gui/state) all pair
// here, so no two of them compare a gated run with different runs.
//
// The rule: a gated run's baseline is an E = 1 memory run with the same seed whose config equals
// the gated run's on every field but those naming a run (config::run_identity_field) and those the
// schedule owns (schedule_owned_field). Of several, the one from the same experiment: the one whose
// seed group (its name where it has none) shares the longest prefix with the gated run's, then the
// one whose name sorts first, then the first given. A gated seed group pairs member by member by the
// same rule; its baseline group, the name its summaries and rows give, is the group most of its
// members' baselines belong to (ties as for one run).
#pragma once
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "core/config/config.hpp"

namespace proteus::eval {

// The fields the schedule owns (their role's schedule_owned trait, config/field_role.hpp):
// model.mixer.E, N, schedule.*, normalize, form and block_axis. With
// E = 1 each gives the ungated model bit for bit (math.md sections 2, 3 and 8), so one baseline
// serves every value of them; and a trained run's weights serve every value, so an evaluation may
// change them (engine::is_evaluation_path).
bool schedule_owned_field(const std::string& dotted_path);

// A gated run: a memory mixer with E > 1. A baseline: a memory mixer with E = 1.
bool gated_run(const config::RunConfig& c);
bool baseline_run(const config::RunConfig& c);

// Every config field (as given) but the run's identity and the schedule's own fields: equal for a
// gated run and every baseline it may pair with. The seed is not in it.
std::string baseline_pairing_key(const config::RunConfig& c);

// A run as the rule sees it: its name (its folder's, as the figures and the table name it) and config.
struct BaselineCandidate {
  std::string name;
  const config::RunConfig* config = nullptr;  // null: never pairs
};

// The rule over one list of runs, their keys computed once: for a folder of runs, a figure's runs
// or the members of every seed group.
class Baselines {
 public:
  explicit Baselines(std::vector<BaselineCandidate> candidates);

  // The index of `gated`'s baseline among the candidates; -1 when it is not a gated run or none pairs.
  int find(const BaselineCandidate& gated) const;

  // The seed group (config.group) most of these baselines belong to (indices from find; -1 is
  // skipped), ties to the longer prefix shared with `gated_group`, then the name sorting first;
  // "" when none is given.
  std::string baseline_group(const std::vector<int>& baselines, const std::string& gated_group) const;

 private:
  // i ranks before j as the baseline of a run of `gated_family` (the tie-break of the rule).
  bool ranks_before(const std::string& gated_family, int i, int j) const;
  std::vector<BaselineCandidate> candidates_;
  std::map<std::string, std::vector<int>> by_key_;  // pairing key and seed -> the baselines with it
};

// The rule for one gated run over one list (Baselines(candidates).find(gated)).
int find_baseline(const BaselineCandidate& gated, const std::vector<BaselineCandidate>& candidates);

}  // namespace proteus::eval
