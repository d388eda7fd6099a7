// Seed groups: the group summaries the engine writes (RUNS_DIR/groups/GROUP/). Runs are made
// without training: tiny models of different seeds evaluated per position, written as run directories.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "core/backend/cpu/cpu_backend.hpp"
#include "core/config/config_json.hpp"
#include "core/engine/seed_groups.hpp"
#include "core/eval/per_position.hpp"
#include "core/eval/statistics.hpp"
#include "core/runs/eval_files.hpp"
#include "core/runs/run_dir.hpp"
#include "tests/support/seed_group_runs.hpp"
#include "tests/support/temp_dir.hpp"

namespace {

using namespace proteus;

// A run directory holding the per-position evaluation of a fresh model of this config's seed.
std::string make_run(const std::filesystem::path& runs_dir, const config::RunConfig& c,
                     const std::vector<std::vector<int32_t>>& seqs) {
  auto be = backend::make_cpu_backend<float>(1);
  model::Model<float> m(c.model, c.data.seq_len, *be, c.seed);
  eval::EvalReport report;
  report.per_position = eval::per_position_loss(m, seqs, 4, 8, 8);
  auto writer = runs::RunWriter::create(runs_dir, c.name, config::to_json(c, config::JsonForm::as_given));
  runs::write_eval_report(writer, report);
  return writer.dir().string();
}

TEST(SeedGroups, SummariesAndPairedDifferencesAreWrittenPerGroup) {
  test_support::TempDir tmp;
  const auto seqs = test_support::random_sequences(12, 24, 1);
  std::vector<std::string> dirs;
  for (uint64_t s : {1, 2, 3}) dirs.push_back(make_run(tmp.path(), test_support::seed_group_member("x-baseline", 1, s), seqs));
  for (uint64_t s : {1, 2, 3}) dirs.push_back(make_run(tmp.path(), test_support::seed_group_member("x-proteus", 4, s), seqs));

  const auto groups = engine::find_seed_groups(dirs);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(engine::baseline_group(groups, 0), -1) << "the E = 1 group is itself the baseline";
  EXPECT_EQ(engine::baseline_group(groups, 1), 0);

  std::vector<std::string> notes;
  const auto written = engine::write_seed_group_results(dirs, &notes);
  EXPECT_TRUE(notes.empty()) << notes.front();
  ASSERT_EQ(written.size(), 2u);
  const auto group_dir = tmp.path() / "groups" / "x-proteus";
  for (const char* f : {"group.json", "per_position.csv", "paired_vs_baseline.csv", "paired_vs_baseline_s1.csv",
                        "paired_vs_baseline_s2.csv", "paired_vs_baseline_s3.csv"})
    EXPECT_TRUE(std::filesystem::exists(group_dir / f)) << f;
  EXPECT_FALSE(std::filesystem::exists(tmp.path() / "groups" / "x-baseline" / "paired_vs_baseline.csv"));

  std::ifstream in(group_dir / "group.json");
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j.at("baseline"), "x-baseline");
  EXPECT_EQ(j.at("seeds"), nlohmann::json::array({1, 2, 3}));
  // The group's mean per bucket is the mean of its runs' bucket means, inside its interval.
  std::vector<eval::PerPositionResult> members;
  for (size_t i = 3; i < 6; ++i) members.push_back(*runs::read_eval_report(runs::RunReader::open(dirs[i])).per_position);
  const auto& buckets = j.at("per_position").at("buckets");
  ASSERT_EQ(buckets.size(), members[0].bucket_nll.size());
  for (size_t k = 0; k < buckets.size(); ++k) {
    const double mean = (members[0].bucket_nll[k] + members[1].bucket_nll[k] + members[2].bucket_nll[k]) / 3;
    EXPECT_NEAR(buckets[k].at("mean").get<double>(), mean, 1e-12);
    EXPECT_LE(buckets[k].at("lo").get<double>(), mean);
    EXPECT_GE(buckets[k].at("hi").get<double>(), mean);
    EXPECT_EQ(buckets[k].at("n"), 3);
  }
  // The paired difference of seed 2 over every position is that run's mean NLL minus the baseline's.
  const auto base2 = *runs::read_eval_report(runs::RunReader::open(dirs[1])).per_position;
  const auto per_seed = j.at("paired_per_seed");
  ASSERT_EQ(per_seed.size(), 3u);
  EXPECT_NEAR(per_seed[1].at("all").at("mean").get<double>(), members[1].mean_nll - base2.mean_nll, 1e-9);
  // The design's reach: the detectable effect of these three paired differences, and their signs.
  std::vector<double> overall;
  int better = 0;
  for (size_t i = 0; i < 3; ++i) {
    const auto base = *runs::read_eval_report(runs::RunReader::open(dirs[i])).per_position;
    overall.push_back(members[i].mean_nll - base.mean_nll);
    better += overall.back() < 0;
  }
  const auto& all = j.at("paired_vs_baseline").at("all");
  EXPECT_NEAR(all.at("detectable_effect").get<double>(), eval::detectable_effect(overall), 1e-12);
  EXPECT_GT(all.at("detectable_effect").get<double>(), 0.0);
  EXPECT_EQ(all.at("seeds_better").get<int>(), better);
  // The CSV: mean, lo, hi, n with n = seeds, then the "all" row.
  std::ifstream csv(group_dir / "paired_vs_baseline.csv");
  std::string header;
  std::getline(csv, header);
  EXPECT_EQ(header, "position_lo,position_hi,mean,lo,hi,n");
}

// Issue 21: a group's folder is rewritten whole, or left as it was. Writing it again replaces every
// file at once (a file the new summary does not write goes with the old folder) and leaves no
// staging folder beside it.
TEST(SeedGroups, ASummaryIsReplacedWholeAndNothingHalfMadeIsLeft) {
  test_support::TempDir tmp;
  const auto seqs = test_support::random_sequences(12, 24, 1);
  std::vector<std::string> dirs;
  for (uint64_t s : {1, 2}) dirs.push_back(make_run(tmp.path(), test_support::seed_group_member("y-baseline", 1, s), seqs));
  for (uint64_t s : {1, 2}) dirs.push_back(make_run(tmp.path(), test_support::seed_group_member("y-proteus", 4, s), seqs));
  ASSERT_EQ(engine::write_seed_group_results(dirs).size(), 2u);
  const auto group_dir = tmp.path() / "groups" / "y-proteus";
  std::ofstream(group_dir / "paired_vs_baseline_s9.csv") << "a seed no longer in the group";
  std::vector<std::string> notes;
  ASSERT_EQ(engine::write_seed_group_results(dirs, &notes).size(), 2u);
  EXPECT_FALSE(std::filesystem::exists(group_dir / "paired_vs_baseline_s9.csv")) << "the old folder was patched, not replaced";
  EXPECT_TRUE(std::filesystem::exists(group_dir / "group.json"));
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(tmp.path() / "groups")) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"y-baseline", "y-proteus"}))
      << "a staging folder was left";
}

// Issue 46: a runs folder whose grouped runs are all gone leads to no group, yet its summaries name
// those runs. Given the folder, `proteus groups` removes them and says so.
TEST(SeedGroups, AFolderGivenWholeKeepsNoSummaryWhoseRunsAreAllGone) {
  test_support::TempDir tmp;
  const auto seqs = test_support::random_sequences(12, 24, 1);
  std::vector<std::string> dirs;
  for (uint64_t s : {1, 2}) dirs.push_back(make_run(tmp.path(), test_support::seed_group_member("z-baseline", 1, s), seqs));
  for (uint64_t s : {1, 2}) dirs.push_back(make_run(tmp.path(), test_support::seed_group_member("z-proteus", 4, s), seqs));
  auto lone = test_support::seed_group_member("z-lone", 4, 1);
  lone.group.clear();  // a run of no group: the folder is not empty
  make_run(tmp.path(), lone, seqs);
  ASSERT_EQ(engine::write_seed_group_results(dirs).size(), 2u);
  for (const auto& d : dirs) std::filesystem::remove_all(d);

  std::vector<std::string> notes;
  EXPECT_TRUE(engine::write_seed_group_results({(tmp.path() / "z-lone-s1").string()}, &notes).empty());
  EXPECT_TRUE(std::filesystem::exists(tmp.path() / "groups" / "z-proteus")) << "no folder given: only the runs' groups are checked";
  notes.clear();
  EXPECT_TRUE(engine::write_seed_group_results({(tmp.path() / "z-lone-s1").string()}, &notes, {tmp.path()}).empty());
  for (const char* g : {"z-baseline", "z-proteus"}) {
    EXPECT_FALSE(std::filesystem::exists(tmp.path() / "groups" / g)) << g << ": a summary naming only deleted runs was kept";
    EXPECT_NE(std::find_if(notes.begin(), notes.end(),
                           [&](const std::string& n) { return n.find(std::string("seed group ") + g + ": no evaluated run of it is left") == 0; }),
              notes.end())
        << g;
  }
  // The folder given as "DIR/" is the same folder: nothing is left to remove, nothing is written twice.
  notes.clear();
  EXPECT_TRUE(engine::write_seed_group_results({}, &notes, {tmp.path().string() + "/"}).empty());
  EXPECT_TRUE(notes.empty()) << notes.front();
}

}  // namespace
