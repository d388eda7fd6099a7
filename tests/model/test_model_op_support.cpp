// The model asks its backend before relying on an op (Backend::supports): a backend that cannot
// run the model's mixer refuses with an error naming the op, the limit and the way out, before
// the op runs; a backend that can runs the same model.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/common/input_error.hpp"
#include "core/model/model.hpp"
#include "tests/backend/faulty_backend.hpp"
#include "tests/support/masking_cpu_backend.hpp"

namespace {

using namespace proteus;
using backend::testing::Fault;
using backend::testing::FaultyBackend;

config::ModelConfig tiny(config::MixerType type, int d_head) {
  config::ModelConfig m;
  m.vocab = 11;
  m.d_model = 8;
  m.layers = 1;
  m.mixer.type = type;
  m.mixer.heads = 2;
  m.mixer.d_head = d_head;
  return m;
}

std::string forward_error(const config::ModelConfig& cfg, backend::Backend<float>& be) {
  model::Model<float> m(cfg, 8, be, 1);
  const std::vector<int32_t> tokens = {1, 2, 3, 4, 5, 6, 7, 8};
  try {
    m.forward(tokens.data(), tokens.data(), nullptr, 1, 8);
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "device");
    return e.what();
  }
  return "";
}

TEST(ModelOpSupport, RefusesAMemoryRuleTheBackendCannotRun) {
  FaultyBackend be(Fault::narrow_rules, "narrow");
  const std::string e = forward_error(tiny(config::MixerType::memory, 8), be);
  EXPECT_NE(e.find("the narrow backend cannot run memory_rule"), std::string::npos) << e;
  EXPECT_NE(e.find("value width 8 > 4"), std::string::npos) << e;
  EXPECT_NE(e.find("choose device cpu"), std::string::npos) << e;
  EXPECT_EQ(forward_error(tiny(config::MixerType::memory, 4), be), "") << "d_v = 4 is within the limit";
}

TEST(ModelOpSupport, RefusesAttentionTheBackendCannotRun) {
  FaultyBackend be(Fault::no_attention, "no-attn");
  const std::string e = forward_error(tiny(config::MixerType::attention, 4), be);
  EXPECT_NE(e.find("the no-attn backend cannot run attention"), std::string::npos) << e;
  FaultyBackend plain(Fault::none);
  EXPECT_EQ(forward_error(tiny(config::MixerType::attention, 4), plain), "");
}

// Under value_rows and layer a backend without the table of open widths runs the rule on masked
// inputs (backend::OpenWidthsRule); a rule with window writes cannot run that way and is refused
// by name before anything runs, while the rules whose masked inputs are their gate run.
TEST(ModelOpSupport, RefusesWindowWritesUnderOpenWidthsWithoutTheTable) {
  test_support::MaskingCpuBackend<float> masking(1);
  for (memory::Rule rule : memory::all_rules()) {
    auto cfg = tiny(config::MixerType::memory, 4);
    cfg.mixer.rule = rule;
    cfg.mixer.block_axis = memory::BlockAxis::value_rows;
    cfg.mixer.E = 2;
    const std::string e = forward_error(cfg, masking);
    if (memory::rule_masks_as_gates(rule)) {
      EXPECT_EQ(e, "") << memory::rule_name(rule);
      continue;
    }
    EXPECT_NE(e.find("cannot run memory_rule"), std::string::npos) << e;
    EXPECT_NE(e.find("rule " + std::string(memory::rule_name(rule))), std::string::npos) << e;
    EXPECT_NE(e.find("choose device cpu"), std::string::npos) << e;
  }
}

}  // namespace
