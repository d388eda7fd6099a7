// Evaluation results survive the round trip through the run directory: what write_eval_report
// writes, read_eval_report gives back (the window, `proteus export` and the compare view read it).
#include <gtest/gtest.h>

#include <random>

#include "core/eval/evaluate.hpp"
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
  report.mqar = eval::MqarResult{8, 64, 0.25};
  eval::write_eval_report(writer, report);
  const auto back = eval::read_eval_report(runs::RunReader::open(writer.dir()));
  ASSERT_TRUE(back.niah);
  ASSERT_EQ(back.niah->tasks.size(), 1u);
  EXPECT_EQ(back.niah->tasks[0].score, grid.score);
  EXPECT_EQ(back.niah->tasks[0].at(2, 1), 12.5);
  ASSERT_TRUE(back.mqar);
  EXPECT_EQ(back.mqar->accuracy, 0.25);
  EXPECT_FALSE(back.per_position);
  std::filesystem::remove_all(dir);
}

}  // namespace
