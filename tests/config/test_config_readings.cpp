// The readings of SPEC section 8 as config switches: model.mixer.output_gate and
// model.mixer.block_axis default to today's model, take --set, round-trip through JSON, and every
// value that cannot run is refused naming the field and the numbers.
#include <gtest/gtest.h>

#include <string>

#include "core/config/config.hpp"
#include "core/config/config_json.hpp"
#include "core/config/experiment.hpp"

namespace {

using nlohmann::json;
using proteus::InputError;
using namespace proteus::config;

// The config with `path` set as `--set path=value` would set it.
json with_set(const std::string& path_equals_value) {
  const auto [path, value] = parse_override(path_equals_value);
  return apply_override(json::object(), path, value);
}

InputError refusal(const json& j) {
  try {
    parse_run_config(j);
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "accepted: " << j.dump();
  return InputError("", "");
}

TEST(ConfigReadings, DefaultsAreTodaysModel) {
  const RunConfig c;
  EXPECT_EQ(c.model.mixer.output_gate, "none");
  EXPECT_EQ(c.model.mixer.block_axis, "key_rows");
  const json j = to_json(c, JsonForm::as_given);
  EXPECT_EQ(j["model"]["mixer"]["output_gate"], "none");
  EXPECT_EQ(j["model"]["mixer"]["block_axis"], "key_rows");
}

TEST(ConfigReadings, SetOnTheCommandLineAndRoundTrip) {
  for (const std::string gate : output_gate_names()) {
    const RunConfig c = parse_run_config(with_set("model.mixer.output_gate=" + gate));
    EXPECT_EQ(c.model.mixer.output_gate, gate);
    EXPECT_EQ(parse_run_config(to_json(c, JsonForm::as_given)).model.mixer.output_gate, gate);
  }
  json j = with_set("model.mixer.block_axis=value_rows");
  j = apply_override(j, "model.mixer.E", 8);
  const RunConfig c = parse_run_config(j);
  EXPECT_EQ(c.model.mixer.block_axis, "value_rows");
  EXPECT_EQ(parse_run_config(to_json(c, JsonForm::as_given)).model.mixer.block_axis, "value_rows");
}

TEST(ConfigReadings, UnknownNamesAreRefusedNamingTheField) {
  EXPECT_EQ(refusal(with_set("model.mixer.output_gate=relu")).field(), "model.mixer.output_gate");
  EXPECT_EQ(refusal(with_set("model.mixer.block_axis=columns")).field(), "model.mixer.block_axis");
}

TEST(ConfigReadings, ValueRowsNeedsEToDivideTheValueWidth) {
  json j = with_set("model.mixer.block_axis=value_rows");
  j = apply_override(j, "model.mixer.E", 3);  // d_head 32
  const InputError e = refusal(j);
  EXPECT_EQ(e.field(), "model.mixer.E");
  EXPECT_NE(e.reason().find("d_head = 32"), std::string::npos) << e.reason();
  EXPECT_NE(e.reason().find("E = 3"), std::string::npos) << e.reason();
  j = apply_override(j, "model.mixer.E", 4);
  j = apply_override(j, "model.mixer.normalize", "mask_then_normalize");
  EXPECT_EQ(refusal(j).field(), "model.mixer.normalize");
}

TEST(ConfigReadings, LayerNeedsEToDivideTheLayersKeyRows) {
  json j = with_set("model.mixer.block_axis=layer");
  j = apply_override(j, "model.mixer.E", 5);  // 2 heads x 32
  const InputError e = refusal(j);
  EXPECT_EQ(e.field(), "model.mixer.E");
  EXPECT_NE(e.reason().find("= 64"), std::string::npos) << e.reason();
  EXPECT_NE(e.reason().find("E = 5"), std::string::npos) << e.reason();
  j = apply_override(j, "model.mixer.E", 16);
  EXPECT_EQ(parse_run_config(j).model.mixer.E, 16);
  j = apply_override(j, "model.mixer.rule", "swla");
  EXPECT_EQ(refusal(j).field(), "model.mixer.block_axis");
}

TEST(ConfigReadings, TheAttentionMixerTakesNoOutputGate) {
  json j = with_set("model.mixer.output_gate=swish");
  j = apply_override(j, "model.mixer.type", "attention");
  EXPECT_EQ(refusal(j).field(), "model.mixer.output_gate");
}

}  // namespace
