// Experiment files: parent chains and cycles, variants, sweep grids, overrides and file errors.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/config/experiment.hpp"
#include "tests/support/temp_dir.hpp"

namespace {

using nlohmann::json;
using proteus::InputError;
using namespace proteus::config;
namespace memory = proteus::memory;
namespace fs = std::filesystem;

json text(const char* json_text) { return json::parse(json_text); }

// What `proteus train` and `proteus sweep` make of an experiment's value.
std::vector<RunConfig> variant_runs(const json& experiment) { return Experiment::from_json(experiment).runs(); }
std::vector<RunConfig> grid_runs(const json& experiment) { return Experiment::from_json(experiment).sweep_runs(); }

// A fresh directory per test, removed afterwards.
class experiment : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("proteus-experiment-" + std::to_string(::getpid()) + "-" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const std::string& name, const std::string& contents) {
    const fs::path path = dir_ / name;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << contents;
    return path;
  }

  fs::path dir_;
};

template <class F>
InputError refusal(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "no InputError";
  return InputError("", "");
}

std::vector<std::string> names(const std::vector<RunConfig>& runs) {
  std::vector<std::string> out;
  for (const auto& r : runs) out.push_back(r.name);
  return out;
}

TEST_F(experiment, FileErrorsNameTheFile) {
  const fs::path missing = dir_ / "nope.json";
  EXPECT_EQ(refusal([&] { read_json_file(missing); }).what(), missing.generic_string() + ": cannot open");

  // Line 3, column 14: the parser stops at the stray 'x'.
  const fs::path bad = write("bad.json", "{\n  \"name\": \"a\",\n  \"seed\": 1, x\n}\n");
  const InputError e = refusal([&] { read_json_file(bad); });
  EXPECT_EQ(e.field(), bad.generic_string() + ":3:14") << e.what();
  EXPECT_EQ(e.reason().rfind("parse error: ", 0), 0u) << e.what();
  EXPECT_EQ(e.reason().find("[json.exception"), std::string::npos) << e.what();

  const fs::path cut = write("cut.json", "{\"name\": ");
  EXPECT_EQ(refusal([&] { read_json_file(cut); }).field().rfind(cut.generic_string() + ":1:", 0), 0u);
}

TEST_F(experiment, ParentFieldsAreOverriddenRecursively) {
  write("presets/base.json", R"({"name": "base", "seed": 7,
                                 "model": {"d_model": 64, "mixer": {"rule": "titans", "E": 4}},
                                 "train": {"steps": 50}})");
  write("presets/mid.json", R"({"parent": "base.json", "model": {"mixer": {"E": 8}},
                                "train": {"lr": 0.01, "warmup": 5}})");
  const fs::path leaf = write("leaf.json", R"({"parent": "presets/mid.json", "name": "leaf",
                                              "model": {"mixer": {"heads": 4}}, "train": {"lr": 0.02}})");
  const json merged = load_experiment_json(leaf);
  EXPECT_FALSE(merged.contains("parent"));
  const std::vector<RunConfig> runs = variant_runs(merged);
  ASSERT_EQ(runs.size(), 1u);
  const RunConfig& c = runs[0];
  EXPECT_EQ(c.name, "leaf");
  EXPECT_EQ(c.seed, 7u);
  EXPECT_EQ(c.model.d_model, 64);
  EXPECT_EQ(c.model.mixer.rule, memory::Rule::titans);  // from the grandparent
  EXPECT_EQ(c.model.mixer.E, 8);            // the parent overrides the grandparent
  EXPECT_EQ(c.model.mixer.heads, 4);        // the leaf adds its own
  EXPECT_EQ(c.train.steps, 50);
  EXPECT_EQ(c.train.lr, 0.02);  // the leaf overrides its parent
  EXPECT_EQ(c.train.warmup, 5);
  const RunConfig defaults;
  EXPECT_EQ(c.train.weight_decay, defaults.train.weight_decay);  // untouched anywhere: the default
}

TEST_F(experiment, NullResetsAParentField) {
  write("base.json", R"({"model": {"mixer": {"E": 4}}})");
  const fs::path child = write("child.json", R"({"parent": "base.json", "model": {"mixer": {"E": null}}})");
  EXPECT_EQ(variant_runs(load_experiment_json(child))[0].model.mixer.E, 1);
}

TEST_F(experiment, ParentCyclesAreRefused) {
  const fs::path a = write("a.json", R"({"parent": "b.json"})");
  write("b.json", R"({"parent": "a.json"})");
  InputError e = refusal([&] { load_experiment_json(a); });
  EXPECT_NE(e.reason().find("parent cycle"), std::string::npos) << e.what();
  EXPECT_NE(e.reason().find("a.json -> "), std::string::npos) << e.what();

  const fs::path self = write("self.json", R"({"parent": "./self.json"})");
  e = refusal([&] { load_experiment_json(self); });
  EXPECT_NE(e.reason().find("parent cycle"), std::string::npos) << e.what();

  const fs::path orphan = write("orphan.json", R"({"parent": "gone.json"})");
  e = refusal([&] { load_experiment_json(orphan); });
  EXPECT_EQ(e.what(), (dir_ / "gone.json").generic_string() + ": cannot open");

  const fs::path bad_parent = write("bad_parent.json", R"({"parent": 3})");
  e = refusal([&] { load_experiment_json(bad_parent); });
  EXPECT_EQ(e.field(), bad_parent.generic_string());
}

TEST(experiment_expand, NoVariantsIsOneRun) {
  const auto runs = variant_runs(text(R"({"name": "solo", "model": {"mixer": {"E": 2}}})"));
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].name, "solo");
  EXPECT_EQ(runs[0].model.mixer.E, 2);
}

TEST(experiment_expand, Variants) {
  const json exp = text(R"({"name": "cmp", "model": {"mixer": {"E": 4}},
    "variants": [{"name": "baseline", "set": {"model.mixer.E": 1}},
                 {"name": "geo", "set": {"model.mixer.schedule.type": "geometric", "train.lr": 0.001}},
                 {"name": "plain"}]})");
  const auto runs = variant_runs(exp);
  EXPECT_EQ(names(runs), (std::vector<std::string>{"cmp-baseline", "cmp-geo", "cmp-plain"}));
  EXPECT_EQ(runs[0].model.mixer.E, 1);
  EXPECT_EQ(runs[1].model.mixer.E, 4);
  EXPECT_EQ(runs[1].model.mixer.schedule.type, memory::ScheduleType::geometric);
  EXPECT_EQ(runs[1].train.lr, 0.001);
  EXPECT_EQ(runs[2].model.mixer.E, 4);
}

TEST(experiment_expand, SweepIsAGridTimesTheVariants) {
  const json exp = text(R"({"name": "s",
    "sweep": {"model.mixer.E": [1, 2, 4], "seed": [1, 2]},
    "variants": [{"name": "uni"}, {"name": "geo", "set": {"model.mixer.schedule.type": "geometric"}}]})");
  const auto runs = grid_runs(exp);
  ASSERT_EQ(runs.size(), 12u);
  EXPECT_EQ(runs[0].name, "s-uni-E1-seed1");
  EXPECT_EQ(runs[1].name, "s-geo-E1-seed1");
  EXPECT_EQ(runs[2].name, "s-uni-E1-seed2");
  EXPECT_EQ(runs[11].name, "s-geo-E4-seed2");
  EXPECT_EQ(runs[11].model.mixer.E, 4);
  EXPECT_EQ(runs[11].seed, 2u);
  EXPECT_EQ(runs[11].model.mixer.schedule.type, memory::ScheduleType::geometric);
  // runs() leaves the grid alone.
  EXPECT_EQ(variant_runs(exp).size(), 2u);

  const auto plain = grid_runs(text(R"({"sweep": {"train.lr": [0.001, 0.0003]}})"));
  EXPECT_EQ(names(plain), (std::vector<std::string>{"run-lr0.001", "run-lr0.0003"}));
}

TEST(experiment_expand, SeedsMakeOneGroupPerVariant) {
  const json exp = text(R"({"name": "cmp", "seed": 9, "seeds": [1, 2, 3],
    "variants": [{"name": "baseline", "set": {"model.mixer.E": 1}}, {"name": "proteus", "set": {"model.mixer.E": 16}}]})");
  const auto runs = variant_runs(exp);
  EXPECT_EQ(names(runs), (std::vector<std::string>{"cmp-baseline-s1", "cmp-baseline-s2", "cmp-baseline-s3",
                                                   "cmp-proteus-s1", "cmp-proteus-s2", "cmp-proteus-s3"}));
  for (size_t i = 0; i < runs.size(); ++i) {
    EXPECT_EQ(runs[i].seed, i % 3 + 1) << runs[i].name;  // the list's seed wins over the config's
    EXPECT_EQ(runs[i].group, i < 3 ? "cmp-baseline" : "cmp-proteus");
    EXPECT_EQ(runs[i].model.mixer.E, i < 3 ? 1 : 16);
  }
  // The group is part of the config a run records, and reads back.
  EXPECT_EQ(parse_run_config(to_json(runs[4], JsonForm::as_given)).group, "cmp-proteus");
  // Without variants the group is the experiment's name; with a grid each point is its own group.
  const auto solo = variant_runs(text(R"({"name": "solo", "seeds": [5, 7]})"));
  EXPECT_EQ(names(solo), (std::vector<std::string>{"solo-s5", "solo-s7"}));
  EXPECT_EQ(solo[1].group, "solo");
  const auto grid = grid_runs(text(R"({"name": "g", "seeds": [1, 2], "sweep": {"model.mixer.E": [2, 4]}})"));
  EXPECT_EQ(names(grid), (std::vector<std::string>{"g-E2-s1", "g-E2-s2", "g-E4-s1", "g-E4-s2"}));
  EXPECT_EQ(grid[2].group, "g-E4");
  // Runs without seeds belong to no group.
  EXPECT_EQ(variant_runs(text(R"({"name": "x"})"))[0].group, "");
}

TEST(experiment_expand, BadSeedsAreRefusedWhereTheyWereWritten) {
  EXPECT_EQ(refusal([] { variant_runs(text(R"({"seeds": []})")); }).field(), "seeds");
  EXPECT_EQ(refusal([] { variant_runs(text(R"({"seeds": 3})")); }).field(), "seeds");
  EXPECT_EQ(refusal([] { variant_runs(text(R"({"seeds": [1, -2]})")); }).field(), "seeds[1]");
  EXPECT_EQ(refusal([] { variant_runs(text(R"({"seeds": [1, "2"]})")); }).field(), "seeds[1]");
  EXPECT_EQ(refusal([] { variant_runs(text(R"({"seeds": [1.5]})")); }).field(), "seeds[0]");
  const auto dup = refusal([] { variant_runs(text(R"({"seeds": [4, 4]})")); });
  EXPECT_EQ(dup.field(), "seeds[1]");
  EXPECT_EQ(dup.reason(), "duplicate seed 4");
  EXPECT_EQ(refusal([] { grid_runs(text(R"({"seeds": [1], "sweep": {"seed": [1, 2]}})")); }).field(), "sweep.seed");
}

TEST(experiment_expand, TheGridWinsOverAVariant) {
  const auto runs = grid_runs(text(R"({"sweep": {"model.mixer.E": [2]},
                                          "variants": [{"name": "v", "set": {"model.mixer.E": 8}}]})"));
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].name, "run-v-E2");
  EXPECT_EQ(runs[0].model.mixer.E, 2);
}

TEST(experiment_expand, NoSweepGrid) {
  EXPECT_STREQ(refusal([] { grid_runs(text(R"({"name": "x"})")); }).what(), "sweep: this config has no sweep grid");
}

TEST(experiment_expand, ApplyOverride) {
  json c = apply_override(json::object(), "model.mixer.E", 4);
  EXPECT_EQ(c, text(R"({"model": {"mixer": {"E": 4}}})"));
  c = apply_override(c, "model.mixer.schedule", text(R"({"type": "custom", "unlock": [1, 3, 5, 7]})"));
  EXPECT_EQ(c["model"]["mixer"]["E"], 4);  // an object value merges: siblings stay
  EXPECT_EQ(c["model"]["mixer"]["schedule"]["type"], "custom");
  EXPECT_EQ(parse_run_config(c).model.mixer.schedule.unlock, (std::vector<int64_t>{1, 3, 5, 7}));
  c = apply_override(c, "model.mixer.E", nullptr);
  EXPECT_FALSE(c["model"]["mixer"].contains("E"));

  const InputError f = refusal([] { apply_override(json::object(), "model.mixer.F", 1); });
  EXPECT_EQ(f.field(), "model.mixer.F");
  EXPECT_EQ(f.reason().rfind("unknown key (expected one of ", 0), 0u) << f.what();  // no close name for one letter
  EXPECT_EQ(refusal([] { apply_override(json::object(), "model.mixr.E", 1); }).what(),
            std::string("model.mixr: unknown key (did you mean mixer?)"));
  EXPECT_EQ(refusal([] { apply_override(json::object(), "model.mixer.E.x", 1); }).field(), "model.mixer.E.x");
  EXPECT_EQ(refusal([] { apply_override(json::object(), "", 1); }).field(), "set");

  const auto paths = override_paths();
  EXPECT_NE(std::find(paths.begin(), paths.end(), "model.mixer.E"), paths.end());
  EXPECT_NE(std::find(paths.begin(), paths.end(), "seed"), paths.end());
  EXPECT_NE(std::find(paths.begin(), paths.end(), "data.mix"), paths.end());
}

TEST(experiment_expand, ErrorsPointWhereTheValueWasWritten) {
  const std::pair<const char*, const char*> cases[] = {
      {R"({"variants": [{"name": "a"}, {"name": "b", "set": {"model.mixer.F": 1}}]})", "variants[1].set.model.mixer.F"},
      {R"({"variants": [{"name": "a", "set": {"model.mixer.E": 0}}]})", "variants[0].set.model.mixer.E"},
      {R"({"variants": [{"name": "a", "set": {"model.mixer.schedule": {"type": "custom", "unlock": [2]}}}]})",
       "variants[0].set.model.mixer.schedule.unlock[0]"},
      {R"({"variants": [{"name": "a", "sett": {}}]})", "variants[0].sett"},
      {R"({"variants": [{"set": {}}]})", "variants[0].name"},
      {R"({"variants": [{"name": "a"}, {"name": "a"}]})", "variants[1].name"},
      {R"({"variants": [{"name": "a", "set": []}]})", "variants[0].set"},
      {R"({"variants": {}})", "variants"},
      {R"({"variants": [{"name": "x/y"}]})", "variants[0].name"},
      {R"({"parent": "p.json"})", "parent"},
  };
  for (const auto& [snippet, field] : cases) {
    const InputError e = refusal([&] { variant_runs(json::parse(snippet)); });
    EXPECT_EQ(e.field(), field) << snippet << " -> " << e.what();
  }
  const std::pair<const char*, const char*> sweep_cases[] = {
      {R"({"sweep": {"model.mixer.E": [1, 0]}})", "sweep.model.mixer.E[1]"},
      {R"({"sweep": {"model.mixer.EE": [1]}})", "sweep.model.mixer.EE"},
      {R"({"sweep": {"seed": []}})", "sweep.seed"},
      {R"({"sweep": {"seed": 3}})", "sweep.seed"},
      {R"({"sweep": []})", "sweep"},
      {R"({"sweep": {"seed": [1]}, "variants": [{"name": "v", "set": {"train.lr": -1}}]})", "variants[0].set.train.lr"},
  };
  for (const auto& [snippet, field] : sweep_cases) {
    const InputError e = refusal([&] { grid_runs(json::parse(snippet)); });
    EXPECT_EQ(e.field(), field) << snippet << " -> " << e.what();
  }
  // A combination that fails where no single override is at fault names the run.
  const InputError e = refusal([] {
    variant_runs(text(R"({"model": {"mixer": {"E": 8}}, "variants": [{"name": "small", "set": {"model.mixer.d_head": 2}}]})"));
  });
  EXPECT_EQ(e.field(), "model.mixer.E");
  EXPECT_NE(e.reason().find("run \"run-small\""), std::string::npos) << e.what();
}

TEST_F(experiment, LoadedFileExpands) {
  write("base.json", R"({"name": "paper", "data": {"seq_len": 64}})");
  const fs::path f = write("grid.json", R"({"parent": "base.json",
    "variants": [{"name": "base", "set": {"model.mixer.E": 1}}, {"name": "proteus", "set": {"model.mixer.E": 4}}],
    "sweep": {"seed": [1, 2, 3]}})");
  const auto runs = grid_runs(load_experiment_json(f));
  ASSERT_EQ(runs.size(), 6u);
  EXPECT_EQ(runs[5].name, "paper-proteus-seed3");
  EXPECT_EQ(runs[5].data.seq_len, 64);
  EXPECT_EQ(resolved_mixer_horizon(runs[5]), 64);
}

// The typed experiment: read once, it gives its runs, its JSON and what the window asks of it.
TEST_F(experiment, LoadThenToJsonThenLoadGivesTheSameRuns) {
  write("base.json", R"({"name": "paper", "data": {"seq_len": 64}, "model": {"mixer": {"E": 4}}})");
  const fs::path f = write("grid.json", R"({"parent": "base.json", "seeds": [3, 4],
    "variants": [{"name": "base", "set": {"model.mixer.E": 1}}, {"name": "proteus"}],
    "sweep": {"data.mqar.pairs": [2, 4], "train.lr": [0.001]}})");
  const Experiment e = Experiment::load(f);
  EXPECT_FALSE(e.base.contains("parent"));
  EXPECT_FALSE(e.base.contains("variants"));
  ASSERT_EQ(e.variants.size(), 2u);
  EXPECT_EQ(e.variants[0], (Variant{"base", {{"model.mixer.E", 1}}}));
  EXPECT_TRUE(e.variants[1].set.empty());
  EXPECT_EQ(e.seeds, (std::vector<uint64_t>{3, 4}));
  ASSERT_TRUE(e.sweep);
  EXPECT_EQ(e.sweep->at("data.mqar.pairs"), (std::vector<json>{2, 4}));

  const json j = e.to_json();
  EXPECT_EQ(j["variants"][1], json({{"name", "proteus"}}));  // no "set" where the file gave none
  const fs::path again = write("again.json", j.dump(2));
  const Experiment e2 = Experiment::load(again);
  EXPECT_EQ(e2.to_json(), j);
  for (const auto& [a, b] : {std::pair{e.runs(), e2.runs()}, std::pair{e.sweep_runs(), e2.sweep_runs()}}) {
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(to_json(a[i]), to_json(b[i])) << i;
  }
  EXPECT_EQ(names(e.runs()), (std::vector<std::string>{"paper-base-s3", "paper-base-s4", "paper-proteus-s3", "paper-proteus-s4"}));
  EXPECT_EQ(e.sweep_runs().size(), 8u);
  EXPECT_EQ(e.run_count(), 8u);
  EXPECT_EQ(e.all_runs().size(), 8u);
  EXPECT_EQ(e.sweep_runs()[0].name, "paper-base-pairs2-lr0.001-s3");
}

TEST(experiment_type, ConstructedInCodeItIsCheckedWhenItMakesRuns) {
  Experiment e;
  e.base = {{"name", "x"}};
  e.variants = {Variant{"a", {}}, Variant{"a", {}}};
  EXPECT_EQ(refusal([&] { e.runs(); }).what(), std::string("variants[1].name: duplicate variant name \"a\""));
  e.variants = {Variant{"a/b", {}}};
  EXPECT_EQ(refusal([&] { e.runs(); }).field(), "variants[0].name");
  e.variants.clear();
  e.seeds = {1, 1};
  EXPECT_EQ(refusal([&] { e.runs(); }).field(), "seeds[1]");
  e.seeds = {1};
  e.sweep = SweepGrid{{"seed", {1, 2}}};
  EXPECT_EQ(refusal([&] { e.sweep_runs(); }).field(), "sweep.seed");
  e.seeds.clear();
  e.sweep = SweepGrid{{"model.mixer.EE", {1}}};
  EXPECT_EQ(refusal([&] { e.sweep_runs(); }).field(), "sweep.model.mixer.EE");
  e.sweep = SweepGrid{{"model.mixer.E", {}}};
  EXPECT_EQ(refusal([&] { e.sweep_runs(); }).field(), "sweep.model.mixer.E");
  e.sweep.reset();
  EXPECT_STREQ(refusal([&] { e.sweep_runs(); }).what(), "sweep: this config has no sweep grid");
  EXPECT_EQ(e.runs().size(), 1u);
  e.base = json::array();
  EXPECT_EQ(refusal([&] { e.runs(); }).field(), "config");
}

TEST(experiment_type, SetOverridesTheBaseLikeACommandLine) {
  Experiment e = Experiment::from_json(text(R"({"name": "x", "variants": [{"name": "v", "set": {"train.lr": 0.1}}]})"));
  e.set("model.mixer.E", 4);
  e.set("train.steps", 7);
  EXPECT_EQ(e.runs()[0].model.mixer.E, 4);
  EXPECT_EQ(e.runs()[0].train.steps, 7);
  EXPECT_EQ(e.runs()[0].train.lr, 0.1);
  EXPECT_EQ(refusal([&] { e.set("model.mixr.E", 1); }).field(), "model.mixr");
}

TEST(experiment_type, NamesAndTheBaseRun) {
  const Experiment named = Experiment::from_json(text(R"({"name": "cmp", "seeds": [5, 6], "seed": 1,
    "variants": [{"name": "a", "set": {"model.mixer.E": 2}}]})"));
  EXPECT_EQ(named.name(), "cmp");
  EXPECT_EQ(named.given_name(), "cmp");
  const RunConfig base = named.base_run();
  EXPECT_EQ(base.name, "cmp");
  EXPECT_EQ(base.group, "");
  EXPECT_EQ(base.seed, 5u);             // the first seed
  EXPECT_EQ(base.model.mixer.E, RunConfig().model.mixer.E);  // no variant applied
  const Experiment nameless = Experiment::from_json(json::object());
  EXPECT_EQ(nameless.name(), RunConfig().name);
  EXPECT_FALSE(nameless.given_name());
}

TEST(experiment_type, OfRunAndTheComparePair) {
  RunConfig run;
  run.name = "p";
  run.seed = 7;
  run.group = "old";
  run.model.mixer.E = 4;
  const Experiment one = Experiment::of_run(run, 3);
  EXPECT_FALSE(one.base.contains("group"));
  EXPECT_EQ(one.seeds, (std::vector<uint64_t>{7, 8, 9}));
  EXPECT_TRUE(Experiment::of_run(run).seeds.empty());
  EXPECT_EQ(names(one.runs()), (std::vector<std::string>{"p-s7", "p-s8", "p-s9"}));

  const Experiment pair = Experiment::compare_pair(run);
  EXPECT_EQ(names(pair.runs()), (std::vector<std::string>{"p-baseline", "p-proteus-e4"}));
  EXPECT_EQ(pair.runs()[0].model.mixer.E, 1);
  const auto proteus = pair.compare_proteus();
  ASSERT_TRUE(proteus);
  EXPECT_EQ(proteus->name, "p");
  EXPECT_EQ(proteus->model.mixer.E, 4);
  // Read back from its file, the pair is still one.
  ASSERT_TRUE(Experiment::from_json(Experiment::compare_pair(run, 2).to_json()).compare_proteus());
  // A custom schedule fits one E: the baseline's goes back to the default.
  run.model.mixer.schedule.type = memory::ScheduleType::custom;
  EXPECT_EQ(Experiment::compare_pair(run).variants[0].set.back(), (std::pair<std::string, json>{"model.mixer.schedule", nullptr}));

  // Other variants are no compare pair; nor is an experiment without variants.
  EXPECT_FALSE(Experiment::from_json(text(R"({"variants": [{"name": "baseline", "set": {"model.mixer.E": 1}},
    {"name": "big", "set": {"model.mixer.E": 4}}]})")).compare_proteus());
  EXPECT_FALSE(Experiment::from_json(text(R"({"variants": [{"name": "a", "set": {"model.mixer.E": 1}}]})")).compare_proteus());
  EXPECT_FALSE(Experiment::from_json(json::object()).compare_proteus());
}

TEST(experiment_type, SweepBaselineAndSeeds) {
  EXPECT_EQ(Experiment::from_json(text(R"({"sweep": {"model.mixer.E": [1, 8], "train.steps": [1, 2]}})")).sweep_baseline_E(), 8);
  EXPECT_FALSE(Experiment::from_json(text(R"({"sweep": {"model.mixer.E": [1, 2, 4]}})")).sweep_baseline_E());
  EXPECT_FALSE(Experiment::from_json(text(R"({"sweep": {"model.mixer.E": [2, 8]}})")).sweep_baseline_E());
  EXPECT_FALSE(Experiment::from_json(text(R"({"sweep": {"train.steps": [1]}})")).sweep_baseline_E());
  EXPECT_FALSE(Experiment::from_json(json::object()).sweep_baseline_E());
  EXPECT_TRUE(Experiment::from_json(text(R"({"seeds": [4, 5, 6]})")).consecutive_seeds());
  EXPECT_TRUE(Experiment::from_json(json::object()).consecutive_seeds());
  EXPECT_FALSE(Experiment::from_json(text(R"({"seeds": [4, 6]})")).consecutive_seeds());
}

// What the window shows of a file's grid beyond its controls (was the window's KeptGrid).
TEST(experiment_type, DescribesItsGridAndTheFieldsItSets) {
  const fs::path presets = fs::path(PROTEUS_SOURCE_DIR) / "experiments";
  const Experiment load = Experiment::load(presets / "maps/memory-load-cpu.json");
  EXPECT_EQ(load.describe(), (std::vector<std::string>{"sweep data.mqar.layout: pairs-first, spread",
                                                       "sweep data.mqar.pairs: 2, 4, 8, 16, 32", "sweep model.mixer.E: 1, 16"}));
  EXPECT_EQ(load.fields_set(), (std::vector<std::string>{"data.mqar.layout", "data.mqar.pairs", "model.mixer.E"}));
  const Experiment norm = Experiment::load(presets / "paper/normalize-variants-cpu.json");
  ASSERT_EQ(norm.variants.size(), 4u);
  EXPECT_EQ(norm.describe().back(), "capped-renormalize: model.mixer.E = 16, model.mixer.normalize = capped_renormalize");
  EXPECT_EQ(norm.fields_set(), (std::vector<std::string>{"model.mixer.E", "model.mixer.normalize"}));
  EXPECT_FALSE(norm.compare_proteus());  // four variants: the file's own
  EXPECT_EQ((Variant{"v", {}}.describe()), "v:");
  EXPECT_EQ(values_text({16, "spread", 0.5}), "16, spread, 0.5");
  EXPECT_EQ(grid_fields({Variant{"a", {{"train.lr", 1}}}}, SweepGrid{{"train.lr", {1}}, {"seed", {1}}}),
            (std::vector<std::string>{"seed", "train.lr"}));
}

}  // namespace

namespace {

// Issue 46: every preset saves and loads back the same: its JSON, its runs.
TEST(experiment_type, EveryPresetSavesAndLoadsBackTheSame) {
  const fs::path presets = fs::path(PROTEUS_SOURCE_DIR) / "experiments";
  proteus::test_support::TempDir tmp;
  int seen = 0;
  for (const auto& entry : fs::recursive_directory_iterator(presets)) {
    const auto rel = fs::relative(entry.path(), presets).generic_string();
    if (!entry.is_regular_file() || entry.path().extension() != ".json" || rel.starts_with("results/") ||
        rel.starts_with("reference/"))
      continue;
    ++seen;
    const Experiment e = Experiment::load(entry.path());
    const fs::path saved = tmp / "saved.json";
    std::ofstream(saved) << e.to_json().dump(2) << "\n";
    const Experiment back = Experiment::load(saved);
    EXPECT_EQ(back.to_json(), e.to_json()) << rel;
    const auto a = e.all_runs(), b = back.all_runs();
    ASSERT_EQ(a.size(), b.size()) << rel;
    for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(to_json(a[i]), to_json(b[i])) << rel << " run " << i;
  }
  EXPECT_GE(seen, 10);
}

// The typed face of the base: read as a config, written back, the same runs; an edit goes in place.
TEST(experiment_type, TheBaseReadsAndWritesAsATypedConfig) {
  Experiment e = Experiment::from_json(text(R"({"name": "cmp", "seed": 7, "model": {"mixer": {"E": 4}},
    "variants": [{"name": "base", "set": {"model.mixer.E": 1}}, {"name": "proteus"}]})"));
  RunConfig base = e.base_config();
  EXPECT_EQ(base.name, "cmp");
  EXPECT_EQ(base.model.mixer.E, 4);
  const auto before = e.runs();
  e.set_base_config(base);
  const auto after = e.runs();
  ASSERT_EQ(before.size(), after.size());
  for (size_t i = 0; i < before.size(); ++i) EXPECT_EQ(to_json(before[i]), to_json(after[i])) << i;
  base.train.steps = 12;
  e.set_base_config(base);
  for (const auto& run : e.runs()) EXPECT_EQ(run.train.steps, 12) << run.name;
  // Out of range is kept (an editor shows it); making the runs refuses it, naming the field.
  base.model.mixer.E = 0;
  e.set_base_config(base);
  EXPECT_EQ(e.base_config().model.mixer.E, 0);
  try {
    e.runs();
    FAIL() << "E = 0 made runs";
  } catch (const InputError& err) {
    EXPECT_EQ(err.field(), "model.mixer.E");
  }
  e.set_seed_count(3);
  EXPECT_EQ(e.seeds, (std::vector<uint64_t>{7, 8, 9}));
  e.set_seed_count(1);
  EXPECT_TRUE(e.seeds.empty());
  EXPECT_EQ(Experiment::compare_variants(after[1]), Experiment::compare_pair(after[1]).variants);
}

}  // namespace
