// `proteus eval RUN --set PATH=VALUE --as NAME` as a user meets it: the results go to
// RUN/evals/NAME (config, delta and result files), the run's own files stay byte-identical, an
// existing NAME and a --set without --as are refused with one line naming the option, and
// `proteus export RUN --evals` draws the evaluation beside the run.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

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
  const auto train = run_proteus("train " + config + " --runs-dir " + (dir / "runs").string());
  ASSERT_EQ(train.status, 0) << train.out;
  const auto run = dir / "runs" / "tiny";
  const auto before = files_outside_evals(run);

  const auto r = run_proteus("eval " + run.string() + " --set model.mixer.N=64 --as stretch-n64");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto folder = run / "evals" / "stretch-n64";
  for (const char* f : {"config.json", "delta.json", "status.json", "per_position.json", "per_position.csv",
                        "per_position_buckets.csv", "occupancy.json"})
    EXPECT_TRUE(fs::exists(folder / f)) << f;
  EXPECT_NE(proteus::test_support::TempDir::read(folder / "delta.json").find("\"model.mixer.N\": 64"),
            std::string::npos);
  EXPECT_EQ(files_outside_evals(run), before) << "the run's own files changed";

  // The same name again: refused, one line naming --as and the folder; nothing changes.
  const auto again = run_proteus("eval " + run.string() + " --set model.mixer.N=32 --as stretch-n64");
  EXPECT_EQ(again.status, 2) << again.out;
  EXPECT_NE(again.out.find("--as"), std::string::npos) << again.out;
  EXPECT_NE(again.out.find("already exists"), std::string::npos) << again.out;
  EXPECT_EQ(std::count(again.out.begin(), again.out.end(), '\n'), 1) << again.out;
  EXPECT_NE(proteus::test_support::TempDir::read(folder / "config.json").find("\"N\": 64"), std::string::npos);

  // --set alone would have overwritten the run's results: refused.
  const auto no_as = run_proteus("eval " + run.string() + " --set model.mixer.N=32");
  EXPECT_EQ(no_as.status, 2) << no_as.out;
  EXPECT_NE(no_as.out.find("--as"), std::string::npos) << no_as.out;
  // A field the weights fix: refused, naming it.
  const auto shape = run_proteus("eval " + run.string() + " --set model.d_model=32 --as wider");
  EXPECT_EQ(shape.status, 2) << shape.out;
  EXPECT_NE(shape.out.find("model.d_model"), std::string::npos) << shape.out;
  EXPECT_FALSE(fs::exists(run / "evals" / "wider"));
  EXPECT_EQ(files_outside_evals(run), before);

  // export --evals draws the evaluation beside the run.
  const auto ex = run_proteus("export " + run.string() + " --evals --formats csv --out " + (dir / "fig").string());
  ASSERT_EQ(ex.status, 0) << ex.out;
  const auto csv = proteus::test_support::TempDir::read(dir / "fig" / "per_position.csv");
  EXPECT_NE(csv.find("tiny,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("stretch-n64,"), std::string::npos) << csv;
}

}  // namespace
