// `proteus eval RUN --set PATH=VALUE --as NAME` as a user meets it: the results go to
// RUN/evals/NAME (config, delta and result files), the run's own files stay byte-identical, an
// existing NAME and a --set without --as are refused with one line naming the option, and
// `proteus export RUN --evals` draws the evaluation beside the run.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tests/support/child_process.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_dir.hpp"

namespace {

namespace fs = std::filesystem;
using proteus::test_support::run_proteus;

const std::string tiny = R"({
  "name": "tiny", "seed": 1, "threads": 2,
  "model": {"d_model": 16, "layers": 1, "mixer": {"heads": 1, "d_head": 4, "E": 4}},
  "data": {"seq_len": 16, "batch": 2, "text": {"path": ")" + std::string(PROTEUS_SOURCE_DIR) + R"(/assets/corpus/brown"}},
  "train": {"steps": 4, "warmup": 1, "eval_every": 2, "log_every": 1, "val_batches": 1},
  "eval": {"per_position": {"seq_len": 40, "sequences": 2}, "niah": {"enabled": false}, "occupancy": {"blocks": 2}}
})";

std::map<std::string, std::string> files_outside_evals(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    const auto rel = fs::relative(e.path(), dir).generic_string();
    if (rel.starts_with("evals") || !e.is_regular_file()) continue;
    std::ifstream in(e.path(), std::ios::binary);
    out[rel] = std::string(std::istreambuf_iterator<char>(in), {});
  }
  return out;
}

TEST(EvalAsCommand, WritesIntoItsOwnFolderAndNeverOverwrites) {
  proteus::test_support::TempDir dir;
  const auto config = dir.write("tiny.json", tiny);
  const auto train = run_proteus({"train", config, "--runs-dir", (dir / "runs").string()});
  ASSERT_EQ(train.status, 0) << train.out;
  const auto run = dir / "runs" / "tiny";
  const auto before = files_outside_evals(run);

  const auto r = run_proteus({"eval", run.string(), "--set", "model.mixer.N=64", "--as", "stretch-n64"});
  ASSERT_EQ(r.status, 0) << r.out;
  const auto folder = run / "evals" / "stretch-n64";
  for (const char* f : {"config.json", "delta.json", "status.json", "per_position.json", "per_position.csv",
                        "per_position_buckets.csv", "occupancy.json"})
    EXPECT_TRUE(fs::exists(folder / f)) << f;
  EXPECT_NE(proteus::test_support::TempDir::read(folder / "delta.json").find("\"model.mixer.N\": 64"),
            std::string::npos);
  EXPECT_EQ(files_outside_evals(run), before) << "the run's own files changed";

  // The same name again: refused, one line naming --as and the folder; nothing changes.
  const auto again = run_proteus({"eval", run.string(), "--set", "model.mixer.N=32", "--as", "stretch-n64"});
  EXPECT_EQ(again.status, 2) << again.out;
  EXPECT_NE(again.out.find("--as"), std::string::npos) << again.out;
  EXPECT_NE(again.out.find("already exists"), std::string::npos) << again.out;
  EXPECT_EQ(std::count(again.out.begin(), again.out.end(), '\n'), 1) << again.out;
  EXPECT_NE(proteus::test_support::TempDir::read(folder / "config.json").find("\"N\": 64"), std::string::npos);

  // --set alone would have overwritten the run's results: refused.
  const auto no_as = run_proteus({"eval", run.string(), "--set", "model.mixer.N=32"});
  EXPECT_EQ(no_as.status, 2) << no_as.out;
  EXPECT_NE(no_as.out.find("--as"), std::string::npos) << no_as.out;
  // A field the weights fix: refused, naming it.
  const auto shape = run_proteus({"eval", run.string(), "--set", "model.d_model=32", "--as", "wider"});
  EXPECT_EQ(shape.status, 2) << shape.out;
  EXPECT_NE(shape.out.find("model.d_model"), std::string::npos) << shape.out;
  EXPECT_FALSE(fs::exists(run / "evals" / "wider"));
  EXPECT_EQ(files_outside_evals(run), before);

  // export --evals draws the evaluation beside the run.
  const auto ex = run_proteus({"export", run.string(), "--evals", "--formats", "csv", "--out", (dir / "fig").string()});
  ASSERT_EQ(ex.status, 0) << ex.out;
  const auto csv = proteus::test_support::TempDir::read(dir / "fig" / "per_position.csv");
  EXPECT_NE(csv.find("tiny,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("stretch-n64,"), std::string::npos) << csv;
}

// The memory-load map: one MQAR model asked at another load (pairs) into its own folder; the
// vocabulary, which the weights fix, is refused.
TEST(EvalAsCommand, AsksAnMqarModelAtAnotherLoad) {
  proteus::test_support::TempDir dir;
  const auto config = dir.write("mqar.json", R"({
    "name": "recall", "seed": 1, "threads": 1,
    "model": {"vocab": 64, "d_model": 16, "layers": 1, "mixer": {"heads": 1, "d_head": 4, "E": 2}},
    "data": {"seq_len": 32, "batch": 2, "mix": [{"task": "mqar", "weight": 1}],
             "mqar": {"vocab": 64, "pairs": 4, "train_pairs": [2, 4, 8]}},
    "train": {"steps": 3, "warmup": 1, "eval_every": 3, "log_every": 1, "val_batches": 1},
    "eval": {"per_position": {"enabled": false}, "niah": {"enabled": false}, "needle": {"enabled": false},
             "mqar": {"enabled": true, "samples": 5}}
  })");
  ASSERT_EQ(run_proteus({"train", config, "--runs-dir", (dir / "runs").string()}).status, 0);
  const auto run = dir / "runs" / "recall";
  const auto r = run_proteus(
      {"eval", run.string(), "--set", "data.mqar.pairs=8", "--set", "data.mqar.layout=spread", "--as", "load-p8"});
  ASSERT_EQ(r.status, 0) << r.out;
  const auto at8 = proteus::test_support::TempDir::read(run / "evals" / "load-p8" / "mqar.json");
  EXPECT_NE(at8.find("\"answers\": 40"), std::string::npos) << "5 samples x 8 pairs: " << at8;
  EXPECT_NE(at8.find("\"layout\": \"spread\""), std::string::npos) << at8;
  EXPECT_NE(proteus::test_support::TempDir::read(run / "mqar.json").find("\"answers\": 20"), std::string::npos);
  const auto vocab = run_proteus({"eval", run.string(), "--set", "data.mqar.vocab=128", "--as", "bigger"});
  EXPECT_EQ(vocab.status, 2) << vocab.out;
  EXPECT_NE(vocab.out.find("data.mqar.vocab"), std::string::npos) << vocab.out;
  EXPECT_FALSE(fs::exists(run / "evals" / "bigger"));
}

// Issue 21: an evaluation's folder exists only with a status, which says how it ended; a failed,
// cancelled or interrupted one keeps its name but says so when the name is asked for again, with
// how to retry.
TEST(EvalAsCommand, AFailedEvaluationSaysSoAndHowToRetry) {
  proteus::test_support::TempDir dir;
  const auto config = dir.write("tiny.json", tiny);
  ASSERT_EQ(run_proteus({"train", config, "--runs-dir", (dir / "runs").string()}).status, 0);
  const auto run = dir / "runs" / "tiny";
  // A corrupt checkpoint is found before the folder is made: no folder, and the name stays free.
  const auto checkpoint = run / "checkpoint.safetensors";
  const std::string good = proteus::test_support::TempDir::read(checkpoint);
  std::ofstream(checkpoint, std::ios::binary | std::ios::trunc) << good.substr(0, good.size() - 100);
  const auto corrupt = run_proteus({"eval", run.string(), "--set", "model.mixer.N=64", "--as", "late"});
  EXPECT_NE(corrupt.status, 0) << corrupt.out;
  EXPECT_NE(corrupt.out.find("checkpoint.safetensors"), std::string::npos) << corrupt.out;
  const auto folder = run / "evals" / "late";
  EXPECT_FALSE(fs::exists(folder)) << "a folder was made for an evaluation that never started";
  std::ofstream(checkpoint, std::ios::binary | std::ios::trunc) << good;

  // Held-out text with no held-out split (one short file) is found once the folder exists: bad input
  // found late. The folder says failed and why; the error says how to retry.
  const auto small = dir.write("small.txt", proteus::test_support::TempDir::read(
                                                fs::path(PROTEUS_SOURCE_DIR) / "assets/corpus/brown/ca01.txt").substr(0, 3000));
  const auto bad = run_proteus({"eval", run.string(), "--set", "data.text.path=" + small, "--as", "late"});
  EXPECT_EQ(bad.status, 1) << bad.out;
  EXPECT_NE(bad.out.find("remove it to evaluate again"), std::string::npos) << bad.out;
  ASSERT_TRUE(fs::exists(folder / "status.json")) << "a folder without a status, or none: " << bad.out;
  const auto status = proteus::test_support::TempDir::read(folder / "status.json");
  EXPECT_NE(status.find("\"failed\""), std::string::npos) << status;
  EXPECT_NE(status.find("data.text.holdout"), std::string::npos) << "the reason is in the status: " << status;

  // The name is taken, and the refusal says by what and how to retry.
  const auto again = run_proteus({"eval", run.string(), "--set", "model.mixer.N=64", "--as", "late"});
  EXPECT_EQ(again.status, 2) << again.out;
  EXPECT_NE(again.out.find("ended failed"), std::string::npos) << again.out;
  EXPECT_NE(again.out.find("rm -r " + folder.generic_string()), std::string::npos) << again.out;
  EXPECT_EQ(std::count(again.out.begin(), again.out.end(), '\n'), 1) << again.out;

  // Retrying as told works.
  fs::remove_all(folder);
  const auto retry = run_proteus({"eval", run.string(), "--set", "model.mixer.N=64", "--as", "late"});
  EXPECT_EQ(retry.status, 0) << retry.out;
  EXPECT_NE(proteus::test_support::TempDir::read(folder / "status.json").find("\"finished\""), std::string::npos);
  for (const auto& e : fs::directory_iterator(run / "evals"))
    EXPECT_NE(e.path().filename().string().front(), '.') << "a staging folder was left: " << e.path();
}

// Stopped by a signal once its folder exists: SIGTERM leaves "cancelled", SIGKILL a "running" status
// no process holds (read as interrupted); either way asking for the name again says what is there.
TEST(EvalAsCommand, AStoppedEvaluationSaysHowItEnded) {
  proteus::test_support::TempDir dir;
  const auto config = dir.write("tiny.json", tiny);
  ASSERT_EQ(run_proteus({"train", config, "--runs-dir", (dir / "runs").string()}).status, 0);
  const auto run = dir / "runs" / "tiny";
  for (const auto& [sig, ended] : std::vector<std::pair<int, std::string>>{{SIGTERM, "ended cancelled"},
                                                                          {SIGKILL, "ended interrupted"}}) {
    SCOPED_TRACE(ended);
    const std::string name = sig == SIGTERM ? "term" : "kill";
    const auto folder = run / "evals" / name;
    {
      // Long enough to be stopped midway: many sequences at many positions.
      proteus::test_support::ChildProcess p({"eval", run.string(), "--set", "eval.per_position.sequences=512",
                                             "--set", "eval.per_position.seq_len=2048", "--as", name},
                                            (dir / "eval.log").string());
      ASSERT_TRUE(proteus::test_support::wait_until([&] { return fs::exists(folder); }, std::chrono::seconds(60)));
      EXPECT_TRUE(fs::exists(folder / "status.json")) << "the folder appeared without its status";
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      p.signal(sig);
      p.wait();
    }
    const auto again = run_proteus({"eval", run.string(), "--as", name});
    EXPECT_EQ(again.status, 2) << again.out;
    EXPECT_NE(again.out.find(ended), std::string::npos) << again.out;
    EXPECT_NE(again.out.find("rm -r"), std::string::npos) << again.out;
  }
}

}  // namespace
