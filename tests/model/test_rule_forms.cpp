// The two forms of the memory rule (model.mixer.form: recurrent with checkpoints, chunked) give
// the whole model the same loss and the same gradient of every parameter in float64, for every
// rule, E row-aligned and not, every normalize variant, with and without decay; and a float
// model gives the same bits run to run within one form.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <tuple>

#include "core/backend/cpu/cpu_backend.hpp"
#include "core/memory/key_normalize.hpp"
#include "core/model/model.hpp"

namespace {

using namespace proteus;

using memory::KeyNormalize;
using memory::Rule;
using memory::RuleForm;

config::ModelConfig tiny(Rule rule, KeyNormalize normalize, int d_head, int E, bool decay, RuleForm form) {
  config::ModelConfig m;
  m.vocab = 11;
  m.d_model = 8;
  m.layers = 2;
  m.d_hidden = 8;
  m.init_std = 0.3;
  m.mixer.rule = rule;
  m.mixer.heads = 2;
  m.mixer.d_head = d_head;
  m.mixer.conv = 2;
  m.mixer.decay = decay;
  m.mixer.E = E;
  m.mixer.normalize = normalize;
  m.mixer.form = form;
  return m;
}

struct Batch {
  int B = 2, T = 37;  // more than two chunks of 16, with a ragged tail
  std::vector<int32_t> tokens, targets;
  explicit Batch(int vocab) {
    std::mt19937 rng(9);
    for (int n = 0; n < B * T; ++n) {
      tokens.push_back(static_cast<int32_t>(rng() % vocab));
      targets.push_back(static_cast<int32_t>(rng() % vocab));
    }
  }
};

struct LossAndGrads {
  double loss;
  std::vector<double> grads;
};

LossAndGrads loss_and_grads(const config::ModelConfig& cfg, const Batch& batch) {
  auto be = backend::make_cpu_backend<double>(1);
  model::Model<double> m(cfg, /*horizon=*/29, *be, 42);
  LossAndGrads r;
  r.loss = m.forward(batch.tokens.data(), batch.targets.data(), nullptr, batch.B, batch.T);
  m.backward();
  r.grads.resize(m.num_params());
  be->download(r.grads.data(), m.grads(), r.grads.size());
  return r;
}

using Param = std::tuple<Rule, KeyNormalize, int, bool>;  // rule, normalize, E, decay
class RuleForms : public ::testing::TestWithParam<Param> {};

TEST_P(RuleForms, ChunkedAndRecurrentGiveTheSameLossAndGradients) {
  const auto [rule, normalize, E, decay] = GetParam();
  const int d_head = 4;  // D = 16: E = 1, 2, 4 are row-aligned, E = 16 is one element per block
  const Batch batch(11);
  const auto rec = loss_and_grads(tiny(rule, normalize, d_head, E, decay, RuleForm::recurrent), batch);
  const auto aut = loss_and_grads(tiny(rule, normalize, d_head, E, decay, RuleForm::automatic), batch);
  EXPECT_NEAR(aut.loss, rec.loss, 1e-12 * std::fabs(rec.loss));
  double diff = 0, scale = 0;
  for (size_t i = 0; i < rec.grads.size(); ++i) {
    diff = std::max(diff, std::fabs(aut.grads[i] - rec.grads[i]));
    scale = std::max(scale, std::fabs(rec.grads[i]));
  }
  EXPECT_GT(scale, 0.0);
  EXPECT_LT(diff, 1e-10 * scale) << "max abs gradient difference " << diff << " at scale " << scale;
}

std::vector<Param> all_params() {
  std::vector<Param> ps;
  for (Rule rule : memory::all_rules())
    for (KeyNormalize normalize : common::choice_values<KeyNormalize>())
      for (int E : {1, 2, 16})
        for (bool decay : {true, false}) ps.emplace_back(rule, normalize, E, decay);
  return ps;
}

INSTANTIATE_TEST_SUITE_P(AllRules, RuleForms, ::testing::ValuesIn(all_params()), [](const auto& info) {
  return std::string(memory::rule_name(std::get<0>(info.param))) + "_" +
         std::string(memory::key_normalize_name(std::get<1>(info.param))) + "_E" + std::to_string(std::get<2>(info.param)) +
         (std::get<3>(info.param) ? "_decay" : "_nodecay");
});

TEST(RuleForms, ChunkedIsRefusedWhereItDoesNotApply) {
  auto be = backend::make_cpu_backend<double>(1);
  const Batch batch(11);
  model::Model<double> m(tiny(Rule::titans, KeyNormalize::normalize_then_mask, 4, 2, true, RuleForm::chunked), 29, *be, 1);
  try {
    m.forward(batch.tokens.data(), batch.targets.data(), nullptr, batch.B, batch.T);
    FAIL() << "a chunked titans must be refused";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "form");
  }
}

TEST(RuleForms, SameSeedSameBitsInEachForm) {
  for (RuleForm form : {RuleForm::recurrent, RuleForm::chunked}) {
    auto cfg = tiny(Rule::delta, KeyNormalize::normalize_then_mask, 16, 16, true, form);
    cfg.d_model = 32;
    const Batch batch(cfg.vocab);
    std::vector<std::vector<float>> runs;
    for (int r = 0; r < 2; ++r) {
      auto be = backend::make_cpu_backend<float>(2);
      model::Model<float> m(cfg, 29, *be, 7);
      m.forward(batch.tokens.data(), batch.targets.data(), nullptr, batch.B, batch.T);
      m.backward();
      std::vector<float> g(m.num_params());
      be->download(g.data(), m.grads(), g.size());
      runs.push_back(g);
    }
    EXPECT_EQ(0, std::memcmp(runs[0].data(), runs[1].data(), runs[0].size() * sizeof(float))) << memory::rule_form_name(form);
  }
}

}  // namespace
