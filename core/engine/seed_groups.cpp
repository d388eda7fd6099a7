#include "core/engine/seed_groups.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>

#include "core/common/atomic_file.hpp"
#include "core/common/folder_walk.hpp"
#include "core/common/json_read.hpp"
#include "core/config/seed_group_members.hpp"
#include "core/eval/baseline.hpp"
#include "core/eval/comparison.hpp"
#include "core/eval/seed_group_summary.hpp"
#include "core/eval/statistics.hpp"
#include "core/runs/eval_files.hpp"
#include "core/runs/run_dir.hpp"
#include "core/runs/staged_folder.hpp"

namespace proteus::engine {
namespace {

using nlohmann::json;

constexpr common::JsonLimits kGroupFileLimits{size_t{64} << 20, 64, "a seed group's summary"};

std::string csv_text(const eval::BucketTable& t, int seq_len) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& r : eval::bucket_table_rows(t, seq_len)) {
    std::vector<std::string> row;
    for (double x : r) row.push_back(runs::shortest_number(x));
    rows.push_back(std::move(row));
  }
  return runs::format_csv(eval::bucket_table_header(), rows);
}

json table_json(const eval::BucketTable& t) {
  json buckets = json::array();
  for (size_t k = 0; k < t.value.size(); ++k) {
    json b = runs::interval_json(t.value[k]);
    b["position_lo"] = t.bucket_lo[k];
    b["position_hi"] = t.bucket_hi[k];
    buckets.push_back(b);
  }
  return {{"buckets", buckets}, {"all", runs::interval_json(t.overall)}};
}

std::vector<eval::PerPositionResult> per_position_of(const SeedGroup& g) {
  std::vector<eval::PerPositionResult> out;
  for (const auto& m : g.members) out.push_back(*m.report.per_position);
  return out;
}

constexpr const char* kGroupsFolder = "groups";

// A run folder as given, without a trailing separator ("runs/x/" is the run x of "runs"), and with
// a parent to walk ("x" is "./x": its runs folder is the working folder, never "").
std::filesystem::path as_folder(const std::string& dir) {
  std::filesystem::path p = std::filesystem::path(dir).lexically_normal();
  if (!p.has_filename()) p = p.parent_path();
  return p.parent_path().empty() ? std::filesystem::path(".") / p : p;
}

struct RunOnDisk {
  std::filesystem::path dir;
  config::RunConfig config;
};

// The run's config, or nothing for a folder that is not a readable run (the runs browser's to report).
std::optional<RunOnDisk> read_run(const std::filesystem::path& dir) {
  try {
    return RunOnDisk{dir, runs::RunReader::open(dir).run_config()};
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// Every readable run in a runs folder; a path the walk cannot read is named in `notes`.
std::vector<RunOnDisk> runs_in(const std::filesystem::path& folder, std::vector<std::string>* notes) {
  std::vector<RunOnDisk> out;
  for (const auto& name : runs::list_runs(folder, notes))
    if (auto run = read_run(folder / name)) out.push_back(std::move(*run));
  return out;
}

// The runs folders of these groups and the folders given, each once: where a summary naming a gone
// run may be left (a folder whose grouped runs are all gone has no group to lead to it).
std::vector<std::filesystem::path> runs_folders_of(const std::vector<SeedGroup>& groups,
                                                   const std::vector<std::filesystem::path>& given) {
  std::vector<std::filesystem::path> out;
  for (const auto& g : groups)
    if (std::find(out.begin(), out.end(), g.runs_folder) == out.end()) out.push_back(g.runs_folder);
  for (const auto& f : given) {
    auto folder = f.lexically_normal();  // "runs/" and "./runs" are the "runs" its runs name
    if (!folder.has_filename()) folder = folder.parent_path();
    if (folder.empty()) folder = ".";
    if (std::find(out.begin(), out.end(), folder) == out.end()) out.push_back(folder);
  }
  return out;
}

// How many of the members groups/NAME/group.json lists still have their run folder, and how many
// are gone; an unreadable summary counts as naming one gone run (it says nothing true).
struct SummaryMembers {
  size_t present = 0, gone = 0;
};

SummaryMembers summary_members(const std::filesystem::path& summary) {
  SummaryMembers n;
  try {
    const json j = common::read_json_file(summary / "group.json", kGroupFileLimits);
    if (!j.is_object() || !j.contains("members") || !j["members"].is_array()) return {0, 1};
    for (const auto& m : j["members"]) {
      const bool there = m.is_string() && common::holds_regular_file(summary.parent_path().parent_path() /
                                                                         m.get<std::string>(), runs::kConfigFile);
      ++(there ? n.present : n.gone);
    }
  } catch (const std::exception&) {
    return {0, 1};
  }
  return n;
}

// The group's members among a folder's runs: evaluated per position, chosen one per seed among
// the runs of one experiment; every run left out is said in `left_out`.
std::vector<SeedGroupMember> members_of(const std::string& group, const std::vector<RunOnDisk>& runs,
                                        std::vector<std::string>& left_out) {
  std::vector<SeedGroupMember> evaluated;
  for (const auto& r : runs) {
    if (r.config.group != group) continue;
    SeedGroupMember m{r.dir.string(), r.config, {}};
    try {
      m.report = runs::read_eval_report(runs::RunReader::open(r.dir));
    } catch (const std::exception& e) {
      left_out.push_back("seed group " + group + ": run " + r.dir.filename().string() + " left out: " + e.what());
      continue;
    }
    if (m.report.per_position) evaluated.push_back(std::move(m));
  }
  std::vector<config::SeedGroupCandidate> candidates;
  for (const auto& m : evaluated) candidates.push_back({std::filesystem::path(m.run_dir).filename().string(), &m.config});
  const auto chosen = config::choose_seed_group_members(group, candidates);
  left_out.insert(left_out.end(), chosen.left_out.begin(), chosen.left_out.end());
  std::vector<SeedGroupMember> members;
  for (size_t i : chosen.kept) members.push_back(evaluated[i]);
  return members;
}

}  // namespace

std::vector<SeedGroup> find_seed_groups(const std::vector<std::string>& run_dirs, std::vector<std::string>* notes,
                                        const std::vector<std::filesystem::path>& runs_folders) {
  std::vector<SeedGroup> groups;
  std::map<std::filesystem::path, std::vector<RunOnDisk>> folders;  // runs folder -> its runs, read once
  for (const auto& given : run_dirs) {
    const auto run = read_run(as_folder(given));
    if (!run || run->config.group.empty()) continue;
    const auto folder = run->dir.parent_path();
    if (std::none_of(groups.begin(), groups.end(),
                     [&](const SeedGroup& g) { return g.name == run->config.group && g.runs_folder == folder; }))
      groups.push_back(SeedGroup{run->config.group, folder, {}, {}});
  }
  // A summary no given run belongs to is rebuilt too when it names a run that is gone.
  for (const auto& folder : runs_folders_of(groups, runs_folders))
    for (const auto& summary : common::list_subfolders(folder / kGroupsFolder, notes)) {
      const std::string name = summary.filename().string();
      const bool known = std::any_of(groups.begin(), groups.end(),
                                     [&](const SeedGroup& g) { return g.name == name && g.runs_folder == folder; });
      if (!known && summary_members(summary).gone > 0) groups.push_back(SeedGroup{name, folder, {}, {}});
    }
  for (auto& g : groups) {
    auto it = folders.find(g.runs_folder);
    if (it == folders.end()) it = folders.emplace(g.runs_folder, runs_in(g.runs_folder, notes)).first;
    g.members = members_of(g.name, it->second, g.left_out);
    if (notes) notes->insert(notes->end(), g.left_out.begin(), g.left_out.end());
  }
  return groups;
}

namespace {

// Every group's members as the pairing rule sees them, and where each is (group, member).
struct GroupMembers {
  std::vector<eval::BaselineCandidate> runs;
  std::vector<std::pair<size_t, size_t>> at;
};

GroupMembers members_of_groups(const std::vector<SeedGroup>& groups) {
  GroupMembers out;
  for (size_t g = 0; g < groups.size(); ++g)
    for (size_t m = 0; m < groups[g].members.size(); ++m) {
      const auto& member = groups[g].members[m];
      out.runs.push_back({std::filesystem::path(member.run_dir).filename().string(), &member.config});
      out.at.emplace_back(g, m);
    }
  return out;
}

// A group's members' baselines (eval::Baselines::find: null where none pairs) and the group most of
// them belong to, the one its summary names (-1 when none pairs).
struct GroupBaseline {
  int group = -1;
  std::vector<const SeedGroupMember*> partner;
};

GroupBaseline baseline_of(const std::vector<SeedGroup>& groups, size_t index, const GroupMembers& all,
                          const eval::Baselines& baselines) {
  GroupBaseline out;
  std::vector<int> found;
  for (const auto& m : groups[index].members) {
    found.push_back(baselines.find({std::filesystem::path(m.run_dir).filename().string(), &m.config}));
    const int f = found.back();
    out.partner.push_back(f < 0 ? nullptr : &groups[all.at[f].first].members[all.at[f].second]);
  }
  const std::string name = baselines.baseline_group(found, groups[index].name);
  for (int f : found)
    if (f >= 0 && groups[all.at[f].first].name == name) {
      out.group = static_cast<int>(all.at[f].first);
      break;
    }
  return out;
}

}  // namespace

int baseline_group(const std::vector<SeedGroup>& groups, size_t index) {
  const auto all = members_of_groups(groups);
  return baseline_of(groups, index, all, eval::Baselines(all.runs)).group;
}

namespace {

// group.json without the baseline's part: who the members are and the mean over their seeds.
json summary_json(const SeedGroup& g, const eval::GroupSummary& summary, const std::vector<eval::PerPositionResult>& runs) {
  json members = json::array(), seeds = json::array();
  for (const auto& m : g.members) {
    members.push_back(std::filesystem::path(m.run_dir).filename().string());
    seeds.push_back(m.config.seed);
  }
  json j = {{"group", g.name},
            {"members", members},
            {"seeds", seeds},
            {"per_position", table_json(summary.nll)},
            {"per_position_seq_len", runs.front().seq_len},
            {"train_len", runs.front().train_len},
            {"heldout_bits_per_byte", runs::interval_json(summary.bits_per_byte)},
            {"left_out", g.left_out}};  // the runs of the group on disk that are not counted, and why
  if (summary.block_use_entropy.empty()) {
    j["block_use_entropy"] = "not applicable";
  } else {
    json e = json::array();
    for (size_t p = 0; p < summary.block_use_positions.size(); ++p) {
      json x = runs::interval_json(summary.block_use_entropy[p]);
      x["position"] = summary.block_use_positions[p];
      e.push_back(x);
    }
    j["block_use_entropy"] = e;
  }
  return j;
}

// One seed's run minus its baseline's on the same sequences (bootstrap): its CSV and its line of
// group.json's paired_per_seed; a pair evaluated on other sequences is noted instead.
void write_seed_pair(const std::string& group, const SeedGroupMember& m, const SeedGroupMember& o,
                     const std::filesystem::path& dir, int seq_len, json& per_seed, std::vector<std::string>* notes) {
  try {
    const auto t = eval::paired_comparison(*m.report.per_position, *o.report.per_position);
    const std::string file = "paired_vs_baseline_s" + std::to_string(m.config.seed) + ".csv";
    common::write_file_atomically(dir / file, csv_text(t, seq_len));
    per_seed.push_back({{"seed", m.config.seed},
                        {"baseline_run", std::filesystem::path(o.run_dir).filename().string()},
                        {"file", file},
                        {"all", runs::interval_json(t.overall)}});
  } catch (const std::invalid_argument& e) {
    if (notes) notes->push_back("seed group " + group + ", seed " + std::to_string(m.config.seed) + ": " + e.what());
  }
}

// The group minus its baseline over the seeds that pair (partner[i]: member i's baseline run, or
// null; most are members of `base`): t over seeds, and seed by seed.
void write_paired(const SeedGroup& g, const SeedGroup& base, const std::vector<const SeedGroupMember*>& partner,
                  const std::filesystem::path& dir, int seq_len, json& j, std::vector<std::string>* notes) {
  std::vector<eval::PerPositionResult> mine, theirs;
  std::vector<eval::SeedGroupValue> overall, heldout;  // the group's value and its difference, per paired seed
  json per_seed = json::array();
  for (size_t i = 0; i < g.members.size(); ++i) {
    if (!partner[i]) continue;
    const auto &m = g.members[i], &o = *partner[i];
    const auto &a = *m.report.per_position, &b = *o.report.per_position;
    mine.push_back(a);
    theirs.push_back(b);
    overall.push_back({m.config.seed, a.mean_nll, a.mean_nll - b.mean_nll});
    // Held-out bits per byte within the training length, the group minus its baseline.
    if (a.train_len > 0 && b.train_len == a.train_len)
      heldout.push_back({m.config.seed, a.heldout_bits_per_byte().mean,
                         a.heldout_bits_per_byte().mean - b.heldout_bits_per_byte().mean});
    write_seed_pair(g.name, m, o, dir, seq_len, per_seed, notes);
  }
  j["baseline"] = base.name;
  j["paired_per_seed"] = per_seed;
  if (mine.empty()) return;
  try {
    const auto t = eval::paired_group_comparison(mine, theirs);
    common::write_file_atomically(dir / "paired_vs_baseline.csv", csv_text(t, seq_len));
    j["paired_vs_baseline"] = table_json(t);
    // How far this design sees: the smallest overall effect it detects, and the seeds' signs.
    const auto summary = eval::summarise_seed_group(overall);
    auto& all = j["paired_vs_baseline"]["all"];
    all["detectable_effect"] = summary.detectable_effect;  // NaN (null) below two seeds
    all["seeds_better"] = summary.seeds_better;
    if (heldout.size() == mine.size())
      j["heldout_bits_per_byte_difference"] = runs::interval_json(eval::summarise_seed_group(heldout).effect);
  } catch (const std::invalid_argument& e) {
    if (notes) notes->push_back("seed group " + g.name + ": " + e.what());
  }
}

// A group none of whose runs can be used keeps no summary once every run it names is gone: one left
// from before would name runs that are not there. A summary whose runs are there but could not be
// read now (a folder without permission) is left as it is, and said.
void remove_summary(const SeedGroup& g, std::vector<std::string>* notes) {
  const auto dir = g.runs_folder / kGroupsFolder / g.name;
  std::error_code ec;
  if (!std::filesystem::exists(dir, ec)) return;
  if (summary_members(dir).present > 0) {
    if (notes) notes->push_back("seed group " + g.name + ": none of its runs could be used now; its summary " + dir.string() +
                                " is left as it was");
    return;
  }
  std::filesystem::remove_all(dir, ec);
  if (notes)
    notes->push_back("seed group " + g.name + ": no evaluated run of it is left; " +
                     (ec ? "its old summary " + dir.string() + " could not be removed (" + ec.message() + ")"
                         : "its old summary " + dir.string() + " was removed"));
}

}  // namespace

std::vector<std::filesystem::path> write_seed_group_results(const std::vector<std::string>& run_dirs,
                                                           std::vector<std::string>* notes,
                                                           const std::vector<std::filesystem::path>& runs_folders) {
  const auto groups = find_seed_groups(run_dirs, notes, runs_folders);
  const auto all = members_of_groups(groups);
  const eval::Baselines baselines(all.runs);
  std::vector<std::filesystem::path> written;
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    const SeedGroup& g = groups[gi];
    if (g.members.empty()) {
      remove_summary(g, notes);
      continue;
    }
    const auto runs = per_position_of(g);
    std::vector<const eval::BlockUseResult*> use;
    for (const auto& m : g.members) use.push_back(m.report.block_use ? &*m.report.block_use : nullptr);
    eval::GroupSummary summary;
    try {
      summary = eval::summarise_group(runs, use);
    } catch (const std::invalid_argument& e) {
      if (notes) notes->push_back("seed group " + g.name + ": " + e.what());
      continue;
    }
    const int seq_len = runs.front().seq_len;
    const auto final_dir = g.runs_folder / kGroupsFolder / g.name;
    // Written beside the old summary and swapped in whole: a failure or a kill midway leaves the old
    // one (or none), never a folder without its group.json.
    runs::StagedFolder staged(final_dir.parent_path(), g.name);
    const auto dir = staged.path();
    json j = summary_json(g, summary, runs);
    common::write_file_atomically(dir / "per_position.csv", csv_text(summary.nll, seq_len));
    const auto base = baseline_of(groups, gi, all, baselines);
    if (base.group >= 0) {
      write_paired(g, groups[base.group], base.partner, dir, seq_len, j, notes);
    } else {
      j["baseline"] = nullptr;
    }
    common::write_file_atomically(dir / "group.json", j.dump(2) + "\n");
    staged.commit_replacing(g.name);
    written.push_back(final_dir);
  }
  return written;
}

}  // namespace proteus::engine
