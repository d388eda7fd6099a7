// The engine's seam: a job runs on its worker, publishes immutable snapshots that a reader takes
// without waiting, can be cancelled at any step (leaving a readable, resumable run), and its
// evaluations land in the run directory.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include "core/engine/experiment_job.hpp"
#include "core/runs/eval_files.hpp"
#include "core/runs/run_dir.hpp"
#include "tests/train/tiny_run.hpp"

namespace {

using namespace proteus;
using Clock = std::chrono::steady_clock;

// Every polling loop gives up after this long, so a hung job fails its test (the handle cancels
// and joins on the way out) instead of stalling the suite.
constexpr auto kDeadline = std::chrono::seconds(120);

TEST(ExperimentJob, TrainsEvaluatesAndPublishesSnapshots) {
  const auto dir = test_support::fresh_dir("job");
  auto cfg = test_support::tiny_run(dir);
  auto job = engine::start_training({cfg}, {.evaluate = true});
  int last_step = -1;
  int snapshots = 0;
  const auto start = Clock::now();
  while (job.running()) {
    ASSERT_LT(Clock::now() - start, kDeadline) << "the job did not finish";
    if (auto s = job.latest()) {
      ++snapshots;
      ASSERT_EQ(s->runs.size(), 1u);
      EXPECT_GE(s->runs[0].step, last_step) << "snapshots go forward";
      last_step = s->runs[0].step;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  job.wait();
  const auto s = job.latest();
  ASSERT_TRUE(s && s->done);
  const auto& r = s->runs[0];
  EXPECT_EQ(r.state, engine::RunPhase::finished) << r.message;
  EXPECT_EQ(r.step, cfg.train.steps);
  EXPECT_EQ(r.history.size(), size_t(cfg.train.steps));
  ASSERT_TRUE(r.report && r.report->per_position && r.report->occupancy);
  EXPECT_EQ(r.report->per_position->seq_len, 24);
  EXPECT_GT(r.report->per_position->mean_nll, 0.0);
  EXPECT_EQ(r.report->occupancy->blocks, 4);
  EXPECT_GT(snapshots, 0);
  // The files say the same as the snapshot.
  const auto reader = runs::RunReader::open(r.run_dir);
  const auto back = runs::read_eval_report(reader);
  ASSERT_TRUE(back.per_position);
  EXPECT_EQ(back.per_position->nll, r.report->per_position->nll);
  EXPECT_EQ(reader.status().state, runs::RunState::finished);
}

TEST(ExperimentJob, CancelLeavesAReadableResumableRun) {
  const auto dir = test_support::fresh_dir("cancel");
  auto cfg = test_support::tiny_run(dir);
  cfg.train.steps = 1000;
  auto job = engine::start_training({cfg, cfg}, {.evaluate = true});
  const auto start = Clock::now();
  while (true) {
    ASSERT_LT(Clock::now() - start, kDeadline) << "no step 2";
    auto s = job.latest();
    if (s && !s->runs.empty() && s->runs[0].step >= 2) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  job.cancel();
  job.wait();
  const auto s = job.latest();
  ASSERT_TRUE(s && s->done);
  EXPECT_EQ(s->runs[0].state, engine::RunPhase::cancelled);
  EXPECT_EQ(s->runs[1].state, engine::RunPhase::queued) << "a cancel stops the whole job";
  const auto reader = runs::RunReader::open(s->runs[0].run_dir);
  EXPECT_EQ(reader.status().state, runs::RunState::cancelled);
  EXPECT_FALSE(reader.metrics().empty());
  EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(s->runs[0].run_dir) / "checkpoint.safetensors"));
}

TEST(ExperimentJob, SideBySideTrainsBothRunsAtOnce) {
  const auto dir = test_support::fresh_dir("side");
  auto base = test_support::tiny_run(dir);
  base.model.mixer.E = 1;
  base.name = "baseline";
  auto proteus = base;
  proteus.model.mixer.E = 4;
  proteus.name = "proteus";
  proteus.train.steps = 200;  // long enough that the baseline finishes while it still trains
  base.train.steps = 3;
  auto job = engine::start_training({proteus, base}, {.evaluate = false, .side_by_side = true});
  bool overlapped = false;
  const auto start = Clock::now();
  while (job.running()) {
    ASSERT_LT(Clock::now() - start, kDeadline) << "the job did not finish";
    if (auto s = job.latest())
      overlapped |= s->runs[1].state == engine::RunPhase::finished && s->runs[0].state == engine::RunPhase::training;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  job.wait();
  const auto s = job.latest();
  EXPECT_TRUE(overlapped) << "the second run finished only after the first";
  for (const auto& r : s->runs) {
    EXPECT_EQ(r.state, engine::RunPhase::finished) << r.name << ": " << r.message;
    EXPECT_EQ(r.history.back().step, r.total_steps) << r.name;
  }
}

TEST(ExperimentJob, PauseHoldsTheWorkerUntilResume) {
  const auto dir = test_support::fresh_dir("pause");
  auto cfg = test_support::tiny_run(dir);
  cfg.train.steps = 1000;
  auto job = engine::start_training({cfg}, {.evaluate = false});
  const auto start = Clock::now();
  while (!job.latest() || job.latest()->runs[0].step < 1) {
    ASSERT_LT(Clock::now() - start, kDeadline) << "no first step";
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  job.pause();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const int held = job.latest()->runs[0].step;
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_LE(job.latest()->runs[0].step, held + 1) << "at most the step in flight finishes while paused";
  job.resume();
  const auto resumed = Clock::now();
  while (job.latest()->runs[0].step < held + 3) {
    ASSERT_LT(Clock::now() - resumed, kDeadline) << "no steps after resume";
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  job.cancel();
  job.wait();
}

}  // namespace

namespace {

// The compare view redraws per-position perplexity at every evaluation step, before the final
// evaluations: the snapshot carries the validation rows' per-position loss from step eval_every on.
TEST(ExperimentJob, PublishesTheLivePerPositionCurveAtEachEvaluation) {
  const auto dir = proteus::test_support::fresh_dir("live-pp");
  auto cfg = proteus::test_support::tiny_run(dir);
  cfg.train.val_batches = 3;  // 6 validation rows for the band
  auto job = proteus::engine::start_training({cfg}, {.evaluate = false});
  std::string run_dir_while_training;
  std::vector<int> live_steps;
  const auto start = Clock::now();
  while (job.running()) {
    ASSERT_LT(Clock::now() - start, kDeadline) << "the job did not finish";
    if (auto s = job.latest(); s && !s->runs.empty()) {
      const auto& r = s->runs[0];
      if (r.state == engine::RunPhase::training && !r.run_dir.empty()) run_dir_while_training = r.run_dir;
      if (r.live_per_position && (live_steps.empty() || live_steps.back() != r.live_per_position_step))
        live_steps.push_back(r.live_per_position_step);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  job.wait();
  const auto s = job.latest();
  const auto& r = s->runs[0];
  ASSERT_TRUE(r.live_per_position);
  EXPECT_EQ(r.live_per_position_step, cfg.train.steps);
  EXPECT_EQ(r.live_per_position->seq_len, cfg.data.seq_len);
  EXPECT_FALSE(r.live_per_position->bucket_nll.empty());
  for (double x : r.live_per_position->nll) EXPECT_TRUE(std::isfinite(x) && x > 0);
  // Its mean over positions is the validation loss the trainer reported (all text rows, weight 1).
  EXPECT_NEAR(r.live_per_position->mean_nll / std::log(2.0), r.val_bpb, 1e-4);
  for (int step : live_steps) EXPECT_EQ(step % cfg.train.eval_every, 0) << "only evaluation steps carry the curve";
  EXPECT_FALSE(run_dir_while_training.empty()) << "the run directory is known while the run trains";
  // Its band: a bootstrap over the validation rows around each bucket's mean (issue 12).
  const auto& live = *r.live_per_position;
  const int rows = cfg.train.val_batches * cfg.data.batch;
  EXPECT_EQ(live.sequences, rows);
  ASSERT_EQ(live.bucket_interval.size(), live.bucket_nll.size());
  for (size_t k = 0; k < live.bucket_nll.size(); ++k) {
    const auto& i = live.bucket_interval[k];
    EXPECT_EQ(i.n, rows) << "bucket " << k;
    EXPECT_LE(i.lo, live.bucket_nll[k]) << "bucket " << k;
    EXPECT_GE(i.hi, live.bucket_nll[k]) << "bucket " << k;
  }
  EXPECT_TRUE(std::any_of(live.bucket_interval.begin(), live.bucket_interval.end(),
                          [](const auto& i) { return i.lo < i.hi; }))
      << "rows of different text differ: some band has a width";
  for (const auto& m : r.history) EXPECT_TRUE(m.val_row_nll.empty()) << "history stays small";
}

// Block use is measured live (issue 15): at each evaluation step on the validation rows, for a
// memory model with E > 1; an E = 1 model has none (not applicable).
TEST(ExperimentJob, PublishesLiveBlockUseForGatedModelsOnly) {
  const auto dir = proteus::test_support::fresh_dir("live-use");
  auto gated = proteus::test_support::tiny_run(dir);
  gated.name = "gated";
  gated.model.mixer.E = 4;
  auto plain = gated;
  plain.name = "plain";
  plain.model.mixer.E = 1;
  auto job = proteus::engine::start_training({gated, plain}, {.evaluate = false});
  const auto start = Clock::now();
  while (job.running()) {
    ASSERT_LT(Clock::now() - start, kDeadline) << "the job did not finish";
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  job.wait();
  const auto s = job.latest();
  ASSERT_EQ(s->runs.size(), 2u);
  ASSERT_TRUE(s->runs[0].live_block_use) << "E = 4: measured on the validation rows";
  const auto& u = *s->runs[0].live_block_use;
  EXPECT_TRUE(u.applicable);
  EXPECT_EQ(u.blocks, 4);
  ASSERT_FALSE(u.positions.empty());
  for (int p : u.positions) EXPECT_LE(p, gated.data.seq_len) << "positions within a validation row";
  for (const auto& e : u.mean_entropy) {
    EXPECT_GE(e.mean, 0.0);
    EXPECT_LE(e.mean, 1.0 + 1e-9);
  }
  EXPECT_FALSE(s->runs[1].live_block_use) << "E = 1: not applicable, nothing published";
}

// A token needle run: trained and evaluated by the engine, its grid in needle.json and the
// snapshot alike; the occupancy drawn from needle prompts (the run has no text). Eval lengths too
// short for the needles are refused before training.
TEST(ExperimentJob, NeedleRunWritesItsGridAndShortLengthsAreRefused) {
  const auto dir = test_support::fresh_dir("needle");
  auto cfg = test_support::tiny_run(dir);
  cfg.model.vocab = 32;
  cfg.data.mix = {{"needle", 1.0}};
  cfg.data.needle.vocab = 32;
  cfg.data.needle.distractors = 1;  // multikey prompts of 6 tokens and more
  cfg.eval.needle.depths = 2;
  cfg.eval.needle.samples = 2;
  auto job = engine::start_training({cfg}, {.evaluate = true});
  job.wait();
  const auto& r = job.latest()->runs[0];
  EXPECT_EQ(r.state, engine::RunPhase::finished) << r.message;
  ASSERT_TRUE(r.report && r.report->needle && r.report->occupancy);
  EXPECT_FALSE(r.report->per_position) << "no text, no per-position perplexity";
  ASSERT_EQ(r.report->needle->forms.size(), 2u);
  EXPECT_EQ(r.report->needle->forms[1].lengths, (std::vector<int>{8, 16, 32}));
  const auto back = runs::read_eval_report(runs::RunReader::open(r.run_dir));
  ASSERT_TRUE(back.needle);
  EXPECT_EQ(back.needle->forms[1].score, r.report->needle->forms[1].score);

  cfg.eval.needle.lengths = {32, 5};
  try {
    train::validate_run(cfg);
    ADD_FAILURE() << "accepted a 5-token multikey prompt";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "eval.needle.lengths[1]") << e.what();
  }
  std::filesystem::remove_all(dir);
}

}  // namespace

namespace {

TEST(ExperimentJob, TheDeviceIsKnownWhileTraining) {
  const auto dir = proteus::test_support::fresh_dir("job-device");
  auto cfg = proteus::test_support::tiny_run(dir);
  cfg.train.steps = 40;
  auto job = proteus::engine::start_training({cfg}, {.evaluate = false});
  bool seen_training_with_device = false;
  const auto start = Clock::now();
  while (job.running() && Clock::now() - start < kDeadline) {
    if (auto s = job.latest(); s && !s->runs.empty() && s->runs[0].state == engine::RunPhase::training && s->runs[0].step > 0)
      seen_training_with_device |= s->runs[0].device == "cpu";
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  job.wait();
  EXPECT_TRUE(seen_training_with_device) << "the runs table's device column stays empty while training";
}

}  // namespace
