// `proteus export` as a user meets it: a tiny run is trained, then exported to PNG, SVG, PDF and
// CSV; two runs are compared; a directory that is not a run and an unknown format exit 2 with one
// line naming the field.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/child_process.hpp"
#include "tests/support/run_command.hpp"

namespace {

namespace fs = std::filesystem;

using Result = proteus::test_support::CommandResult;
inline Result run(const std::vector<std::string>& args) { return proteus::test_support::run_proteus(args); }

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// A tiny run (the train test's tiny config): two variants, E = 1 and E = 2, trained once for all tests.
class ExportCommand : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fs::temp_directory_path() / ("proteus-cli-export-" + std::to_string(std::random_device{}())));
    fs::create_directories(*dir_);
    const std::string tiny = R"({
  "name": "tiny", "seed": 1, "threads": 2,
  "model": {"d_model": 16, "layers": 1, "mixer": {"heads": 1, "d_head": 4, "E": 2}},
  "data": {"seq_len": 16, "batch": 2, "text": {"path": ")" + std::string(PROTEUS_SOURCE_DIR) + R"(/assets/corpus/brown"}},
  "train": {"steps": 4, "warmup": 1, "eval_every": 2, "log_every": 1, "val_batches": 1},
  "eval": {"per_position": {"seq_len": 20, "sequences": 2}, "niah": {"enabled": false}, "occupancy": {"blocks": 2}}
})";
    std::ofstream(*dir_ / "tiny.json") << tiny;
    const auto r = run({"train", (*dir_ / "tiny.json").string(), "--runs-dir", (*dir_ / "runs").string()});
    trained_ = r.status == 0;
    train_out_ = new std::string(r.out);
    if (trained_) {
      const auto s = run({"train", (*dir_ / "tiny.json").string(), "--runs-dir", (*dir_ / "runs").string(), "--set",
                          "name=tiny-e1", "--set", "model.mixer.E=1"});
      trained_ = s.status == 0;
      *train_out_ += s.out;
    }
  }
  static void TearDownTestSuite() {
    fs::remove_all(*dir_);
    delete dir_;
    delete train_out_;
  }
  static fs::path* dir_;
  static std::string* train_out_;
  static bool trained_;
};

fs::path* ExportCommand::dir_ = nullptr;
std::string* ExportCommand::train_out_ = nullptr;
bool ExportCommand::trained_ = false;

TEST_F(ExportCommand, WritesEveryFormatOfEveryStandardFigure) {
  ASSERT_TRUE(trained_) << *train_out_;
  const auto run_dir = *dir_ / "runs" / "tiny";
  const auto r = run({"export", run_dir.string(), "--width", "360", "--height", "240", "--dpi", "100"});
  ASSERT_EQ(r.status, 0) << r.out;
  const auto out = run_dir / "figures";
  for (const char* name : {"loss", "per_position", "occupancy_tiny_l0_h0", "activation_map_tiny"})
    for (const char* ext : {".png", ".svg", ".pdf", ".csv"}) {
      const auto file = out / (std::string(name) + ext);
      ASSERT_TRUE(fs::exists(file)) << file << "\n" << r.out;
      EXPECT_GT(fs::file_size(file), 10u) << file;
      EXPECT_NE(r.out.find(file.string()), std::string::npos) << "the files written are printed";
    }
  const auto png = read(out / "loss.png");
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_EQ(read(out / "loss.pdf").rfind("%PDF", 0), 0u);
  EXPECT_NE(read(out / "loss.svg").find("<svg"), std::string::npos);
  EXPECT_EQ(read(out / "loss.csv").rfind("series,x,y\n", 0), 0u);
  EXPECT_EQ(read(out / "activation_map_tiny.csv").rfind("row,column,x_lo,x_hi,y_lo,y_hi,value\n", 0), 0u);
  for (const auto& e : fs::directory_iterator(out))
    EXPECT_NE(e.path().filename().string().front(), '.') << "no temporaries left: " << e.path();
}

TEST_F(ExportCommand, ComparesRunsIntoAChosenFolderInChosenFormats) {
  ASSERT_TRUE(trained_) << *train_out_;
  const auto out = *dir_ / "compare";
  const auto r = run({"export", (*dir_ / "runs" / "tiny-e1").string(), (*dir_ / "runs" / "tiny").string(), "--out",
                      out.string(), "--formats", "svg,csv"});
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(fs::exists(out / "ppl_ratio.svg")) << r.out;
  EXPECT_TRUE(fs::exists(out / "e_ablation.csv")) << r.out;
  EXPECT_FALSE(fs::exists(out / "loss.png")) << "only the formats asked for";
  const auto csv = read(out / "loss.csv");
  EXPECT_NE(csv.find("tiny-e1,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\ntiny,"), std::string::npos) << csv;
}

// Issue 21: an export into a folder it makes leaves that folder whole or not at all, whatever stops
// it; killed midway it left a folder of some figures. Kills at spread points of a measured export:
// the folder is absent or holds every file, and at least one kill landed before the end.
TEST_F(ExportCommand, AKilledExportLeavesNoHalfMadeFolder) {
  ASSERT_TRUE(trained_) << *train_out_;
  using Clock = std::chrono::steady_clock;
  const auto run_dir = (*dir_ / "runs" / "tiny").string();
  const std::vector<std::string> args = {"export", run_dir, "--dpi", "600", "--out"};
  const auto whole = *dir_ / "whole";
  const auto t0 = Clock::now();
  {
    auto full = args;
    full.push_back(whole.string());
    proteus::test_support::ChildProcess p(full, (*dir_ / "export.log").string());
    ASSERT_TRUE(WIFEXITED(p.wait()));
  }
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0);
  std::vector<std::string> every_file;
  for (const auto& e : fs::directory_iterator(whole)) every_file.push_back(e.path().filename().string());
  std::sort(every_file.begin(), every_file.end());
  ASSERT_GT(every_file.size(), 8u);
  int killed = 0;
  for (int trial = 1; trial <= 5; ++trial) {
    const auto out = *dir_ / ("killed-" + std::to_string(trial));
    auto with_out = args;
    with_out.push_back(out.string());
    proteus::test_support::ChildProcess p(with_out, (*dir_ / "export.log").string());
    std::this_thread::sleep_for(took * trial / 6);
    p.signal(SIGKILL);
    const int status = p.wait();
    killed += WIFSIGNALED(status);
    if (!fs::exists(out)) continue;
    std::vector<std::string> files;
    for (const auto& e : fs::directory_iterator(out)) files.push_back(e.path().filename().string());
    std::sort(files.begin(), files.end());
    EXPECT_EQ(files, every_file) << "killed after " << (took * trial / 6).count() << " ms: a half-made " << out;
  }
  EXPECT_GE(killed, 1) << "every export finished before its kill: nothing was tested";
  for (const auto& e : fs::directory_iterator(*dir_)) {
    if (e.path().filename().string().find(".partial-") != std::string::npos) {
      EXPECT_TRUE(fs::is_directory(e.path())) << "only hidden staging folders may stay after a kill";
    }
  }
}

TEST_F(ExportCommand, BadInputExitsTwoWithOneLine) {
  const auto not_a_run = *dir_ / "not-a-run";
  fs::create_directories(not_a_run);
  auto r = run({"export", not_a_run.string()});
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_EQ(r.out.rfind("proteus export: error: " + not_a_run.string() + ": ", 0), 0u) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  EXPECT_FALSE(fs::exists(not_a_run / "figures"));

  r = run({"export", (*dir_ / "missing").string()});
  EXPECT_EQ(r.status, 2) << r.out;

  if (trained_) {
    r = run({"export", (*dir_ / "runs" / "tiny").string(), "--out", (*dir_ / "bad").string(), "--formats", "png,gif"});
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_EQ(r.out.rfind("proteus export: error: --formats: ", 0), 0u) << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
    r = run({"export", (*dir_ / "runs" / "tiny").string(), "--out", (*dir_ / "bad").string(), "--dpi", "0"});
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_EQ(r.out.rfind("proteus export: error: --dpi: ", 0), 0u) << r.out;
    r = run({"export", (*dir_ / "runs" / "tiny").string(), "--out", (*dir_ / "bad").string(), "--effect-ranges",
             "buckets"});
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_EQ(r.out.rfind("proteus export: error: --effect-ranges: unknown value 'buckets' (map, diagnosis)", 0), 0u) << r.out;
    EXPECT_FALSE(fs::exists(*dir_ / "bad"));
  }
  EXPECT_EQ(run({"export"}).status, 2);
}

// Seed groups of a tiny experiment (E = 1 and E = 2, seeds 1 and 2): the forest plot of the gated
// group against its baseline, its CSV with n = 2 paired seeds, and a reference that is no row refused.
TEST_F(ExportCommand, DrawsTheGatingEffectByVariantOfSeedGroups) {
  const std::string tiny = R"({
  "name": "tinyg", "seeds": [1, 2], "threads": 2,
  "model": {"d_model": 16, "layers": 1, "mixer": {"heads": 1, "d_head": 4, "E": 2}},
  "data": {"seq_len": 16, "batch": 2, "text": {"path": ")" + std::string(PROTEUS_SOURCE_DIR) + R"(/assets/corpus/brown"}},
  "train": {"steps": 2, "warmup": 1, "eval_every": 2, "log_every": 1, "val_batches": 1},
  "eval": {"per_position": {"seq_len": 20, "sequences": 2}, "niah": {"enabled": false}, "needle": {"enabled": false},
           "occupancy": {"enabled": false}},
  "variants": [{"name": "baseline", "set": {"model.mixer.E": 1}}, {"name": "gated", "set": {"model.mixer.E": 2}}]
})";
  std::ofstream(*dir_ / "tinyg.json") << tiny;
  const auto runs_dir = *dir_ / "group-runs";
  const auto t = run({"train", (*dir_ / "tinyg.json").string(), "--runs-dir", runs_dir.string()});
  ASSERT_EQ(t.status, 0) << t.out;
  std::vector<std::string> runs = {"export"};
  for (const char* r : {"tinyg-baseline-s1", "tinyg-baseline-s2", "tinyg-gated-s1", "tinyg-gated-s2"})
    runs.push_back((runs_dir / r).string());
  const auto out = *dir_ / "forest";
  auto export_args = runs;
  export_args.insert(export_args.end(), {"--out", out.string(), "--formats", "csv,png"});
  const auto e = run(export_args);
  ASSERT_EQ(e.status, 0) << e.out;
  ASSERT_TRUE(fs::exists(out / "gating_effect_by_variant.png"));
  const auto csv = read(out / "gating_effect_by_variant.csv");
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "variant,range,mean,lo,hi,n,unit");
  EXPECT_NE(csv.find("\ntinyg-gated,all,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",2,nats per byte\n"), std::string::npos) << "n = the 2 paired seeds: " << csv;
  EXPECT_TRUE(fs::exists(out / "gating_effect_by_variant_1-2.csv"));

  runs.insert(runs.end(), {"--out", (*dir_ / "forest-bad").string(), "--effect-reference", "tinyg-baseline"});
  const auto bad = run(runs);
  EXPECT_EQ(bad.status, 2) << bad.out;
  EXPECT_EQ(bad.out.rfind("proteus export: error: --effect-reference: ", 0), 0u) << bad.out;
  EXPECT_FALSE(fs::exists(*dir_ / "forest-bad"));
}

}  // namespace
