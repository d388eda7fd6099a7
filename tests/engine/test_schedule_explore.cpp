// Explore and `eval --as` (ARCHITECTURE seam 7): a trained run's weights evaluated under another
// schedule. The trained schedule reproduces the run's own results exactly; E = 1 on a Proteus
// model is the ungated model (every block open from position 1); the newest edit wins; an
// evaluation into RUN/evals/NAME never writes the run's own files and never writes over a NAME.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <thread>

#include "core/common/input_error.hpp"
#include "core/engine/edited_evaluation.hpp"
#include "core/engine/experiment_job.hpp"
#include "core/engine/schedule_explore.hpp"
#include "core/runs/eval_files.hpp"
#include "core/runs/run_dir.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/train/tiny_run.hpp"

namespace {

using namespace proteus;
using Clock = std::chrono::steady_clock;
constexpr auto kDeadline = std::chrono::seconds(120);

// One tiny Proteus run (E = 4 over N = 16), trained and evaluated once for the whole suite.
class ExploreTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new test_support::TempDir();
    auto cfg = test_support::tiny_run(dir_->path());
    cfg.eval.per_position.sequences = 4;
    auto job = engine::start_training({cfg}, {.evaluate = true});
    job.wait();
    const auto s = job.latest();
    ASSERT_TRUE(s && s->runs.size() == 1 && s->runs[0].state == engine::RunPhase::finished);
    run_dir_ = s->runs[0].run_dir;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static const std::string& run_dir() { return run_dir_; }

  // Waits until the explorer has answered generation g (or later) and is idle.
  static std::shared_ptr<const engine::ExploreSnapshot> settled(const engine::ScheduleExplorer& x, uint64_t g) {
    const auto start = Clock::now();
    for (;;) {
      auto s = x.latest();
      if (s->generation >= g && !s->busy) return s;
      if (Clock::now() - start > kDeadline) {
        ADD_FAILURE() << "the explorer did not answer";
        return s;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }

  static test_support::TempDir* dir_;
  static std::string run_dir_;
};
test_support::TempDir* ExploreTest::dir_ = nullptr;
std::string ExploreTest::run_dir_;

// Every file of the run but evals/, by relative path, with its bytes.
std::map<std::string, std::string> run_files(const std::filesystem::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    const auto rel = std::filesystem::relative(e.path(), dir).generic_string();
    if (rel.starts_with("evals") || !e.is_regular_file()) continue;
    std::ifstream in(e.path(), std::ios::binary);
    out[rel] = std::string(std::istreambuf_iterator<char>(in), {});
  }
  return out;
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Two per-position curves are the same evaluation: every number and interval bit for bit.
void expect_same_curve(const eval::PerPositionResult& a, const eval::PerPositionResult& b) {
  EXPECT_EQ(a.nll, b.nll);
  EXPECT_EQ(a.sequence_bucket_nll, b.sequence_bucket_nll);
  EXPECT_EQ(a.sequences_fingerprint, b.sequences_fingerprint);
  ASSERT_EQ(a.bucket_interval.size(), b.bucket_interval.size());
  for (size_t k = 0; k < a.bucket_interval.size(); ++k) {
    EXPECT_EQ(a.bucket_interval[k].lo, b.bucket_interval[k].lo);
    EXPECT_EQ(a.bucket_interval[k].hi, b.bucket_interval[k].hi);
  }
}

TEST_F(ExploreTest, TrainedScheduleReproducesTheRunsOwnResultsExactly) {
  const auto own = runs::read_eval_report(runs::RunReader::open(run_dir()));
  ASSERT_TRUE(own.per_position && own.occupancy);
  engine::ScheduleExplorer x(run_dir());
  const auto s = settled(x, 1);
  ASSERT_TRUE(s->trained && s->trained->per_position) << s->error;
  const auto& p = *s->trained->per_position;
  expect_same_curve(p, *own.per_position);
  EXPECT_EQ(p.sequence_nll, own.per_position->sequence_nll);
  ASSERT_TRUE(s->trained->occupancy);
  EXPECT_EQ(s->trained->occupancy->norms, own.occupancy->norms);
  // The untouched request's edited curve is the trained one.
  ASSERT_TRUE(s->edited);
  EXPECT_EQ(s->edited->per_position->nll, own.per_position->nll);
}

TEST_F(ExploreTest, EOneOnAProteusModelIsTheUngatedModel) {
  engine::ScheduleExplorer x(run_dir());
  const auto e1 = settled(x, x.request({{}, {{"model.mixer.E", 1}}, false}));
  ASSERT_TRUE(e1->edited && e1->edited->per_position) << e1->error;
  EXPECT_EQ(e1->edited_config->model.mixer.E, 1);
  // Ungated: the model's own E = 4 blocks, every one open from position 1.
  const auto open = settled(
      x, x.request({{}, {{"model.mixer.schedule", {{"type", "custom"}, {"unlock", {1, 1, 1, 1}}}}}, false}));
  ASSERT_TRUE(open->edited && open->edited->per_position) << open->error;
  EXPECT_EQ(open->edited_config->model.mixer.E, 4);
  EXPECT_EQ(e1->edited->per_position->nll, open->edited->per_position->nll);
  EXPECT_EQ(e1->edited->occupancy->norms, open->edited->occupancy->norms);
  // ...and the trained schedule (blocks unlocking over 16 positions) is something else.
  EXPECT_NE(e1->edited->per_position->nll, open->trained->per_position->nll);
}

TEST_F(ExploreTest, HorizonEditChangesOnlyThePositionsItGates) {
  engine::ScheduleExplorer x(run_dir());
  // N = 64 > 24 evaluated positions: past the training horizon 16 the trained model has every
  // block open, the edited one has not; before position 2 both have one block.
  const auto s = settled(x, x.request({{}, {{"model.mixer.N", 64}}, false}));
  ASSERT_TRUE(s->edited && s->trained) << s->error;
  const auto& a = s->edited->per_position->nll;
  const auto& b = s->trained->per_position->nll;
  ASSERT_EQ(a.size(), 24u);
  EXPECT_EQ(a[0], b[0]);
  EXPECT_NE(a[20], b[20]);
  EXPECT_EQ(s->edited_request.edit.front().first, "model.mixer.N");
  EXPECT_GT(s->edited_seconds, 0.0);
}

TEST_F(ExploreTest, TheNewestRequestWinsAndAStaleOneIsNeverPublished) {
  engine::ScheduleExplorer x(run_dir());
  const auto old_g = x.request({{}, {{"model.mixer.N", 20}}, false});
  const auto new_g = x.request({{}, {{"model.mixer.N", 40}}, false});
  EXPECT_GT(new_g, old_g);
  const auto start = Clock::now();
  std::shared_ptr<const engine::ExploreSnapshot> s;
  for (;;) {
    s = x.latest();
    EXPECT_NE(s->edited_generation, old_g) << "a replaced request was published";
    if (s->generation >= new_g && !s->busy) break;
    ASSERT_LT(Clock::now() - start, kDeadline);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(s->edited_generation, new_g);
  EXPECT_EQ(s->edited_config->model.mixer.N, 40);
}

TEST_F(ExploreTest, APartialCurveComesFirstAndTheWholeOneEqualsTheNonProgressiveEvaluation) {
  std::mutex mu;
  std::vector<std::shared_ptr<const engine::ExploreSnapshot>> published;
  engine::ScheduleExplorer x(run_dir(), [&](const std::shared_ptr<const engine::ExploreSnapshot>& s) {
    std::lock_guard<std::mutex> lock(mu);
    published.push_back(s);
  });
  // 12 sequences in batches of data.batch = 2 after a first batch of 4: partial curves over 4, 6,
  // 8 and 10 sequences, then the whole.
  const engine::ConfigDelta settings = engine::explore_eval_settings(12);
  const engine::ConfigDelta edit = {{"model.mixer.N", 64}};
  const auto g = x.request({settings, edit, false});
  const auto last = settled(x, g);
  ASSERT_TRUE(last->edited && last->edited->per_position) << last->error;
  const auto& whole = *last->edited->per_position;
  EXPECT_FALSE(whole.partial());
  EXPECT_EQ(whole.sequences, 12);

  std::lock_guard<std::mutex> lock(mu);
  std::vector<int> seen;  // sequences of each curve of this edit, in publishing order
  for (const auto& s : published) {
    if (s->edited_generation != g || !s->edited || !s->edited->per_position) continue;
    const auto& p = *s->edited->per_position;
    if (!seen.empty() && seen.back() == p.sequences) continue;  // the same curve published again
    seen.push_back(p.sequences);
    if (!p.partial()) continue;
    EXPECT_EQ(p.sequences_total, 12);
    EXPECT_TRUE(s->busy);
    EXPECT_FALSE(s->edited->occupancy) << "a partial report holds the curve alone";
    // A partial curve is the whole one's first sequences, with intervals over just those.
    const size_t K = p.bucket_lo.size();
    ASSERT_EQ(p.sequence_bucket_nll.size(), K * p.sequences);
    EXPECT_TRUE(std::equal(p.sequence_bucket_nll.begin(), p.sequence_bucket_nll.end(), whole.sequence_bucket_nll.begin()));
    for (const auto& i : p.bucket_interval) EXPECT_EQ(i.n, p.sequences);
    // Paired with the trained curve over the sequences they share: the ratio has its band.
    EXPECT_EQ(eval::paired_bucket_difference(p, *s->trained->per_position).front().n, p.sequences);
  }
  EXPECT_EQ(seen, (std::vector<int>{4, 6, 8, 10, 12}));
  EXPECT_GT(last->edited_seconds, last->edited_first_seconds);

  // The whole result equals an evaluation of the same edit that was not progressive, exactly.
  const auto cfg = engine::edited_config(x.run(), {settings[0], edit[0]});
  eval::EvalParts parts;
  parts.block_use = parts.mqar = parts.needle = parts.niah = false;
  const auto plain = engine::evaluate_trained(x.run(), cfg, parts);
  ASSERT_TRUE(plain.per_position);
  expect_same_curve(whole, *plain.per_position);
  EXPECT_EQ(whole.bucket_nll, plain.per_position->bucket_nll);
  EXPECT_EQ(whole.train_interval.lo, plain.per_position->train_interval.lo);
  ASSERT_TRUE(last->edited->occupancy && plain.occupancy);
  EXPECT_EQ(last->edited->occupancy->norms, plain.occupancy->norms);
}

TEST_F(ExploreTest, ABadEditIsRefusedInTheCallersThreadNamingTheField) {
  engine::ScheduleExplorer x(run_dir());
  try {
    x.request({{}, {{"model.mixer.E", 0}}, false});
    ADD_FAILURE() << "E = 0 was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "model.mixer.E");
  }
  try {
    x.request({{}, {{"model.d_model", 32}}, false});
    ADD_FAILURE() << "a change of the weights' shape was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "model.d_model");
  }
}

TEST_F(ExploreTest, SweepEvaluatesEveryPointAndTheTrainedHorizonMatchesTheRun) {
  engine::ScheduleExplorer x(run_dir());
  const auto& cfg = x.run().config;
  const auto points = engine::horizon_sweep(cfg);
  ASSERT_EQ(points.size(), 4u);
  const auto s = settled(x, x.request_sweep({}, "N", points));
  ASSERT_EQ(s->sweep.size(), 4u);
  EXPECT_EQ(s->sweep_axis, "N");
  for (const auto& p : s->sweep) ASSERT_TRUE(p.report && p.report->per_position) << p.error;
  // N = the training length is the trained schedule (its N is the default, data.seq_len).
  EXPECT_EQ(s->sweep[1].x, cfg.data.seq_len);
  EXPECT_EQ(s->sweep[1].report->per_position->nll, s->trained->per_position->nll);
  EXPECT_NE(s->sweep[3].report->per_position->nll, s->trained->per_position->nll);
  const auto es = engine::blocks_sweep(cfg);  // d_head 4: D = 16 holds E up to 16
  EXPECT_EQ(es.back().x, 16);
}

TEST_F(ExploreTest, EvaluationIntoAFolderNeverTouchesTheRunAndNeverOverwrites) {
  const auto before = run_files(run_dir());
  const auto folder = engine::evaluate_into_folder(run_dir(), "stretch-n64", {{"model.mixer.N", 64}});
  EXPECT_EQ(folder, std::filesystem::path(run_dir()) / "evals" / "stretch-n64");
  EXPECT_EQ(run_files(run_dir()), before) << "the run's own files changed";
  // The folder reads as a run: its config is the edited one, its results in the run's formats.
  const auto reader = runs::RunReader::open(folder);
  EXPECT_EQ(reader.run_config().model.mixer.N, 64);
  EXPECT_EQ(reader.status().state, runs::RunState::finished);
  const auto delta = reader.read_json("delta.json");
  EXPECT_EQ(delta.at("set").at("model.mixer.N"), 64);
  const auto edited = runs::read_eval_report(reader);
  const auto own = runs::read_eval_report(runs::RunReader::open(run_dir()));
  ASSERT_TRUE(edited.per_position && edited.occupancy && edited.block_use);
  EXPECT_NE(edited.per_position->nll, own.per_position->nll);

  // The same name again is refused before anything is written; the folder is as it was.
  const auto first = read_file(folder / "per_position.json");
  try {
    engine::evaluate_into_folder(run_dir(), "stretch-n64", {{"model.mixer.N", 32}});
    ADD_FAILURE() << "an existing evaluation was written over";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "name");
    EXPECT_NE(std::string(e.what()).find("already exists"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_file(folder / "per_position.json"), first);
  EXPECT_EQ(runs::RunReader::open(folder).run_config().model.mixer.N, 64);

  // An empty delta reproduces the run's own result files byte for byte.
  const auto same = engine::evaluate_into_folder(run_dir(), "same", {});
  for (const char* f : {"per_position.json", "per_position.csv", "per_position_buckets.csv", "occupancy.json",
                        "block_use.json"})
    EXPECT_EQ(read_file(same / f), read_file(std::filesystem::path(run_dir()) / f)) << f;
  EXPECT_EQ(run_files(run_dir()), before);

  EXPECT_THROW(engine::evaluate_into_folder(run_dir(), "../escape", {}), InputError);
  EXPECT_THROW(engine::evaluate_into_folder(run_dir(), "bad-field", {{"train.steps", 3}}), InputError);
  EXPECT_FALSE(std::filesystem::exists(std::filesystem::path(run_dir()) / "evals" / "bad-field"));
}

}  // namespace
