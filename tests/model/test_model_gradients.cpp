// The whole model's gradient against central finite differences in float64, on tiny configs of
// every mixer (each memory rule with E > 1 and the attention reference) and of the readings of
// math.md section 8 (output gate, value_rows, the MLP chain of Hope-Attention), with the parameter
// schedule's mask and per-position loss weights; plus same-seed-same-bits in float.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <tuple>

#include "core/backend/cpu/cpu_backend.hpp"
#include "tests/support/masking_cpu_backend.hpp"
#include "core/model/model.hpp"

namespace {

using namespace proteus;

using config::MixerType;
using config::OutputGate;
using memory::BlockAxis;
using memory::Rule;

config::ModelConfig tiny_config(MixerType type, Rule rule) {
  config::ModelConfig m;
  m.vocab = 13;
  m.d_model = 8;
  m.layers = 2;
  m.d_hidden = 12;
  m.init_std = 0.3;  // large weights so every path carries signal at this size
  m.mixer.type = type;
  m.mixer.rule = rule;
  m.mixer.heads = 2;
  m.mixer.d_head = 3;
  m.mixer.conv = 3;
  m.mixer.decay = true;
  m.mixer.window = 2;
  m.mixer.E = 3;  // D = 9 elements in blocks of 3 rows
  return m;
}

struct Batch {
  int B = 2, T = 7;
  std::vector<int32_t> tokens, targets;
  std::vector<float> weights;
  explicit Batch(int vocab) {
    std::mt19937 rng(5);
    for (int n = 0; n < B * T; ++n) {
      tokens.push_back(static_cast<int32_t>(rng() % vocab));
      targets.push_back(static_cast<int32_t>(rng() % vocab));
      weights.push_back(n % 5 == 0 ? 0.0f : (n % 3 == 0 ? 2.0f : 1.0f));
    }
  }
};

// Every parameter's gradient against central differences of the loss, entry by entry.
void expect_gradients_match_finite_differences(const config::ModelConfig& cfg,
                                               std::unique_ptr<backend::Backend<double>> be = nullptr) {
  if (!be) be = backend::make_cpu_backend<double>(1);
  model::Model<double> m(cfg, /*horizon=*/5, *be, 42);
  Batch batch(cfg.vocab);
  auto loss = [&] {
    return m.forward(batch.tokens.data(), batch.targets.data(), batch.weights.data(), batch.B, batch.T);
  };
  loss();
  m.backward();
  const size_t P = m.num_params();
  std::vector<double> params(P), grads(P);
  be->download(params.data(), m.params(), P);
  be->download(grads.data(), m.grads(), P);

  const double h = 1e-6;
  for (const auto& e : m.table().entries()) {
    double worst = 0, scale = 1e-6;
    for (size_t i = 0; i < e.size; ++i) {
      const size_t at = e.offset + i;
      double x = params[at] + h;
      be->upload(m.params() + at, &x, 1);
      const double up = loss();
      x = params[at] - h;
      be->upload(m.params() + at, &x, 1);
      const double down = loss();
      be->upload(m.params() + at, &params[at], 1);
      const double numeric = (up - down) / (2 * h);
      worst = std::max(worst, std::fabs(numeric - grads[at]));
      scale = std::max(scale, std::fabs(numeric));
    }
    // Relative to the entry's own scale, with a floor at the finite differences' rounding noise
    // (about 1e-16 * |L| / h) for entries whose gradient is tiny.
    EXPECT_LT(worst, 1e-6 * scale + 5e-9) << e.name << ": max abs error " << worst << " at scale " << scale;
    EXPECT_GT(scale, 1e-6) << e.name << " gets no gradient at all";
  }
}

// A mixer to test: its type, and the rule when it is a memory mixer ("memory_delta", "attention_").
using Mixer = std::pair<MixerType, Rule>;
constexpr Mixer kAttention{MixerType::attention, Rule::delta};
constexpr Mixer memory_mixer(Rule rule) { return {MixerType::memory, rule}; }
std::string mixer_name(const Mixer& m) {
  return std::string(common::choice_name(m.first)) + "_" +
         (m.first == MixerType::attention ? "" : std::string(memory::rule_name(m.second)));
}

class ModelGradient : public ::testing::TestWithParam<Mixer> {};

TEST_P(ModelGradient, MatchesCentralFiniteDifferences) {
  const auto [type, rule] = GetParam();
  expect_gradients_match_finite_differences(tiny_config(type, rule));
}

INSTANTIATE_TEST_SUITE_P(Mixers, ModelGradient,
                         ::testing::Values(memory_mixer(Rule::linear), memory_mixer(Rule::delta),
                                           memory_mixer(Rule::comba), memory_mixer(Rule::titans),
                                           memory_mixer(Rule::swla), memory_mixer(Rule::gla), memory_mixer(Rule::kda),
                                           kAttention),
                         [](const auto& info) { return mixer_name(info.param); });

// The readings of math.md section 8: the output gate (W_g gets its gradient too) and value_rows
// (E = 3 divides d_head = 3: one value dimension per block) and layer (2 key rows per block over
// 2 heads of 3), on rules of each family.
using Reading = std::tuple<Rule, BlockAxis, OutputGate>;

// "delta_value_rows_none": a reading case's test name.
std::string reading_name(const ::testing::TestParamInfo<Reading>& info) {
  return std::string(memory::rule_name(std::get<0>(info.param))) + "_" +
         std::string(memory::block_axis_name(std::get<1>(info.param))) + "_" +
         std::string(common::choice_name(std::get<2>(info.param)));
}

class ReadingGradient : public ::testing::TestWithParam<Reading> {};

TEST_P(ReadingGradient, MatchesCentralFiniteDifferences) {
  const auto [rule, axis, gate] = GetParam();
  auto cfg = tiny_config(MixerType::memory, rule);
  cfg.mixer.block_axis = axis;
  cfg.mixer.output_gate = gate;
  expect_gradients_match_finite_differences(cfg);
}

INSTANTIATE_TEST_SUITE_P(Readings, ReadingGradient,
                         ::testing::Values(std::tuple{Rule::delta, BlockAxis::key_rows, OutputGate::swish},
                                           std::tuple{Rule::delta, BlockAxis::key_rows, OutputGate::sigmoid},
                                           std::tuple{Rule::swla, BlockAxis::key_rows, OutputGate::sigmoid},
                                           std::tuple{Rule::delta, BlockAxis::value_rows, OutputGate::none},
                                           std::tuple{Rule::comba, BlockAxis::value_rows, OutputGate::swish},
                                           std::tuple{Rule::titans, BlockAxis::value_rows, OutputGate::none},
                                           std::tuple{Rule::linear, BlockAxis::value_rows, OutputGate::sigmoid},
                                           std::tuple{Rule::delta, BlockAxis::layer, OutputGate::none},
                                           std::tuple{Rule::comba, BlockAxis::layer, OutputGate::swish},
                                           std::tuple{Rule::titans, BlockAxis::layer, OutputGate::none},
                                           std::tuple{Rule::swla, BlockAxis::value_rows, OutputGate::none},
                                           std::tuple{Rule::swla, BlockAxis::layer, OutputGate::sigmoid}),
                         reading_name);

// The same readings on a backend without the open-widths table (as CUDA): the mixer masks the rule's
// inputs and outputs around the ungated rule, and its backward is checked the same way.
class MaskedReadingGradient : public ::testing::TestWithParam<Reading> {};

TEST_P(MaskedReadingGradient, MatchesCentralFiniteDifferences) {
  const auto [rule, axis, gate] = GetParam();
  auto cfg = tiny_config(MixerType::memory, rule);
  cfg.mixer.block_axis = axis;
  cfg.mixer.output_gate = gate;
  expect_gradients_match_finite_differences(cfg, std::make_unique<test_support::MaskingCpuBackend<double>>(1));
}

INSTANTIATE_TEST_SUITE_P(Readings, MaskedReadingGradient,
                         ::testing::Values(std::tuple{Rule::delta, BlockAxis::value_rows, OutputGate::none},
                                           std::tuple{Rule::comba, BlockAxis::value_rows, OutputGate::swish},
                                           std::tuple{Rule::titans, BlockAxis::value_rows, OutputGate::none},
                                           std::tuple{Rule::linear, BlockAxis::value_rows, OutputGate::sigmoid},
                                           std::tuple{Rule::delta, BlockAxis::layer, OutputGate::none},
                                           std::tuple{Rule::comba, BlockAxis::layer, OutputGate::swish},
                                           std::tuple{Rule::titans, BlockAxis::layer, OutputGate::none}),
                         reading_name);

// Masking around the ungated rule and gating by the table are one model: loss and gradients of the
// two backends agree to float64 rounding, and the masking backend does take the masked path.
TEST(MaskedReading, EqualsTheGatedRuleOnTheSameWeights) {
  for (const auto axis : {BlockAxis::value_rows, BlockAxis::layer}) {
    auto cfg = tiny_config(MixerType::memory, Rule::delta);
    cfg.mixer.block_axis = axis;
    auto gating = backend::make_cpu_backend<double>(1);
    test_support::MaskingCpuBackend<double> masking(1);
    backend::OpShape widths;
    widths.rule = Rule::delta, widths.open_widths = true;
    ASSERT_TRUE(gating->supports(backend::Op::memory_rule, widths));
    ASSERT_FALSE(masking.supports(backend::Op::memory_rule, widths));
    model::Model<double> a(cfg, 5, *gating, 42), b(cfg, 5, masking, 42);
    Batch batch(cfg.vocab);
    const double la = a.forward(batch.tokens.data(), batch.targets.data(), batch.weights.data(), batch.B, batch.T);
    const double lb = b.forward(batch.tokens.data(), batch.targets.data(), batch.weights.data(), batch.B, batch.T);
    const std::string_view name = memory::block_axis_name(axis);
    EXPECT_NEAR(la, lb, 1e-13 * la) << name;
    a.backward();
    b.backward();
    std::vector<double> ga(a.num_params()), gb(b.num_params());
    gating->download(ga.data(), a.grads(), ga.size());
    masking.download(gb.data(), b.grads(), gb.size());
    double worst = 0, scale = 0;
    for (size_t i = 0; i < ga.size(); ++i) worst = std::max(worst, std::fabs(ga[i] - gb[i])), scale = std::max(scale, std::fabs(ga[i]));
    EXPECT_LT(worst, 1e-12 * scale) << name;
  }
}

// The MLP chain of Hope-Attention (model.mlp.chain): three SwiGLU blocks, each a residual step with
// its own norm gain, behind the attention mixer (the Hope-Attention arm) and behind a memory mixer.
// The update periods do not touch the forward, so the gradient is the chain's whole backward.
class ChainGradient : public ::testing::TestWithParam<Mixer> {};

TEST_P(ChainGradient, MatchesCentralFiniteDifferences) {
  const auto [type, rule] = GetParam();
  auto cfg = tiny_config(type, rule);
  cfg.mlp.chain = {{1}, {4}, {16}};
  expect_gradients_match_finite_differences(cfg);
}

INSTANTIATE_TEST_SUITE_P(Chains, ChainGradient,
                         ::testing::Values(kAttention, memory_mixer(Rule::comba)),
                         [](const auto& info) { return mixer_name(info.param); });

TEST(Model, SameSeedSameBits) {
  auto be = backend::make_cpu_backend<float>(0);
  auto cfg = tiny_config(MixerType::memory, Rule::delta);
  cfg.d_model = 32;
  cfg.mixer.d_head = 8;
  cfg.mixer.E = 4;
  Batch batch(cfg.vocab);
  std::vector<std::vector<float>> runs;
  for (int r = 0; r < 2; ++r) {
    model::Model<float> m(cfg, 5, *be, 7);
    m.forward(batch.tokens.data(), batch.targets.data(), batch.weights.data(), batch.B, batch.T);
    m.backward();
    std::vector<float> g(m.num_params());
    be->download(g.data(), m.grads(), g.size());
    runs.push_back(g);
  }
  EXPECT_EQ(0, std::memcmp(runs[0].data(), runs[1].data(), runs[0].size() * sizeof(float)));
  model::Model<float> other(cfg, 5, *be, 8);
  std::vector<float> p7(runs[0].size()), p8(runs[0].size());
  model::Model<float> again(cfg, 5, *be, 7);
  be->download(p7.data(), again.params(), p7.size());
  be->download(p8.data(), other.params(), p8.size());
  EXPECT_NE(0, std::memcmp(p7.data(), p8.data(), p7.size() * sizeof(float))) << "the seed must matter";
}

TEST(Model, EOneMemoryModelIgnoresTheSchedule) {
  // With E = 1 the schedule type and horizon cannot change a single bit of the loss.
  auto be = backend::make_cpu_backend<float>(1);
  auto cfg = tiny_config(MixerType::memory, Rule::delta);
  cfg.mixer.E = 1;
  Batch batch(cfg.vocab);
  model::Model<float> a(cfg, 5, *be, 3);
  cfg.mixer.schedule.type = memory::ScheduleType::geometric;
  model::Model<float> b(cfg, 2, *be, 3);
  const double la = a.forward(batch.tokens.data(), batch.targets.data(), nullptr, batch.B, batch.T);
  const double lb = b.forward(batch.tokens.data(), batch.targets.data(), nullptr, batch.B, batch.T);
  EXPECT_EQ(la, lb);
}

TEST(Model, ParameterScheduleMaskCoversTheLockedHiddenUnits) {
  auto be = backend::make_cpu_backend<double>(1);
  const auto cfg = tiny_config(MixerType::memory, Rule::delta);
  model::Model<double> m(cfg, 5, *be, 1);
  const auto mask = m.mlp_update_mask(4);
  size_t zeros = 0;
  for (double x : mask) zeros += x == 0.0;
  // Per layer: (12 - 4) hidden units x 8 inputs in W1 and W3, and 8 x 8 columns entries of W2.
  EXPECT_EQ(zeros, size_t(cfg.layers) * 3 * 8 * 8);
  const auto* w2 = m.table().find("layers.0.mlp.w2.weight");
  ASSERT_NE(w2, nullptr);
  EXPECT_EQ(mask[w2->offset + 3], 1.0);   // row 0, hidden unit 3: active
  EXPECT_EQ(mask[w2->offset + 4], 0.0);   // row 0, hidden unit 4: locked
}

}  // namespace
