// The trainer's promises: same seed same bits, a cancel leaves a resumable run whose resumed
// result equals the uninterrupted one bit for bit, a non-finite loss stops the run with a clear
// message and keeps the last good checkpoint, bad configs are refused by field, and the run
// directory is readable while and after it streams.
#include <gtest/gtest.h>

#include <cmath>

#include "core/backend/cpu/cpu_backend.hpp"
#include "core/common/input_error.hpp"
#include "core/model/model.hpp"
#include "core/runs/run_dir.hpp"
#include "core/runs/safetensors.hpp"
#include "core/train/checkpoint.hpp"
#include "core/train/lr_schedule.hpp"
#include "core/train/trainer.hpp"
#include "tests/train/tiny_run.hpp"

namespace {

using namespace proteus;

std::string checkpoint_bytes(const std::string& run_dir) {
  // Parameters and moments only: the metadata holds wall time, which differs run to run.
  const auto f = runs::read_safetensors(std::filesystem::path(run_dir) / train::kCheckpointFile);
  std::string all;
  for (const auto& t : f.tensors) all += t.name + std::string(t.bytes.begin(), t.bytes.end());
  return all + f.metadata.at("step") + f.metadata.at("data_rng");
}

TEST(Trainer, SameSeedSameBits) {
  const auto dir = test_support::fresh_dir("seed");
  const auto cfg = test_support::tiny_run(dir);
  const auto a = train::train_new_run(cfg);
  const auto b = train::train_new_run(cfg);
  ASSERT_EQ(a.state, runs::RunState::finished) << a.message;
  ASSERT_EQ(b.state, runs::RunState::finished) << b.message;
  EXPECT_NE(a.run_dir, b.run_dir);
  EXPECT_EQ(checkpoint_bytes(a.run_dir), checkpoint_bytes(b.run_dir));
  EXPECT_EQ(a.final_loss, b.final_loss);
  auto other = cfg;
  other.seed = 4;
  const auto c = train::train_new_run(other);
  EXPECT_NE(checkpoint_bytes(a.run_dir), checkpoint_bytes(c.run_dir)) << "the seed must matter";
}

TEST(Trainer, CancelThenResumeEqualsTheUninterruptedRun) {
  const auto dir = test_support::fresh_dir("resume");
  const auto cfg = test_support::tiny_run(dir);
  const auto straight = train::train_new_run(cfg);
  ASSERT_EQ(straight.state, runs::RunState::finished);

  int seen = 0;
  train::TrainHooks hooks;
  hooks.on_step = [&](const train::StepMetrics&) { ++seen; };
  hooks.should_stop = [&] { return seen >= 2; };
  const auto cut = train::train_new_run(cfg, hooks);
  ASSERT_EQ(cut.state, runs::RunState::cancelled);
  EXPECT_EQ(cut.steps_done, 2);
  const auto reader = runs::RunReader::open(cut.run_dir);
  EXPECT_EQ(reader.status().state, runs::RunState::cancelled);
  EXPECT_NE(reader.status().message.find("--resume"), std::string::npos);

  const auto resumed = train::resume_run(cut.run_dir);
  ASSERT_EQ(resumed.state, runs::RunState::finished) << resumed.message;
  EXPECT_EQ(resumed.steps_done, cfg.train.steps);
  EXPECT_EQ(checkpoint_bytes(resumed.run_dir), checkpoint_bytes(straight.run_dir));
  // The metrics read as one run: every step once, in order.
  const auto lines = reader.metrics();
  ASSERT_EQ(lines.size(), size_t(cfg.train.steps));
  for (size_t i = 0; i < lines.size(); ++i) EXPECT_EQ(lines[i].at("step").get<int>(), int(i + 1));
  EXPECT_TRUE(lines.back().contains("val_bpb"));
}

TEST(Trainer, NonFiniteLossStopsAndKeepsTheLastGoodCheckpoint) {
  const auto dir = test_support::fresh_dir("nan");
  auto cfg = test_support::tiny_run(dir);
  cfg.train.lr = 1e12;  // the first update blows the weights up
  cfg.train.min_lr = 0;
  cfg.train.warmup = 0;
  cfg.train.grad_clip = 0;
  cfg.train.steps = 50;
  cfg.train.checkpoint_every = 1;  // the last good checkpoint is the step before the failure
  const auto r = train::train_new_run(cfg);
  ASSERT_EQ(r.state, runs::RunState::failed);
  EXPECT_NE(r.message.find("non-finite"), std::string::npos) << r.message;
  EXPECT_LT(r.steps_done, cfg.train.steps);
  const auto reader = runs::RunReader::open(r.run_dir);
  EXPECT_EQ(reader.status().state, runs::RunState::failed);
  // Step 1 is computed on the initial weights, so it is finite and checkpointed; its update breaks step 2.
  ASSERT_GE(r.steps_done, 1) << "the failure must come after a good step, or there is no checkpoint to check";
  const auto ckpt = runs::read_safetensors(std::filesystem::path(r.run_dir) / train::kCheckpointFile);
  EXPECT_EQ(std::stoi(ckpt.metadata.at("step")), r.steps_done);
  for (const auto& t : ckpt.tensors)
    for (float x : t.to_f32()) ASSERT_TRUE(std::isfinite(x)) << t.name << " in the kept checkpoint";
}

TEST(Trainer, RefusesABadConfigByField) {
  const auto dir = test_support::fresh_dir("bad");
  auto cfg = test_support::tiny_run(dir);
  cfg.model.mixer.E = 0;
  try {
    train::train_new_run(cfg);
    ADD_FAILURE() << "E = 0 accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "model.mixer.E");
  }
  EXPECT_TRUE(runs::list_runs(dir).empty()) << "a refused config must not leave a run directory";
}

TEST(Trainer, ParameterScheduleLeavesLockedHiddenUnitsUntouched) {
  const auto dir = test_support::fresh_dir("paramsched");
  auto cfg = test_support::tiny_run(dir);
  cfg.model.d_hidden = 16;
  cfg.model.param_schedule.enabled = true;
  cfg.model.param_schedule.E = 4;  // 4 units per block
  cfg.model.param_schedule.N = 8;  // Delta = 2: steps 1 and 2 train the first block only
  cfg.train.steps = 2;
  const auto r = train::train_new_run(cfg);
  ASSERT_EQ(r.state, runs::RunState::finished) << r.message;
  // The initial weights, from the same seed.
  auto be = backend::make_cpu_backend<float>(1);
  model::Model<float> init(cfg.model, config::resolved_mixer_horizon(cfg), *be, cfg.seed);
  std::vector<float> p0(init.num_params());
  be->download(p0.data(), init.params(), p0.size());
  const auto ckpt = runs::read_safetensors(std::filesystem::path(r.run_dir) / train::kCheckpointFile);
  const auto* w1 = init.table().find("layers.0.mlp.w1.weight");
  const auto trained = ckpt.at("layers.0.mlp.w1.weight").to_f32();
  const int C = cfg.model.d_model;
  int moved_active = 0;
  for (int j = 0; j < 16; ++j)
    for (int c = 0; c < C; ++c) {
      const float before = p0[w1->offset + j * C + c], after = trained[j * C + c];
      if (j >= 4) {
        ASSERT_EQ(before, after) << "locked hidden unit " << j << " moved";
      } else {
        moved_active += before != after;
      }
    }
  EXPECT_GT(moved_active, 0) << "the first block must train";
}

TEST(LearningRate, WarmsUpThenFollowsTheCosine) {
  config::TrainConfig t;
  t.steps = 110;
  t.warmup = 10;
  t.lr = 1.0;
  t.min_lr = 0.1;
  EXPECT_DOUBLE_EQ(train::learning_rate(t, 1), 0.1);
  EXPECT_DOUBLE_EQ(train::learning_rate(t, 10), 1.0);
  EXPECT_NEAR(train::learning_rate(t, 60), 0.55, 1e-12);  // half way down the cosine
  EXPECT_DOUBLE_EQ(train::learning_rate(t, 110), 0.1);
}

}  // namespace
