// Seed groups on disk (math.md section 7): the runs of one variant trained with several seeds
// ("seeds" in an experiment; each run's config.json records its "group") are summarised together,
// and compared seed by seed with the baseline group trained beside them. The engine writes the
// summaries when a job's runs are evaluated; `proteus export` writes them for any runs it draws.
//
// RUNS_DIR/groups/GROUP/ holds
//   group.json            members, seeds, the runs left out and why, the mean over seeds with a t interval of per-bucket NLL,
//                         held-out bits per byte and block-use entropy; the baseline group
//                         (core/eval/baseline.hpp) and the paired difference against it when there is one
//   per_position.csv      position_lo, position_hi, mean, lo, hi, n (n = seeds; last row "all")
//   paired_vs_baseline.csv                the group minus its baseline, per seed, t over seeds
//   paired_vs_baseline_s<seed>.csv        one seed's run minus the baseline's, bootstrap over sequences
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "core/config/config.hpp"
#include "core/eval/evaluate.hpp"

namespace proteus::engine {

struct SeedGroupMember {
  std::string run_dir;
  config::RunConfig config;
  eval::EvalReport report;
};

struct SeedGroup {
  std::string name;
  std::filesystem::path runs_folder;     // where its runs are, and its summary goes (groups/NAME)
  std::vector<SeedGroupMember> members;  // sorted by seed, one run per seed
  std::vector<std::string> left_out;     // the group's other runs on disk, each with why (group.json's "left_out")
};

// The seed groups these run directories belong to, in order of first appearance, each built from
// what is on disk: every run in the same runs folder recording the group and evaluated per
// position, whichever command trained it (--seeds 3 after --seeds 1,2 is seeds 1-3), chosen by
// config::choose_seed_group_members (one run per seed; a run differing in more than the seed is
// left out). What is left out, and why, goes to `notes` when given. A group none of whose runs
// can be used has no members. A summary left in those runs folders, or in `runs_folders` (folders
// given whole, whatever runs are left in them), that names a run no longer there is a group too.
std::vector<SeedGroup> find_seed_groups(const std::vector<std::string>& run_dirs,
                                        std::vector<std::string>* notes = nullptr,
                                        const std::vector<std::filesystem::path>& runs_folders = {});

// The baseline group a group is compared with: the group of E = 1 runs most of its members' baselines
// belong to (eval::Baselines, core/eval/baseline.hpp: the same rule the figures and the runs table
// pair by); -1 when none pairs (or the group is not gated, E > 1).
int baseline_group(const std::vector<SeedGroup>& groups, size_t index);

// Writes every group's folder under its runs' runs_dir (the parent of each run directory).
// Returns the folders written. Throws std::exception on a write failure; a group whose runs were
// evaluated differently (other buckets) is skipped with its reason in `notes`. A summary left in
// those runs folders or in `runs_folders` that names runs no longer there is rebuilt from the runs
// that are, or removed when none is left, so no group.json names a run that is gone.
std::vector<std::filesystem::path> write_seed_group_results(const std::vector<std::string>& run_dirs,
                                                           std::vector<std::string>* notes = nullptr,
                                                           const std::vector<std::filesystem::path>& runs_folders = {});

}  // namespace proteus::engine
