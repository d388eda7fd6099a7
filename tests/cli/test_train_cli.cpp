// `proteus train`, `sweep` and `eval` as a user meets them: bad configs exit 2 with one line
// naming the field, --dry-run lists the runs of a preset, and a tiny config trains, evaluates
// and leaves a complete run directory that `proteus eval` can evaluate again.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "core/runs/run_dir.hpp"
#include "core/runs/safetensors.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_dir.hpp"

namespace {

namespace fs = std::filesystem;

using Result = proteus::test_support::CommandResult;
inline Result run(const std::vector<std::string>& args) { return proteus::test_support::run_proteus(args); }

fs::path temp_dir() { return proteus::test_support::fresh_dir("cli-train"); }

void write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }
std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

const std::string tiny = R"({
  "name": "tiny", "seed": 1, "threads": 2,
  "model": {"d_model": 16, "layers": 1, "mixer": {"heads": 1, "d_head": 4, "E": 2}},
  "data": {"seq_len": 16, "batch": 2, "text": {"path": ")" + std::string(PROTEUS_SOURCE_DIR) + R"(/assets/corpus/brown"}},
  "train": {"steps": 4, "warmup": 1, "eval_every": 2, "log_every": 1, "val_batches": 1},
  "eval": {"per_position": {"seq_len": 20, "sequences": 2}, "niah": {"enabled": false}, "occupancy": {"blocks": 2}}
})";

// The tiny config with a sweep over E added before its closing brace.
std::string tiny_with_sweep() {
  auto text = tiny;
  text.insert(text.rfind('}'), R"(, "sweep": {"model.mixer.E": [1, 2]})");
  return text;
}

TEST(TrainCommand, BadConfigExitsTwoWithOneLineNamingTheField) {
  const auto dir = temp_dir();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"model": {"mixer": {"E": 0}}})", "model.mixer.E"},
      {R"({"model": {"mixr": {}}})", "model.mixr"},
      {R"({"train": {"lr": "fast"}})", "train.lr"},
      {R"({"data": {"mix": [{"task": "poetry", "weight": 1}]}})", "data.mix[0].task"},
      {R"({"model": )", "parse error"},
  };
  for (const auto& [json, field] : cases) {
    write(dir / "bad.json", json);
    const auto r = run({"train", (dir / "bad.json").string(), "--runs-dir", (dir / "runs").string()});
    EXPECT_EQ(r.status, 2) << json << "\n" << r.out;
    EXPECT_NE(r.out.find(field), std::string::npos) << json << "\n" << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
    EXPECT_FALSE(fs::exists(dir / "runs")) << "nothing is written for a refused config";
  }
  EXPECT_EQ(run({"train", (dir / "missing.json").string()}).status, 2);
  EXPECT_EQ(run({"train", "--resume", dir.string()}).status, 2);
}

TEST(TrainCommand, DryRunListsThePresetsRuns) {
  const auto r = run({"train", std::string(PROTEUS_SOURCE_DIR) + "/experiments/quickstart-cpu.json", "--dry-run"});
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("quickstart-baseline"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("E=16"), std::string::npos) << r.out;
  const auto s = run({"sweep", std::string(PROTEUS_SOURCE_DIR) + "/experiments/e-ablation-cpu.json", "--dry-run"});
  EXPECT_EQ(s.status, 0) << s.out;
  for (int e : {1, 2, 4, 8, 16, 32}) EXPECT_NE(s.out.find("E=" + std::to_string(e) + " "), std::string::npos) << s.out;
}

TEST(TrainCommand, EveryPresetIsAValidConfig) {
  for (const auto& entry : fs::recursive_directory_iterator(fs::path(PROTEUS_SOURCE_DIR) / "experiments")) {
    if (entry.path().extension() != ".json" || entry.path().string().find("/results/") != std::string::npos) continue;
    const bool sweep = entry.path().filename().string().find("ablation") != std::string::npos;
    const auto r = run({sweep ? "sweep" : "train", entry.path().string(), "--dry-run"});
    EXPECT_EQ(r.status, 0) << entry.path() << "\n" << r.out;
  }
}

TEST(TrainCommand, TrainsEvaluatesAndEvaluatesAgain) {
  const auto dir = temp_dir();
  write(dir / "tiny.json", tiny);
  const auto r = run({"train", (dir / "tiny.json").string(), "--runs-dir", (dir / "runs").string()});
  ASSERT_EQ(r.status, 0) << r.out;
  const auto run_dir = dir / "runs" / "tiny";
  for (const char* f : {"config.json", "metrics.jsonl", "status.json", "checkpoint.safetensors", "per_position.csv",
                        "per_position.json", "occupancy.json"})
    EXPECT_TRUE(fs::exists(run_dir / f)) << f;
  // Evaluating again rebuilds the same results from the checkpoint (same sequences, same bits).
  const std::string first = read(run_dir / "per_position.csv");
  ASSERT_NE(first.find('\n'), std::string::npos) << "the first evaluation wrote no rows";
  fs::remove(run_dir / "per_position.csv");
  const auto e = run({"eval", run_dir.string()});
  EXPECT_EQ(e.status, 0) << e.out;
  EXPECT_EQ(read(run_dir / "per_position.csv"), first) << "the second evaluation differs from the first";
  EXPECT_EQ(run({"eval", (dir / "nope").string()}).status, 2);
}

TEST(SweepCommand, TrainsEveryPointOfTheGrid) {
  const auto dir = temp_dir();
  auto cfg = tiny_with_sweep();
  write(dir / "sweep.json", cfg);
  const auto r = run({"sweep", (dir / "sweep.json").string(), "--runs-dir", (dir / "runs").string(), "--no-eval"});
  ASSERT_EQ(r.status, 0) << r.out;
  // Each point of the grid trained under its own E to the end, and the two are different models.
  std::vector<std::vector<float>> weights;
  for (int e : {1, 2}) {
    SCOPED_TRACE("E = " + std::to_string(e));
    const auto run_dir = dir / "runs" / ("tiny-E" + std::to_string(e));
    const auto reader = proteus::runs::RunReader::open(run_dir);
    EXPECT_EQ(reader.run_config().model.mixer.E, e);
    EXPECT_EQ(reader.status().state, proteus::runs::RunState::finished);
    const auto ckpt = proteus::runs::read_safetensors(run_dir / "checkpoint.safetensors");
    EXPECT_EQ(ckpt.metadata.at("step"), "4");
    std::vector<float> all;
    for (const auto& t : ckpt.tensors) {
      const auto v = t.to_f32();
      all.insert(all.end(), v.begin(), v.end());
    }
    weights.push_back(all);
  }
  ASSERT_EQ(weights[0].size(), weights[1].size());
  EXPECT_NE(weights[0], weights[1]) << "E = 1 and E = 2 trained the same weights: the sweep did not change E";
}

}  // namespace
