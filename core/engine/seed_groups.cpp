#include "core/engine/seed_groups.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "core/common/atomic_file.hpp"
#include "core/eval/comparison.hpp"
#include "core/eval/statistics.hpp"
#include "core/runs/eval_files.hpp"
#include "core/runs/run_dir.hpp"
#include "core/runs/staged_folder.hpp"

namespace proteus::engine {
namespace {

using nlohmann::json;

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

const config::RunConfig& first_config(const SeedGroup& g) { return g.members.front().config; }

}  // namespace

std::vector<SeedGroup> find_seed_groups(const std::vector<std::string>& run_dirs) {
  std::vector<SeedGroup> groups;
  std::map<std::string, size_t> index;  // group name -> position in groups
  for (const auto& dir : run_dirs) {
    SeedGroupMember m;
    try {
      const auto reader = runs::RunReader::open(dir);
      m.config = reader.run_config();
      if (m.config.group.empty()) continue;
      m.report = runs::read_eval_report(reader);
    } catch (const std::exception&) {
      continue;  // an unreadable run is the runs browser's to report, not a group's
    }
    if (!m.report.per_position) continue;
    m.run_dir = dir;
    const std::string name = m.config.group;
    auto [it, added] = index.emplace(name, groups.size());
    if (added) groups.push_back(SeedGroup{name, {}});
    auto& members = groups[it->second].members;
    // A run listed twice (the same directory) counts once.
    if (std::none_of(members.begin(), members.end(), [&](const SeedGroupMember& x) { return x.run_dir == dir; }))
      members.push_back(std::move(m));
  }
  for (auto& g : groups)
    std::sort(g.members.begin(), g.members.end(),
              [](const SeedGroupMember& a, const SeedGroupMember& b) { return a.config.seed < b.config.seed; });
  return groups;
}

int baseline_group(const std::vector<SeedGroup>& groups, size_t index) {
  const auto& me = first_config(groups[index]);
  int found = -1;
  for (size_t i = 0; i < groups.size(); ++i) {
    if (i == index) continue;
    const auto& c = first_config(groups[i]);
    const bool comparable = c.model.mixer.type == me.model.mixer.type && c.model.mixer.E == 1 &&
                            c.data.seq_len == me.data.seq_len &&
                            groups[i].members.front().report.per_position->seq_len ==
                                groups[index].members.front().report.per_position->seq_len;
    if (!comparable) continue;
    if (me.model.mixer.E == 1 && me.model.mixer.normalize == c.model.mixer.normalize) return -1;  // itself a baseline
    const bool named = groups[i].name.size() >= 8 && groups[i].name.ends_with("baseline");
    if (found < 0 || named) found = static_cast<int>(i);
    if (named) break;
  }
  return found;
}

std::vector<std::filesystem::path> write_seed_group_results(const std::vector<std::string>& run_dirs,
                                                           std::vector<std::string>* notes) {
  const auto groups = find_seed_groups(run_dirs);
  std::vector<std::filesystem::path> written;
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    const SeedGroup& g = groups[gi];
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
    const auto final_dir = std::filesystem::path(g.members.front().run_dir).parent_path() / "groups" / g.name;
    // Written beside the old summary and swapped in whole: a failure or a kill midway leaves the old
    // one (or none), never a folder without its group.json.
    runs::StagedFolder staged(final_dir.parent_path(), g.name);
    const auto dir = staged.path();

    json members = json::array(), seeds = json::array();
    for (const auto& m : g.members) {
      members.push_back(std::filesystem::path(m.run_dir).filename().string());
      seeds.push_back(m.config.seed);
    }
    json j = {{"group", g.name},
              {"members", members},
              {"seeds", seeds},
              {"per_position", table_json(summary.nll)},
              {"per_position_seq_len", seq_len},
              {"train_len", runs.front().train_len},
              {"heldout_bits_per_byte", runs::interval_json(summary.bits_per_byte)}};
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
    common::write_file_atomically(dir / "per_position.csv", csv_text(summary.nll, seq_len));

    const int b = baseline_group(groups, gi);
    if (b >= 0) {
      // Seed by seed: only the seeds both groups trained.
      std::vector<eval::PerPositionResult> mine, theirs;
      json per_seed = json::array();
      for (const auto& m : g.members)
        for (const auto& o : groups[b].members)
          if (o.config.seed == m.config.seed) {
            mine.push_back(*m.report.per_position);
            theirs.push_back(*o.report.per_position);
            try {
              const auto t = eval::paired_comparison(*m.report.per_position, *o.report.per_position);
              const std::string file = "paired_vs_baseline_s" + std::to_string(m.config.seed) + ".csv";
              common::write_file_atomically(dir / file, csv_text(t, seq_len));
              per_seed.push_back({{"seed", m.config.seed}, {"file", file}, {"all", runs::interval_json(t.overall)}});
            } catch (const std::invalid_argument& e) {
              if (notes) notes->push_back("seed group " + g.name + ", seed " + std::to_string(m.config.seed) + ": " + e.what());
            }
          }
      j["baseline"] = groups[b].name;
      if (!mine.empty()) {
        try {
          const auto t = eval::paired_group_comparison(mine, theirs);
          common::write_file_atomically(dir / "paired_vs_baseline.csv", csv_text(t, seq_len));
          j["paired_vs_baseline"] = table_json(t);
          // How far this design sees: the smallest overall effect it detects, and the seeds' signs.
          std::vector<double> overall;
          for (size_t i = 0; i < mine.size(); ++i) overall.push_back(mine[i].mean_nll - theirs[i].mean_nll);
          auto& all = j["paired_vs_baseline"]["all"];
          all["detectable_effect"] = eval::detectable_effect(overall);  // NaN (null) below two seeds
          all["seeds_better"] = std::count_if(overall.begin(), overall.end(), [](double d) { return d < 0; });
          // Held-out bits per byte within the training length, the group minus its baseline per seed.
          std::vector<double> d;
          for (size_t i = 0; i < mine.size(); ++i)
            if (mine[i].train_len > 0 && theirs[i].train_len == mine[i].train_len)
              d.push_back(mine[i].heldout_bits_per_byte().mean - theirs[i].heldout_bits_per_byte().mean);
          if (d.size() == mine.size()) j["heldout_bits_per_byte_difference"] = runs::interval_json(eval::t_interval(d));
        } catch (const std::invalid_argument& e) {
          if (notes) notes->push_back("seed group " + g.name + ": " + e.what());
        }
      }
      j["paired_per_seed"] = per_seed;
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
