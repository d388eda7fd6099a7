// Evaluation results survive the round trip through the run directory: what write_eval_report
// writes, read_eval_report gives back (the window, `proteus export` and the compare view read it);
// the MQAR layout note and the token needle grid.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/backend/registry.hpp"
#include "core/eval/evaluate.hpp"
#include "core/runs/eval_files.hpp"
#include "core/runs/run_dir.hpp"

namespace {

using namespace proteus;

TEST(EvalReport, NiahAndMqarRoundTripThroughTheRunDirectory) {
  const auto dir = std::filesystem::temp_directory_path() / ("proteus-eval-" + std::to_string(std::random_device{}()));
  auto writer = runs::RunWriter::create(dir, "r", nlohmann::json{{"name", "r"}});
  eval::EvalReport report;
  eval::NiahTaskGrid grid;
  grid.task = "s-niah-1";
  grid.lengths = {128, 256};
  grid.depths = {0, 50, 100};
  grid.score = {100, 75, 50, 25, 0, 12.5};
  grid.mean = 43.75;
  report.niah = eval::NiahResult{{grid}, {}};
  report.mqar = eval::MqarResult{8, 64, 0.25, "spread", "spread: pairs and queries interleaved"};
  runs::write_eval_report(writer, report);
  const auto back = runs::read_eval_report(runs::RunReader::open(writer.dir()));
  ASSERT_TRUE(back.niah);
  ASSERT_EQ(back.niah->tasks.size(), 1u);
  EXPECT_EQ(back.niah->tasks[0].score, grid.score);
  EXPECT_EQ(back.niah->tasks[0].at(2, 1), 12.5);
  ASSERT_TRUE(back.mqar);
  EXPECT_EQ(back.mqar->accuracy, 0.25);
  EXPECT_EQ(back.mqar->layout, "spread");
  EXPECT_EQ(back.mqar->note, "spread: pairs and queries interleaved");
  EXPECT_FALSE(back.per_position);
  EXPECT_FALSE(back.needle);
  std::filesystem::remove_all(dir);
}

TEST(EvalReport, NeedleGridsRoundTripThroughTheRunDirectory) {
  const auto dir = std::filesystem::temp_directory_path() / ("proteus-eval-" + std::to_string(std::random_device{}()));
  auto writer = runs::RunWriter::create(dir, "r", nlohmann::json{{"name", "r"}});
  eval::EvalReport report;
  eval::NiahTaskGrid grid;
  grid.task = "multikey";
  grid.lengths = {64, 128};
  grid.depths = {0, 100};
  grid.score = {100, 50, 25, 0};
  grid.mean = 43.75;
  report.needle = eval::NeedleResult{64, 3, 16, {grid}};
  runs::write_eval_report(writer, report);
  const auto back = runs::read_eval_report(runs::RunReader::open(writer.dir()));
  ASSERT_TRUE(back.needle);
  EXPECT_EQ(back.needle->vocab, 64);
  EXPECT_EQ(back.needle->distractors, 3);
  EXPECT_EQ(back.needle->samples, 16);
  ASSERT_EQ(back.needle->forms.size(), 1u);
  EXPECT_EQ(back.needle->forms[0].task, "multikey");
  EXPECT_EQ(back.needle->forms[0].lengths, grid.lengths);
  EXPECT_EQ(back.needle->forms[0].at(1, 0), 25);
  const auto json = runs::RunReader::open(writer.dir()).read_json("needle.json");
  EXPECT_EQ(json.at("unit"), "tokens");
  EXPECT_FALSE(back.niah);
  std::filesystem::remove_all(dir);
}

// Beside the numbers, mqar.json says where the pairs-first layout writes its pairs and how many
// blocks are active there: k(2n) of the run's schedule.
TEST(EvalReport, MqarNoteSaysHowManyBlocksAreActiveWhereThePairsAreWritten) {
  config::RunConfig cfg;
  cfg.data.seq_len = 128;
  cfg.data.mqar.pairs = 8;
  cfg.model.mixer.E = 16;  // Delta = 128 / 16 = 8: k(16) = 2
  const std::string note = eval::mqar_layout_note(cfg);
  EXPECT_NE(note.find("pairs-first"), std::string::npos) << note;
  EXPECT_NE(note.find("positions 1-16 of 128"), std::string::npos) << note;
  EXPECT_NE(note.find("2 of E = 16 at position 16"), std::string::npos) << note;
  cfg.model.mixer.E = 1;
  EXPECT_NE(eval::mqar_layout_note(cfg).find("1 of E = 1"), std::string::npos);
  cfg.data.mqar.layout = "spread";
  EXPECT_EQ(eval::mqar_layout_note(cfg).rfind("spread: ", 0), 0u);
}

// The needle grid of an (untrained) model: one cell per depth and length, each a whole number of
// samples correct, and the same prompts, so the same grid, every time.
TEST(EvalReport, NeedleEvalFillsTheDepthByLengthGrid) {
  config::RunConfig cfg;
  cfg.model.vocab = 32;
  cfg.model.d_model = 16;
  cfg.model.layers = 1;
  cfg.model.mixer.heads = 2;
  cfg.model.mixer.d_head = 4;
  cfg.data.seq_len = 32;
  cfg.data.batch = 3;
  cfg.data.mix = {{"needle", 1.0}};
  cfg.data.needle.vocab = 32;
  cfg.eval.needle.depths = 3;
  cfg.eval.needle.samples = 5;
  auto be = backend::make_backend("cpu", 1);
  model::Model<float> model(cfg.model, config::resolved_mixer_horizon(cfg), *be.backend, 1);
  int calls = 0;
  const auto a = eval::needle_eval(model, cfg, [&](int done, int total) {
    EXPECT_EQ(total, 2 * 3 * 3);
    EXPECT_EQ(done, ++calls);
    return true;
  });
  ASSERT_EQ(a.forms.size(), 2u);
  EXPECT_EQ(a.forms[0].task, "single");
  EXPECT_EQ(a.forms[1].task, "multikey");
  for (const auto& g : a.forms) {
    EXPECT_EQ(g.depths, (std::vector<int>{0, 51, 100}));
    EXPECT_EQ(g.lengths, (std::vector<int>{16, 32, 64}));
    ASSERT_EQ(g.score.size(), 9u);
    for (double x : g.score) {
      EXPECT_TRUE(x >= 0 && x <= 100) << x;
      EXPECT_DOUBLE_EQ(x / 20.0, std::round(x / 20.0)) << "a multiple of 100 / 5 samples";
    }
  }
  const auto b = eval::needle_eval(model, cfg, nullptr);
  EXPECT_EQ(a.forms[1].score, b.forms[1].score);
  // Cancelled after the first cell: one grid, the rest still 0.
  const auto c = eval::needle_eval(model, cfg, [](int, int) { return false; });
  ASSERT_EQ(c.forms.size(), 1u);
  EXPECT_EQ(c.forms[0].score[0], a.forms[0].score[0]);
}

}  // namespace
