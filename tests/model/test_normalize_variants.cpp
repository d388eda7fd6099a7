// How the mask meets the normalisation (model.mixer.normalize): every variant's whole-model
// gradient against central finite differences in float64, for every rule, with row-aligned and
// elementwise blocks; E = 1 makes every variant the ungated model bit for bit; and the variants
// really differ when E > 1.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <tuple>

#include "core/backend/cpu/cpu_backend.hpp"
#include "core/model/model.hpp"

namespace {

using namespace proteus;

using memory::KeyNormalize;
using memory::Rule;

config::ModelConfig tiny(Rule rule, KeyNormalize normalize, int E) {
  config::ModelConfig m;
  m.vocab = 11;
  m.d_model = 8;
  m.layers = 1;
  m.d_hidden = 8;
  m.init_std = 0.3;
  m.mixer.rule = rule;
  m.mixer.heads = 2;
  m.mixer.d_head = 3;
  m.mixer.conv = 2;
  m.mixer.E = E;  // D = 9: E = 3 is one key row per block, E = 2 splits a row
  m.mixer.normalize = normalize;
  return m;
}

struct Batch {
  int B = 2, T = 7;
  std::vector<int32_t> tokens, targets;
  explicit Batch(int vocab) {
    std::mt19937 rng(9);
    for (int n = 0; n < B * T; ++n) {
      tokens.push_back(static_cast<int32_t>(rng() % vocab));
      targets.push_back(static_cast<int32_t>(rng() % vocab));
    }
  }
};

using Param = std::tuple<Rule, KeyNormalize, int>;  // rule, normalize, E
class NormalizeGradient : public ::testing::TestWithParam<Param> {};

TEST_P(NormalizeGradient, MatchesCentralFiniteDifferences) {
  const auto [rule, normalize, E] = GetParam();
  auto be = backend::make_cpu_backend<double>(1);
  const auto cfg = tiny(rule, normalize, E);
  model::Model<double> m(cfg, /*horizon=*/5, *be, 17);
  Batch batch(cfg.vocab);
  auto loss = [&] { return m.forward(batch.tokens.data(), batch.targets.data(), nullptr, batch.B, batch.T); };
  loss();
  m.backward();
  const size_t P = m.num_params();
  std::vector<double> params(P), grads(P);
  be->download(params.data(), m.params(), P);
  be->download(grads.data(), m.grads(), P);
  const double h = 1e-6;
  for (const auto& e : m.table().entries()) {
    if (e.name.find(".mixer.") == std::string::npos) continue;  // the variants live in the mixer
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
    EXPECT_LT(worst, 1e-6 * scale + 5e-9) << e.name << ": max abs error " << worst << " at scale " << scale;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Variants, NormalizeGradient,
    ::testing::Combine(::testing::ValuesIn(memory::all_rules()),
                       ::testing::Values(KeyNormalize::mask_then_normalize, KeyNormalize::capped_renormalize),
                       ::testing::Values(2, 3)),
    [](const auto& info) {
      return std::string(memory::rule_name(std::get<0>(info.param))) + "_" +
             std::string(memory::key_normalize_name(std::get<1>(info.param))) + "_E" + std::to_string(std::get<2>(info.param));
    });

std::pair<double, std::vector<float>> loss_and_grads(const config::ModelConfig& cfg, backend::Backend<float>& be) {
  model::Model<float> m(cfg, 5, be, 23);
  Batch batch(cfg.vocab);
  const double l = m.forward(batch.tokens.data(), batch.targets.data(), nullptr, batch.B, batch.T);
  m.backward();
  std::vector<float> g(m.num_params());
  be.download(g.data(), m.grads(), g.size());
  return {l, g};
}

TEST(NormalizeVariants, EOneIsTheUngatedModelBitForBit) {
  auto be = backend::make_cpu_backend<float>(1);
  for (Rule rule : {Rule::delta, Rule::comba, Rule::titans}) {
    const auto base = loss_and_grads(tiny(rule, KeyNormalize::normalize_then_mask, 1), *be);
    for (KeyNormalize variant : {KeyNormalize::mask_then_normalize, KeyNormalize::capped_renormalize}) {
      const auto other = loss_and_grads(tiny(rule, variant, 1), *be);
      const std::string what = std::string(memory::rule_name(rule)) + " " + std::string(memory::key_normalize_name(variant));
      EXPECT_EQ(other.first, base.first) << what;
      ASSERT_EQ(other.second.size(), base.second.size());
      EXPECT_EQ(0, std::memcmp(other.second.data(), base.second.data(), base.second.size() * sizeof(float)))
          << what << ": gradients differ";
    }
  }
}

TEST(NormalizeVariants, TheyDifferWhileBlocksAreLocked) {
  auto be = backend::make_cpu_backend<float>(1);
  const double a = loss_and_grads(tiny(Rule::delta, KeyNormalize::normalize_then_mask, 3), *be).first;
  const double b = loss_and_grads(tiny(Rule::delta, KeyNormalize::mask_then_normalize, 3), *be).first;
  const double c = loss_and_grads(tiny(Rule::delta, KeyNormalize::capped_renormalize, 3), *be).first;
  EXPECT_NE(a, b);
  EXPECT_NE(a, c);
  EXPECT_NE(b, c);
}

}  // namespace
