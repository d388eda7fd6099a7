// Issue 10 on the config: every size-like field has a bound, checked before anything is built,
// with the bound in the message; derived sizes are computed in 64 bits and blamed on the right
// field; duplicate keys, a non-string name, deep nesting and huge values are refused with short
// messages; an experiment of a million runs is refused in a line.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/config/config_json.hpp"
#include "core/config/experiment.hpp"
#include "core/config/size_bounds.hpp"
#include "tests/support/temp_dir.hpp"

namespace {

using nlohmann::json;
using proteus::InputError;
using namespace proteus::config;

// What `proteus train` and `proteus sweep` make of an experiment's value.
std::vector<RunConfig> variant_runs(const json& experiment) { return Experiment::from_json(experiment).runs(); }
std::vector<RunConfig> grid_runs(const json& experiment) { return Experiment::from_json(experiment).sweep_runs(); }
namespace fs = std::filesystem;

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

InputError config_refusal(const json& j) {
  return refusal([&] { parse_run_config(j); });
}

// {"a": {"b": value}} for "a.b"; a list field gets [value].
bool is_list(const std::string& path) {
  return path == "eval.niah.lengths" || path == "eval.needle.lengths" || path == "data.mqar.train_pairs";
}

json with_field(const std::string& path, int64_t value) {
  const json v = is_list(path) ? json::array({value}) : json(value);
  return apply_override(json::object(), path, v);
}

std::string range(const SizeBound& b) {
  return "must be in [" + std::to_string(b.lo) + ", " + std::to_string(b.hi) + "], got ";
}

TEST(ConfigLimits, EveryBoundRefusesJustOutsideWithTheBoundInTheMessage) {
  ASSERT_GE(size_bounds().size(), 25u);
  for (const SizeBound& b : size_bounds()) {
    const std::string path(b.path);
    const std::string field = is_list(path) ? path + "[0]" : path;
    for (const int64_t bad : {b.lo - 1, b.hi + 1}) {
      const InputError e = config_refusal(with_field(path, bad));
      EXPECT_EQ(e.field(), field) << e.what();
      EXPECT_EQ(e.reason(), range(b) + std::to_string(bad)) << e.what();
    }
    // Far beyond an int: the same message, not a wrapped number or a bare "out of range".
    const InputError huge = config_refusal(with_field(path, int64_t{1} << 40));
    EXPECT_EQ(huge.reason(), range(b) + std::to_string(int64_t{1} << 40)) << huge.what();
  }
}

TEST(ConfigLimits, EveryBoundedPathIsAFieldOfTheSchema) {
  const auto paths = config_paths();
  for (const SizeBound& b : size_bounds())
    EXPECT_NE(std::find(paths.begin(), paths.end(), std::string(b.path)), paths.end()) << b.path;
}

TEST(ConfigLimits, TheIssuesExamplesBlameTheRightField) {
  // d_model = 1e9 wrapped d_hidden and blamed model.param_schedule.E; seq_len = 2e9 blamed
  // data.mqar.vocab; threads = 100000 started 32,000 threads.
  EXPECT_EQ(config_refusal(json::parse(R"({"model": {"d_model": 1e9}})")).field(), "model.d_model");
  EXPECT_EQ(config_refusal(json::parse(R"({"data": {"seq_len": 2e9}})")).field(), "data.seq_len");
  EXPECT_EQ(config_refusal(json::parse(R"({"threads": 100000})")).what(),
            std::string("threads: must be in [0, 1024], got 100000"));
  // The window's path: structs straight to validate().
  RunConfig c;
  c.model.d_model = 1000000000;
  EXPECT_EQ(refusal([&] { validate(c); }).field(), "model.d_model");
  c = RunConfig();
  c.data.seq_len = 2000000000;
  EXPECT_EQ(refusal([&] { validate(c); }).field(), "data.seq_len");
}

TEST(ConfigLimits, DerivedSizesAreCheckedIn64Bits) {
  const InputError params = config_refusal(json::parse(R"({"model": {"vocab": 1048576, "d_model": 4096}})"));
  EXPECT_EQ(params.field(), "model");
  EXPECT_NE(params.reason().find("parameters"), std::string::npos) << params.what();
  EXPECT_NE(params.reason().find("2,147,483,648"), std::string::npos) << params.what();

  const InputError tokens = config_refusal(json::parse(R"({"data": {"batch": 65536, "seq_len": 1024}})"));
  EXPECT_EQ(tokens.field(), "data.batch");
  EXPECT_NE(tokens.reason().find("data.batch x data.seq_len = 67,108,864 tokens"), std::string::npos) << tokens.what();

  // Attention's probabilities grow with the length squared: the length is blamed.
  const InputError attention = config_refusal(json::parse(R"({"model": {"mixer": {"type": "attention", "heads": 8}},
      "data": {"batch": 1, "seq_len": 65536, "mqar": {"vocab": 100000}}, "eval": {"per_position": {"enabled": false},
      "niah": {"enabled": false}, "occupancy": {"enabled": false}}})"));
  EXPECT_EQ(attention.field(), "data.seq_len");
  EXPECT_NE(attention.reason().find("attention probabilities"), std::string::npos) << attention.what();

  // An evaluation length past what training uses is blamed on itself.
  const InputError eval = config_refusal(json::parse(R"({"model": {"mixer": {"d_head": 1024}},
      "eval": {"per_position": {"seq_len": 8192}}})"));
  EXPECT_EQ(eval.field(), "eval.per_position.seq_len");
  EXPECT_NE(eval.reason().find("memory states"), std::string::npos) << eval.what();

  EXPECT_EQ(saturating_product({int64_t{1} << 40, int64_t{1} << 40}), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(saturating_product({3, 5, 7}), 105);
}

TEST(ConfigLimits, MessagesQuoteAShortPrefixOfABadValue) {
  const std::string huge(1 << 20, 'x');
  for (const json& j : {json{{"device", huge}}, json{{"name", huge}}, json{{"model", {{"mixer", {{"rule", huge}}}}}},
                        json{{huge, 1}}, json{{"model", {{huge, 1}}}}}) {
    const InputError e = config_refusal(j);
    EXPECT_LT(std::string(e.what()).size(), 400u) << std::string(e.what()).substr(0, 400);
  }
  const InputError override_path = refusal([&] { apply_override(json::object(), "model." + huge, 1); });
  EXPECT_LT(std::string(override_path.what()).size(), 400u);
}

class ConfigFiles : public ::testing::Test {
 protected:
  fs::path write(const std::string& name, const std::string& text) { return tmp_.write(name, text); }
  proteus::test_support::TempDir tmp_;
  const fs::path& dir_ = tmp_.path();
};

TEST_F(ConfigFiles, DuplicateKeysAreRefusedInAConfigAndItsParents) {
  // Last one won, silently; memory-op already refused them.
  const InputError top = refusal([&] { load_experiment_json(write("a.json", R"({"seed": 1, "seed": 2})")); });
  EXPECT_EQ(top.field(), "seed");
  EXPECT_NE(top.reason().find("appears twice"), std::string::npos) << top.what();
  write("base.json", R"({"model": {"mixer": {"E": 4, "E": 8}}})");
  EXPECT_EQ(refusal([&] { load_experiment_json(write("child.json", R"({"parent": "base.json"})")); }).field(),
            "model.mixer.E");
}

TEST_F(ConfigFiles, ANonStringNameIsRefused) {
  // It was replaced by "run".
  const json j = load_experiment_json(write("n.json", R"({"name": 5})"));
  const InputError e = refusal([&] { variant_runs(j); });
  EXPECT_EQ(e.what(), std::string("name: expected a string, got 5"));
  EXPECT_EQ(refusal([&] { grid_runs(json::parse(R"({"name": [1], "sweep": {"seed": [1, 2]}})")); }).field(), "name");
}

TEST_F(ConfigFiles, DeepNestingIsRefusedWithoutACrash) {
  // 100,000 nested objects crashed variant expansion (a recursive copy overflowed the stack).
  std::string deep = "{\"variants\": [{\"name\": \"v\", \"set\": {\"name\": ";
  for (int i = 0; i < 100000; ++i) deep += "{\"a\":";
  deep += '1';
  deep.append(100000, '}');
  deep += "}}]}";
  const InputError e = refusal([&] { load_experiment_json(write("deep.json", deep)); });
  EXPECT_NE(e.reason().find("nesting deeper than 64 levels"), std::string::npos) << e.what();
  EXPECT_EQ(e.field().rfind((dir_ / "deep.json").generic_string() + ":1:", 0), 0u) << e.what();
}

TEST_F(ConfigFiles, AnEndlessFileIsRefusedAtTheLimit) {
  const InputError e = refusal([&] { load_experiment_json("/dev/zero"); });
  EXPECT_EQ(e.what(), std::string("/dev/zero: is larger than the limit of 4 MiB for a config file"));
}

TEST_F(ConfigFiles, AMillionRunsAreRefused) {
  json grid = json::array();
  for (int i = 0; i < 1000; ++i) grid.push_back(i);
  const json j = {{"sweep", {{"seed", grid}, {"model.mixer.E", grid}}}};
  const InputError e = refusal([&] { grid_runs(j); });
  EXPECT_EQ(e.field(), "sweep");
  EXPECT_NE(e.reason().find("more than 10000 runs"), std::string::npos) << e.what();
}

TEST(ConfigOverrides, SetValuesAreJsonOrAString) {
  EXPECT_EQ(parse_override("model.mixer.E=16").second, json(16));
  EXPECT_EQ(parse_override("model.mixer.rule=delta").second, json("delta"));
  EXPECT_EQ(parse_override("model.mixer.schedule={\"type\": \"power\"}").second["type"], "power");
  EXPECT_EQ(parse_override("name=a=b").second, json("a=b"));
  // JSON that parses but is refused is an error, not a string.
  EXPECT_NE(refusal([] { parse_override(R"(model={"d_model": 1, "d_model": 2})"); }).reason().find("appears twice"),
            std::string::npos);
  EXPECT_EQ(refusal([] { parse_override("novalue"); }).field(), "--set");
}

}  // namespace
