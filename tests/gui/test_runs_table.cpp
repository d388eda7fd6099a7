// The runs browser's table (issue 38): the filter, natural order, sorting by any column, seed groups
// with their t intervals, the paired effect against the E = 1 baseline, the fields that differ, the
// cached view, and the folder scan (incremental, and on a worker).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include "app/gui/state/runs_browser.hpp"
#include "app/gui/state/runs_table.hpp"
#include "core/config/config_json.hpp"
#include "core/eval/statistics.hpp"
#include "core/runs/eval_files.hpp"
#include "core/runs/run_dir.hpp"
#include "tests/support/seed_group_runs.hpp"
#include "tests/support/synthetic_per_position.hpp"
#include "tests/support/temp_dir.hpp"

namespace {

using namespace proteus;
using gui::RunRow;

RunRow row(const config::RunConfig& c, double bpb = gui::kNoValue) {
  RunRow r;
  r.name = c.name;
  r.path = "/runs/" + c.name;
  r.config = std::make_shared<const config::RunConfig>(c);
  r.fields = gui::config_field_texts(c);
  r.bpb = bpb;
  return r;
}

config::RunConfig member(const std::string& group, int E, uint64_t seed, memory::Rule rule = memory::Rule::delta) {
  auto c = test_support::seed_group_member(group, E, seed);
  c.model.mixer.rule = rule;
  return c;
}

std::vector<const RunRow*> pointers(const std::vector<RunRow>& rows) {
  std::vector<const RunRow*> out;
  for (const auto& r : rows) out.push_back(&r);
  return out;
}

// The names of the run lines, in order.
std::vector<std::string> names(const gui::RunsView& v, const std::vector<RunRow>& rows) {
  std::vector<std::string> out;
  for (const auto& l : v.lines()) out.push_back(l.group >= 0 ? "[" + v.groups()[l.group].name + "]" : rows[l.row].name);
  return out;
}

TEST(RunsTable, NaturalOrderComparesDigitRunsAsNumbers) {
  EXPECT_LT(gui::natural_compare("sweep-c2", "sweep-c10"), 0);
  EXPECT_GT(gui::natural_compare("sweep-c10", "sweep-c2"), 0);
  EXPECT_LT(gui::natural_compare("g-s2", "g-s10"), 0);
  EXPECT_LT(gui::natural_compare("a-s9-x", "a-s10-a"), 0);
  EXPECT_LT(gui::natural_compare("abc", "abd"), 0);
  EXPECT_LT(gui::natural_compare("run", "run-2"), 0);
  EXPECT_EQ(gui::natural_compare("e16-s3", "e16-s3"), 0);
  EXPECT_NE(gui::natural_compare("s02", "s2"), 0) << "equal numbers, other text: not the same name";
  EXPECT_EQ(gui::natural_compare("s02", "s2"), -gui::natural_compare("s2", "s02"));
  std::vector<std::string> v{"x-c10", "x-c2", "x-c1", "x-c100", "x-c20"};
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return gui::natural_compare(a, b) < 0; });
  EXPECT_EQ(v, (std::vector<std::string>{"x-c1", "x-c2", "x-c10", "x-c20", "x-c100"}));
}

TEST(RunsTable, FilterTermsAreAndedOverFieldsAndTheName) {
  const auto comba16 = row(member("comba-e16", 16, 1, memory::Rule::comba));
  const auto comba8 = row(member("comba-e8", 8, 1, memory::Rule::comba));
  const auto delta16 = row(member("delta-e16", 16, 1, memory::Rule::delta));
  auto f = gui::parse_run_filter("rule=comba E=16");
  ASSERT_TRUE(f.error.empty()) << f.error;
  ASSERT_EQ(f.terms.size(), 2u);
  EXPECT_TRUE(gui::filter_matches(f, comba16));
  EXPECT_FALSE(gui::filter_matches(f, comba8));
  EXPECT_FALSE(gui::filter_matches(f, delta16));

  // The full dotted path, and case-insensitive text.
  EXPECT_TRUE(gui::filter_matches(gui::parse_run_filter("model.mixer.E=8 RULE=Comba"), comba8));
  EXPECT_FALSE(gui::filter_matches(gui::parse_run_filter("model.mixer.E=8"), comba16));
  // A path component that is not the last does not name a field.
  EXPECT_FALSE(gui::filter_matches(gui::parse_run_filter("mixer=16"), comba16));
  // Numbers by value: 16.0 is 16.
  EXPECT_TRUE(gui::filter_matches(gui::parse_run_filter("E=16.0"), comba16));
  // A bare word: a substring of the name, case-insensitive; with a field term, both must hold.
  EXPECT_TRUE(gui::filter_matches(gui::parse_run_filter("E16"), comba16));
  EXPECT_FALSE(gui::filter_matches(gui::parse_run_filter("E16"), comba8));
  EXPECT_FALSE(gui::filter_matches(gui::parse_run_filter("delta rule=comba"), delta16));
  // No such field: no run holds the term.
  EXPECT_FALSE(gui::filter_matches(gui::parse_run_filter("colour=blue"), comba16));
  // Empty text holds for every run.
  EXPECT_TRUE(gui::parse_run_filter("   ").empty());
  EXPECT_TRUE(gui::filter_matches(gui::parse_run_filter(""), comba8));
}

TEST(RunsTable, BadFilterTextIsNamedAndHidesNothing) {
  for (const char* bad : {"=comba", "E=", "rule=comba E=16=8", "E16 ="}) {
    const auto f = gui::parse_run_filter(bad);
    EXPECT_FALSE(f.error.empty()) << bad;
    EXPECT_TRUE(f.terms.empty()) << bad;
    EXPECT_TRUE(gui::filter_matches(f, row(member("g", 8, 1)))) << bad;
  }
  EXPECT_NE(gui::parse_run_filter("=comba").error.find("=comba"), std::string::npos) << "the bad term is quoted";
}

TEST(RunsTable, SortsByAnyColumnNumbersByValueMissingLast) {
  std::vector<RunRow> rows{row(member("a", 16, 1), 2.0), row(member("b", 2, 1), 1.5), row(member("c", 4, 1)),
                           row(member("d", 8, 1), 1.7)};
  rows[0].name = "run-c10";
  rows[1].name = "run-c2";
  rows[2].name = "run-c1";
  rows[3].name = "run-c3";
  gui::RunsView v;
  const auto p = pointers(rows);
  v.update(p, 1, "", {"run", true}, false, {});
  EXPECT_EQ(names(v, rows), (std::vector<std::string>{"run-c1", "run-c2", "run-c3", "run-c10"}));
  v.update(p, 1, "", {"run", false}, false, {});
  EXPECT_EQ(names(v, rows), (std::vector<std::string>{"run-c10", "run-c3", "run-c2", "run-c1"}));
  v.update(p, 1, "", {"bpb", true}, false, {});
  EXPECT_EQ(names(v, rows), (std::vector<std::string>{"run-c2", "run-c3", "run-c10", "run-c1"})) << "no bpb: last";
  v.update(p, 1, "", {"bpb", false}, false, {});
  EXPECT_EQ(names(v, rows), (std::vector<std::string>{"run-c10", "run-c3", "run-c2", "run-c1"})) << "no bpb: still last";
  // A config field: E by value (2 < 4 < 8 < 16), not as text ("16" < "2").
  v.update(p, 1, "", {"model.mixer.E", true}, false, {});
  EXPECT_EQ(names(v, rows), (std::vector<std::string>{"run-c2", "run-c1", "run-c3", "run-c10"}));
  // The filter applies before the sort.
  v.update(p, 1, "E=16", {"model.mixer.E", true}, false, {});
  EXPECT_EQ(names(v, rows), (std::vector<std::string>{"run-c10"}));
  EXPECT_EQ(v.shown_runs(), 1u);
}

TEST(RunsTable, GatedRunsPairWithTheirBaselineOfTheSameSeedAndConfig) {
  std::vector<RunRow> rows{row(member("base", 1, 1), 2.0),  row(member("base", 1, 2), 2.2),
                           row(member("gated", 16, 1), 1.9), row(member("gated", 16, 2), 2.05),
                           row(member("gated", 16, 3), 2.0), row(member("wide", 16, 1), 1.8)};
  rows.back().config = std::make_shared<const config::RunConfig>([] {
    auto c = member("wide", 16, 1);
    c.model.d_model = 32;  // another model: not the baseline's
    return c;
  }());
  std::vector<RunRow*> p;
  for (auto& r : rows) p.push_back(&r);
  gui::pair_baselines(p);
  EXPECT_NEAR(rows[2].effect, 1.9 - 2.0, 1e-12);
  EXPECT_EQ(rows[2].baseline, "base-s1");
  EXPECT_NEAR(rows[3].effect, 2.05 - 2.2, 1e-12);
  EXPECT_EQ(rows[3].baseline, "base-s2");
  EXPECT_TRUE(std::isnan(rows[4].effect)) << "no baseline of seed 3";
  EXPECT_TRUE(std::isnan(rows[5].effect)) << "another d_model";
  EXPECT_TRUE(std::isnan(rows[0].effect)) << "a baseline has no effect of its own";
  // The gating fields may differ (N, the schedule): E = 1 reads none of them.
  auto c = member("gated-n", 16, 1);
  c.model.mixer.N = 32;
  rows.push_back(row(c, 1.95));
  p.clear();
  for (auto& r : rows) p.push_back(&r);
  gui::pair_baselines(p);
  EXPECT_NEAR(rows.back().effect, 1.95 - 2.0, 1e-12);
}

TEST(RunsTable, ASeedGroupShowsMeanWithItsStudentTIntervalAndOpensToItsRuns) {
  const std::vector<double> bpb{1.9, 2.05, 2.0};
  std::vector<RunRow> rows;
  for (uint64_t s = 1; s <= 3; ++s) rows.push_back(row(member("g", 16, s), bpb[s - 1]));
  rows.push_back(row(member("solo", 16, 1), 1.0));
  gui::RunsView v;
  const auto p = pointers(rows);
  v.update(p, 1, "", {"run", true}, true, {});
  ASSERT_EQ(v.groups().size(), 1u);
  EXPECT_EQ(names(v, rows), (std::vector<std::string>{"[g]", "solo-s1"})) << "collapsed";
  const auto& g = v.groups()[0];
  EXPECT_EQ(g.bpb.n, 3);
  const double mean = (1.9 + 2.05 + 2.0) / 3;
  double ss = 0;
  for (double x : bpb) ss += (x - mean) * (x - mean);
  const double half = 4.302652729911275 * std::sqrt(ss / 2) / std::sqrt(3.0);  // t(0.975, 2)
  EXPECT_NEAR(g.bpb.mean, mean, 1e-12);
  EXPECT_NEAR(g.bpb.lo, mean - half, 1e-9);
  EXPECT_NEAR(g.bpb.hi, mean + half, 1e-9);
  EXPECT_EQ(g.effect.n, 0) << "no baselines";

  v.update(p, 1, "", {"run", true}, true, {"g"});
  EXPECT_EQ(names(v, rows), (std::vector<std::string>{"[g]", "g-s1", "g-s2", "g-s3", "solo-s1"})) << "open";
  EXPECT_TRUE(v.lines()[1].member);
  EXPECT_FALSE(v.lines()[4].member);
  // Sorted by bpb the group goes by its mean (1.983), after solo's 1.0 and before nothing else.
  v.update(p, 1, "", {"bpb", false}, true, {});
  EXPECT_EQ(names(v, rows), (std::vector<std::string>{"[g]", "solo-s1"}));
  v.update(p, 1, "", {"bpb", true}, true, {});
  EXPECT_EQ(names(v, rows), (std::vector<std::string>{"solo-s1", "[g]"}));
}

TEST(RunsTable, AGroupsIntervalCountsEachSeedOnceAndOnlyRunsOfItsConfig) {
  std::vector<RunRow> rows{row(member("g", 16, 1), 1.9), row(member("g", 16, 2), 2.0), row(member("g", 16, 2), 9.0),
                           row(member("g", 8, 3), 9.0)};
  rows[2].name = "g-s2-again";
  rows[3].name = "g-s3-other-e";
  std::vector<RunRow*> p;
  for (auto& r : rows) p.push_back(&r);
  gui::mark_seed_group_members(p);
  EXPECT_TRUE(rows[0].group_kept);
  EXPECT_TRUE(rows[1].group_kept);
  EXPECT_FALSE(rows[2].group_kept);
  EXPECT_NE(rows[2].group_note.find("counted once"), std::string::npos) << rows[2].group_note;
  EXPECT_FALSE(rows[3].group_kept);
  EXPECT_NE(rows[3].group_note.find("model.mixer.E"), std::string::npos) << rows[3].group_note;
  gui::RunsView v;
  v.update(pointers(rows), 1, "", {"run", true}, true, {"g"});
  ASSERT_EQ(v.groups().size(), 1u);
  const auto& g = v.groups()[0];
  EXPECT_EQ(g.members.size(), 4u) << "every run of the group is listed under it";
  EXPECT_EQ(g.bpb.n, 2) << "a seed twice counts once; another E is not a seed of the group";
  EXPECT_NEAR(g.bpb.mean, 1.95, 1e-12);
  EXPECT_EQ(g.notes.size(), 2u);
}

TEST(RunsTable, AGroupsEffectIsTOverItsPairedSeeds) {
  std::vector<RunRow> rows;
  const std::vector<double> base{2.0, 2.2, 2.1}, gated{1.9, 2.0, 2.05};
  for (uint64_t s = 1; s <= 3; ++s) {
    rows.push_back(row(member("base", 1, s), base[s - 1]));
    rows.push_back(row(member("gated", 16, s), gated[s - 1]));
  }
  std::vector<RunRow*> p;
  for (auto& r : rows) p.push_back(&r);
  gui::pair_baselines(p);
  gui::mark_seed_group_members(p);
  gui::RunsView v;
  v.update(pointers(rows), 1, "", {"run", true}, true, {});
  ASSERT_EQ(v.groups().size(), 2u);
  const auto& g = v.groups()[1].name == "gated" ? v.groups()[1] : v.groups()[0];
  const auto expected = eval::t_interval({gated[0] - base[0], gated[1] - base[1], gated[2] - base[2]});
  EXPECT_EQ(g.effect.n, 3);
  EXPECT_NEAR(g.effect.mean, expected.mean, 1e-12);
  EXPECT_NEAR(g.effect.lo, expected.lo, 1e-12);
  EXPECT_NEAR(g.effect.hi, expected.hi, 1e-12);
}

TEST(RunsTable, DifferingFieldsAreThoseThatVaryWithoutTheNames) {
  std::vector<RunRow> rows{row(member("a", 16, 1)), row(member("b", 8, 2)), row(member("c", 16, 3))};
  const auto d = gui::differing_fields(pointers(rows));
  EXPECT_NE(std::find(d.begin(), d.end(), "model.mixer.E"), d.end());
  EXPECT_NE(std::find(d.begin(), d.end(), "seed"), d.end());
  EXPECT_EQ(std::find(d.begin(), d.end(), "name"), d.end()) << "a name is not a config choice";
  EXPECT_EQ(std::find(d.begin(), d.end(), "group"), d.end());
  EXPECT_EQ(std::find(d.begin(), d.end(), "model.d_model"), d.end()) << "the same everywhere";
  EXPECT_EQ(gui::field_text(rows[1], "model.mixer.E"), "8");
}

TEST(RunsTable, TheViewRecomputesOnlyWhenItsInputsChange) {
  std::vector<RunRow> rows{row(member("a", 16, 1), 1.0), row(member("b", 8, 1), 2.0)};
  const auto p = pointers(rows);
  gui::RunsView v;
  EXPECT_TRUE(v.update(p, 1, "", {"run", true}, false, {}));
  for (int frame = 0; frame < 100; ++frame) EXPECT_FALSE(v.update(p, 1, "", {"run", true}, false, {}));
  EXPECT_EQ(v.recomputes(), 1);
  EXPECT_TRUE(v.update(p, 1, "E=8", {"run", true}, false, {}));
  EXPECT_EQ(v.lines().size(), 1u);
  EXPECT_TRUE(v.update(p, 1, "E=8", {"bpb", true}, false, {}));
  EXPECT_TRUE(v.update(p, 2, "E=8", {"bpb", true}, false, {})) << "a new scan";
  EXPECT_TRUE(v.update(p, 2, "E=8", {"bpb", true}, true, {}));
  EXPECT_EQ(v.recomputes(), 5);
}

// A run folder as `proteus train` leaves one: config, status, and an evaluation per position.
std::filesystem::path write_run(const std::filesystem::path& dir, const config::RunConfig& c, double shift) {
  auto w = runs::RunWriter::create(dir, c.name, config::to_json(c));
  runs::EvalReport report;
  report.per_position = test_support::synthetic_per_position(64, 4, 32, 8, shift, shift, c.seed);
  runs::write_eval_report(w, report);
  w.set_status(runs::RunState::finished, "done", 10);
  return w.dir();
}

TEST(RunsTable, AScanReadsBpbAndEffectsAndRereadsOnlyChangedRuns) {
  test_support::TempDir tmp;
  const auto dir = tmp.path() / "runs";
  write_run(dir, member("base", 1, 1), 0.0);
  write_run(dir, member("gated", 16, 1), -0.1);
  const auto changed = write_run(dir, member("gated", 16, 2), -0.2);

  gui::RunsBrowser b;
  b.rescan(dir);
  ASSERT_EQ(b.entries().size(), 3u);
  ASSERT_NE(b.last_scan(), nullptr);
  EXPECT_EQ(b.last_scan()->reread, 3);
  const auto expected = [](double shift, uint64_t seed) {
    return test_support::synthetic_per_position(64, 4, 32, 8, shift, shift, seed).heldout_bits_per_byte().mean;
  };
  for (const auto& e : b.entries()) {
    EXPECT_EQ(e.state, "finished");
    EXPECT_FALSE(std::isnan(e.bpb)) << e.name;
    EXPECT_EQ(e.fields.at("model.mixer.E"), e.name.starts_with("base") ? "1" : "16");
  }
  const auto& g1 = *std::find_if(b.entries().begin(), b.entries().end(), [](const auto& e) { return e.name == "gated-s1"; });
  EXPECT_NEAR(g1.bpb, expected(-0.1, 1), 1e-12);
  EXPECT_NEAR(g1.effect, expected(-0.1, 1) - expected(0.0, 1), 1e-12);
  EXPECT_EQ(g1.baseline, "base-s1");
  const uint64_t gen = b.generation();

  b.entries()[0].selected = true;
  b.rescan(dir);
  EXPECT_EQ(b.last_scan()->reread, 0) << "nothing changed: every run from the cache";
  EXPECT_EQ(b.generation(), gen) << "nothing changed: the table keeps its cache";
  EXPECT_TRUE(b.entries()[0].selected) << "the selection survives a rescan";

  // A new evaluation of one run: that run alone is read again.
  {
    auto w = runs::RunWriter::reopen(changed);
    runs::EvalReport report;
    report.per_position = test_support::synthetic_per_position(64, 4, 32, 8, 0.5, 0.5, 2);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // a later file time
    runs::write_eval_report(w, report);
  }
  b.rescan(dir);
  EXPECT_EQ(b.last_scan()->reread, 1);
  EXPECT_GT(b.generation(), gen);
  const auto& g2 = *std::find_if(b.entries().begin(), b.entries().end(), [](const auto& e) { return e.name == "gated-s2"; });
  EXPECT_NEAR(g2.bpb, expected(0.5, 2), 1e-12);
}

TEST(RunsTable, AScanOnTheWorkerIsTakenInByPoll) {
  test_support::TempDir tmp;
  const auto dir = tmp.path() / "runs";
  for (uint64_t s = 1; s <= 5; ++s) write_run(dir, member("g", 16, s), 0.0);
  gui::RunsBrowser b;
  b.start_rescan(dir);
  b.start_rescan(dir);  // a second request waits for the first: no error, no wait
  EXPECT_TRUE(b.scanning());
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  int taken = 0;
  while (b.scanning() && std::chrono::steady_clock::now() < until) {
    taken += b.poll();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_FALSE(b.scanning());
  EXPECT_EQ(taken, 2) << "the request made during the first scan ran after it";
  EXPECT_EQ(b.entries().size(), 5u);
  EXPECT_EQ(b.last_scan()->reread, 0) << "the second scan took the first one's reads";
}

}  // namespace

namespace {
TEST(RunsTableTiming, DISABLED_RecomputeOf1000Rows) {
  std::vector<RunRow> rows;
  for (int i = 0; i < 1000; ++i) {
    const int E = std::vector<int>{1, 2, 4, 8, 16}[(i / 5) % 5];
    auto c = member("g" + std::to_string(i / 5), E, i % 5 + 1, i % 2 ? memory::Rule::comba : memory::Rule::delta);
    rows.push_back(row(c, 2.0 + 0.001 * (i % 17)));
  }
  std::vector<RunRow*> mp;
  for (auto& r : rows) mp.push_back(&r);
  gui::mark_seed_group_members(mp);
  const auto p = pointers(rows);
  gui::RunsView v;
  for (const char* f : {"", "rule=comba", "rule=comba E=16", "g1"}) {
    for (bool grouped : {true, false}) {
      const auto t0 = std::chrono::steady_clock::now();
      v.update(p, 7, f, {"bpb", true}, grouped, {});
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      std::printf("filter '%s' grouped %d: %.2f ms, %zu lines\n", f, grouped, ms, v.lines().size());
    }
  }
}
}  // namespace
