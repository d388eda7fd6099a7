// The MLP chain's training (model.mlp.chain, math.md section 8's Hope-Attention): a block with
// every = C keeps its weights for C - 1 steps, then takes one AdamW step with the mean of the C
// gradients (its own step count for the bias corrections); the parameter schedule gates that step
// like every other; and a run cancelled mid-period resumes to the uninterrupted run's weights bit
// for bit, because the checkpoint holds the summed gradients and each block's place in its period.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "core/backend/cpu/cpu_backend.hpp"
#include "core/common/input_error.hpp"
#include "core/model/model.hpp"
#include "core/runs/run_dir.hpp"
#include "core/runs/safetensors.hpp"
#include "core/train/checkpoint.hpp"
#include "core/train/gated_adamw.hpp"
#include "core/train/trainer.hpp"
#include "tests/train/tiny_run.hpp"

namespace {

using namespace proteus;

config::RunConfig chain_config() {
  config::RunConfig c;
  c.model.vocab = 13;
  c.model.d_model = 8;
  c.model.layers = 2;
  c.model.d_hidden = 8;
  c.model.mixer.type = config::MixerType::attention;  // the Hope-Attention arm
  c.model.mixer.heads = 2;
  c.model.mixer.d_head = 4;
  c.model.mlp.chain = {{1}, {3}};
  c.train.weight_decay = 0.1;
  return c;
}

struct Steps {
  std::unique_ptr<backend::Backend<float>> be = backend::make_cpu_backend<float>(1);
  config::RunConfig cfg;
  model::Model<float> m;
  train::GatedAdamW<float> opt;
  std::mt19937 rng{9};
  explicit Steps(const config::RunConfig& c) : cfg(c), m(c.model, 16, *be, 5), opt(m, c) {}
  std::vector<float> params() const {
    std::vector<float> p(m.num_params());
    be->download(p.data(), m.params(), p.size());
    return p;
  }
  // One forward and backward on a fresh random batch; returns the gradient before the update.
  std::vector<float> gradient() {
    const int B = 2, T = 6;
    std::vector<int32_t> tokens(B * T), targets(B * T);
    for (auto* v : {&tokens, &targets})
      for (auto& x : *v) x = static_cast<int32_t>(rng() % cfg.model.vocab);
    m.forward(tokens.data(), targets.data(), nullptr, B, T);
    m.backward();
    std::vector<float> g(m.num_params());
    be->download(g.data(), m.grads(), g.size());
    return g;
  }
};

TEST(MlpChain, ASlowBlockTakesOneAdamWStepWithTheMeanGradientEveryPeriod) {
  Steps s(chain_config());
  const auto slow = s.m.mlp_block_ranges(1);
  const auto fast = s.m.mlp_block_ranges(0);
  ASSERT_EQ(slow.size(), 2u);  // one range per layer
  const auto p0 = s.params();
  std::vector<std::vector<float>> grads;
  const double lr = 1e-2;
  for (int step = 1; step <= 3; ++step) {
    grads.push_back(s.gradient());
    s.opt.step(step, lr);
    const auto p = s.params();
    for (const auto& r : slow)
      for (size_t i = r.offset; i < r.offset + r.size; ++i) {
        if (step < 3) {
          ASSERT_EQ(p[i], p0[i]) << "slow block moved at step " << step;
        }
      }
    int moved = 0;
    for (const auto& r : fast) moved += p[r.offset + 20] != p0[r.offset + 20];  // block 0 trains every step
    EXPECT_GT(moved, 0) << "step " << step;
  }
  // The slow block's step 3, written out: AdamW's first step (count 1) on the mean of the three
  // gradients, summed in order and scaled, as the backend does it in float.
  const auto p3 = s.params();
  const auto decay = s.m.decay_mask();
  const auto& t = s.cfg.train;
  const float b1 = float(t.beta1), b2 = float(t.beta2), eps = float(t.eps), wd = float(t.weight_decay), flr = float(lr);
  const float bc1 = float(1.0 - std::pow(t.beta1, 1)), bc2 = float(1.0 - std::pow(t.beta2, 1));
  double worst = 0;
  int moved = 0;
  for (const auto& r : slow)
    for (size_t i = r.offset; i < r.offset + r.size; ++i) {
      float g = 0;
      for (const auto& gs : grads) g += gs[i];
      g *= float(1.0 / 3.0);
      const float m = (1 - b1) * g, v = (1 - b2) * g * g;
      const float want = p0[i] - flr * ((m / bc1) / (std::sqrt(v / bc2) + eps) + wd * decay[i] * p0[i]);
      worst = std::max(worst, double(std::fabs(want - p3[i])));
      moved += p3[i] != p0[i];
    }
  EXPECT_LT(worst, 1e-7);
  EXPECT_GT(moved, 0);
  EXPECT_EQ(s.opt.chain_phase(3), "0,0");
  EXPECT_EQ(s.opt.chain_phase(4), "0,1");
}

TEST(MlpChain, TheParameterScheduleGatesTheSlowBlocksUpdate) {
  auto cfg = chain_config();
  cfg.model.mlp.chain = {{1}, {2}};
  cfg.model.param_schedule.enabled = true;
  cfg.model.param_schedule.E = 4;   // 2 units per block of d_hidden 8
  cfg.model.param_schedule.N = 40;  // Delta = 10: steps 1-10 train the first 2 units only
  Steps s(cfg);
  const auto p0 = s.params();
  for (int step = 1; step <= 4; ++step) {
    s.gradient();
    s.opt.step(step, 1e-2);
  }
  const auto p = s.params();
  const int C = cfg.model.d_model, F = 8;
  for (int block : {0, 1}) {
    const auto r = s.m.mlp_block_ranges(block)[0];
    const size_t w1 = r.offset + C;  // after the norm gain
    int moved_open = 0;
    for (int j = 0; j < F; ++j)
      for (int c = 0; c < C; ++c) {
        const size_t at = w1 + static_cast<size_t>(j) * C + c;
        if (j >= 2) ASSERT_EQ(p[at], p0[at]) << "block " << block << ": locked unit " << j << " moved";
        else moved_open += p[at] != p0[at];
      }
    EXPECT_GT(moved_open, 0) << "block " << block << ": the open units must train";
    const size_t w2 = w1 + 2 * static_cast<size_t>(F) * C;
    for (int c = 0; c < C; ++c)
      for (int j = 2; j < F; ++j) ASSERT_EQ(p[w2 + c * F + j], p0[w2 + c * F + j]) << "W2 column of locked unit " << j;
  }
}

// Parameters, moments, summed gradients, step and data stream: what two runs that must agree share.
std::string checkpoint_bytes(const std::string& run_dir) {
  const auto f = runs::read_safetensors(std::filesystem::path(run_dir) / train::kCheckpointFile);
  std::string all;
  for (const auto& t : f.tensors) all += t.name + std::string(t.bytes.begin(), t.bytes.end());
  return all + f.metadata.at("step") + f.metadata.at("data_rng");
}

// Only the weights: the final checkpoint's parameter tensors.
std::string weight_bytes(const std::string& run_dir) {
  const auto f = runs::read_safetensors(std::filesystem::path(run_dir) / train::kCheckpointFile);
  std::string all;
  for (const auto& t : f.tensors)
    if (t.name.rfind("optimizer.", 0) != 0) all += t.name + std::string(t.bytes.begin(), t.bytes.end());
  return all;
}

config::RunConfig chain_run(const std::filesystem::path& dir) {
  auto cfg = test_support::tiny_run(dir);
  cfg.model.mlp.chain = {{1}, {2}, {4}};
  cfg.model.param_schedule.enabled = true;  // the gated arm: the schedule over the chain's units
  cfg.model.param_schedule.E = 4;
  cfg.train.steps = 9;
  return cfg;
}

TEST(MlpChain, ResumingMidPeriodGivesTheUninterruptedRunsWeightsBitForBit) {
  const auto dir = test_support::fresh_dir("chain-resume");
  const auto cfg = chain_run(dir);
  const auto straight = train::train_new_run(cfg);
  ASSERT_EQ(straight.state, runs::RunState::finished) << straight.message;

  int seen = 0;
  train::TrainHooks hooks;
  hooks.on_step = [&](const train::StepMetrics&) { ++seen; };
  hooks.should_stop = [&] { return seen >= 3; };  // after step 3: block 1 is 1 of 2 in, block 2 3 of 4
  const auto cut = train::train_new_run(cfg, hooks);
  ASSERT_EQ(cut.state, runs::RunState::cancelled) << cut.message;
  ASSERT_EQ(cut.steps_done, 3);
  const auto mid = runs::read_safetensors(std::filesystem::path(cut.run_dir) / train::kCheckpointFile);
  EXPECT_EQ(mid.metadata.at(train::kChainPhase), "0,1,3");
  ASSERT_NE(mid.find(train::kChainGradSums), nullptr);

  const auto resumed = train::resume_run(cut.run_dir);
  ASSERT_EQ(resumed.state, runs::RunState::finished) << resumed.message;
  EXPECT_EQ(resumed.steps_done, cfg.train.steps);
  // Compared as booleans: a failure names what differs instead of printing the tensors' bytes.
  EXPECT_TRUE(weight_bytes(resumed.run_dir) == weight_bytes(straight.run_dir))
      << "the resumed run's weights differ from the uninterrupted run's";
  EXPECT_TRUE(checkpoint_bytes(resumed.run_dir) == checkpoint_bytes(straight.run_dir))
      << "the resumed run's moments or summed gradients differ from the uninterrupted run's";
  std::filesystem::remove_all(dir);
}

TEST(MlpChain, AResumeRefusesACheckpointWithoutTheSummedGradients) {
  const auto dir = test_support::fresh_dir("chain-refuse");
  auto cfg = chain_run(dir);
  int seen = 0;
  train::TrainHooks hooks;
  hooks.on_step = [&](const train::StepMetrics&) { ++seen; };
  hooks.should_stop = [&] { return seen >= 3; };
  const auto cut = train::train_new_run(cfg, hooks);
  ASSERT_EQ(cut.state, runs::RunState::cancelled) << cut.message;
  // Rewrite the checkpoint without the sums: a resume must refuse it, naming the tensor.
  const auto path = std::filesystem::path(cut.run_dir) / train::kCheckpointFile;
  auto file = runs::read_safetensors(path);
  std::vector<runs::Tensor> kept;
  for (const auto& t : file.tensors)
    if (t.name != train::kChainGradSums) kept.push_back(t);
  runs::write_safetensors(path, kept, file.metadata);
  try {
    train::resume_run(cut.run_dir);
    ADD_FAILURE() << "resumed without the MLP chain's summed gradients";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(train::kChainGradSums), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
