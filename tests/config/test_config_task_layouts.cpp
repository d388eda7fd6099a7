// The config fields of the task layouts: data.mqar.layout, data.needle and eval.needle read,
// resolved and refused by field path.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/config/config.hpp"
#include "core/config/config_json.hpp"

namespace {

using nlohmann::json;
using proteus::InputError;
using namespace proteus::config;

std::string refused_field(const char* text) {
  try {
    parse_run_config(json::parse(text));
  } catch (const InputError& e) {
    return e.field();
  }
  return "(accepted)";
}

TEST(configTaskLayouts, DefaultsAndReading) {
  const RunConfig d;
  EXPECT_EQ(d.data.mqar.layout, "pairs-first");
  EXPECT_EQ(d.data.needle.vocab, 64);
  EXPECT_EQ(d.data.needle.forms, (std::vector<std::string>{"single", "multikey"}));
  const RunConfig c = parse_run_config(json::parse(R"({
    "model": {"vocab": 64},
    "data": {"seq_len": 128, "mix": [{"task": "needle"}], "mqar": {"layout": "spread"},
             "needle": {"vocab": 32, "forms": ["multikey"], "distractors": 5, "answer_weight": 128}},
    "eval": {"needle": {"depths": 3, "samples": 8}}})"));
  EXPECT_EQ(c.data.mqar.layout, "spread");
  EXPECT_EQ(c.data.mix[0].task, "needle");
  EXPECT_EQ(c.data.needle.vocab, 32);
  EXPECT_EQ(c.data.needle.distractors, 5);
  EXPECT_EQ(d.data.needle.answer_weight, 1.0);
  EXPECT_EQ(c.data.needle.answer_weight, 128.0);
  const RunConfig r = resolve(c);
  EXPECT_EQ(r.eval.needle.forms, (std::vector<std::string>{"multikey"}));
  EXPECT_EQ(r.eval.needle.lengths, (std::vector<int>{64, 128, 256}));
  EXPECT_EQ(parse_run_config(to_json(c)).data.needle.forms, c.data.needle.forms);
}

TEST(configTaskLayouts, RefusalsNameTheirField) {
  EXPECT_EQ(refused_field(R"({"data": {"mqar": {"layout": "zigzag"}}})"), "data.mqar.layout");
  EXPECT_EQ(refused_field(R"({"data": {"needle": {"vocab": 4}}})"), "data.needle.vocab");
  EXPECT_EQ(refused_field(R"({"data": {"needle": {"forms": ["single", "many"]}}})"), "data.needle.forms[1]");
  EXPECT_EQ(refused_field(R"({"data": {"needle": {"distractors": -1}}})"), "data.needle.distractors");
  EXPECT_EQ(refused_field(R"({"data": {"needle": {"answer_weight": -1}}})"), "data.needle.answer_weight");
  EXPECT_EQ(refused_field(R"({"data": {"mix": [{"task": "needles"}]}})"), "data.mix[0].task");
  // The model's vocabulary must cover the needle tokens.
  EXPECT_EQ(refused_field(R"({"model": {"vocab": 32}, "data": {"mix": [{"task": "needle"}]}})"), "model.vocab");
  EXPECT_EQ(refused_field(R"({"model": {"vocab": 64}, "data": {"mix": [{"task": "needle"}]}})"), "(accepted)");
  EXPECT_EQ(refused_field(R"({"eval": {"needle": {"forms": ["x"]}}})"), "eval.needle.forms[0]");
  EXPECT_EQ(refused_field(R"({"eval": {"needle": {"lengths": [64, 0]}}})"), "eval.needle.lengths[1]");
  EXPECT_EQ(refused_field(R"({"eval": {"needle": {"depths": 41}}})"), "eval.needle.depths");
  EXPECT_EQ(refused_field(R"({"eval": {"needle": {"samples": 0}}})"), "eval.needle.samples");
}

}  // namespace
