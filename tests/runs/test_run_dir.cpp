// The run directory: unique names, config and status, metrics read while live, a crash's torn
// line, atomic results with no temporaries left behind, CSV round trips.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/config/config_json.hpp"
#include "core/common/input_error.hpp"
#include "core/runs/run_dir.hpp"

namespace {

using nlohmann::json;
using proteus::InputError;
using namespace proteus::runs;
namespace fs = std::filesystem;

class runs : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("proteus-runs-" + std::to_string(::getpid()) + "-" + info->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Every file under the runs directory whose name marks it a temporary.
  std::vector<std::string> temporaries() const {
    std::vector<std::string> found;
    for (const auto& e : fs::recursive_directory_iterator(dir_))
      if (e.path().filename().string().find(".tmp") != std::string::npos) found.push_back(e.path().string());
    return found;
  }

  static void append_raw(const fs::path& file, const std::string& bytes) {
    std::ofstream(file, std::ios::app | std::ios::binary) << bytes;
  }

  fs::path dir_;
};

TEST_F(runs, CreateMakesUniqueDirectories) {
  const json config = {{"name", "exp"}};
  RunWriter a = RunWriter::create(dir_, "exp", config);
  RunWriter b = RunWriter::create(dir_, "exp", config);
  RunWriter c = RunWriter::create(dir_, "exp", config);
  RunWriter other = RunWriter::create(dir_, "alpha", config);
  EXPECT_EQ(a.name(), "exp");
  EXPECT_EQ(b.name(), "exp-2");
  EXPECT_EQ(c.name(), "exp-3");
  EXPECT_EQ(list_runs(dir_), (std::vector<std::string>{"alpha", "exp", "exp-2", "exp-3"}));
  // Directories without a config.json are not runs.
  fs::create_directories(dir_ / "scratch");
  EXPECT_EQ(list_runs(dir_).size(), 4u);
  EXPECT_TRUE(list_runs(dir_ / "absent").empty());
  EXPECT_THROW(RunWriter::create(dir_, "a/b", config), InputError);
  EXPECT_THROW(RunWriter::create(dir_, "", config), InputError);
}

TEST_F(runs, ConfigAndStatus) {
  const proteus::config::RunConfig defaults;
  const json config = proteus::config::to_json(defaults);
  RunWriter w = RunWriter::create(dir_, "run", config);
  const RunReader r = RunReader::open(w.dir());
  EXPECT_EQ(r.config(), config);
  EXPECT_EQ(r.run_config().model.d_model, 128);
  EXPECT_EQ(json::parse(std::ifstream(w.dir() / "config.json")), config);

  RunStatus s = r.status();
  EXPECT_EQ(s.state, RunState::running);
  EXPECT_EQ(s.step, 0);
  EXPECT_EQ(s.updated.size(), 20u) << s.updated;  // 2026-03-01T12:00:00Z
  EXPECT_EQ(s.updated.back(), 'Z');

  w.set_status(RunState::finished, "done in 12 s", 300);
  s = r.status();
  EXPECT_EQ(s.state, RunState::finished);
  EXPECT_EQ(s.message, "done in 12 s");
  EXPECT_EQ(s.step, 300);
  const json raw = json::parse(std::ifstream(w.dir() / "status.json"));
  EXPECT_EQ(raw["state"], "finished");
  EXPECT_TRUE(raw.contains("updated"));

  for (RunState st : {RunState::running, RunState::finished, RunState::cancelled, RunState::failed})
    EXPECT_EQ(parse_state(state_name(st)), st);
  EXPECT_THROW(parse_state("paused"), InputError);
  EXPECT_THROW(RunReader::open(dir_ / "nothing"), InputError);
}

TEST_F(runs, MetricsAreReadableWhileLive) {
  RunWriter w = RunWriter::create(dir_, "live", json::object());
  const RunReader r = RunReader::open(w.dir());
  EXPECT_TRUE(r.metrics().empty());
  MetricsTail tail(w.dir() / kMetricsFile);
  EXPECT_TRUE(tail.poll().empty());

  for (int step = 10; step <= 30; step += 10) w.append_metrics({{"step", step}, {"loss", 5.0 / step}});
  // The writer is still open: everything appended is already visible.
  std::vector<json> m = r.metrics();
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[2]["step"], 30);
  EXPECT_EQ(m[2]["loss"].get<double>(), 5.0 / 30);
  EXPECT_EQ(tail.poll().size(), 3u);

  w.append_metrics({{"step", 40}, {"loss", 0.1}});
  const std::vector<json> fresh = tail.poll();  // only what is new
  ASSERT_EQ(fresh.size(), 1u);
  EXPECT_EQ(fresh[0]["step"], 40);
  EXPECT_EQ(tail.lines_read(), 4u);
  EXPECT_EQ(r.metrics().size(), 4u);

  EXPECT_THROW(w.append_metrics(json::array({1, 2})), std::invalid_argument);
}

TEST_F(runs, TornLastLineIsSkippedThenResumeCutsIt) {
  fs::path run_dir;
  {
    RunWriter w = RunWriter::create(dir_, "crash", json::object());
    run_dir = w.dir();
    w.append_metrics({{"step", 1}});
    w.append_metrics({{"step", 2}});
  }
  // A crash mid-line: half an object, no newline.
  append_raw(run_dir / kMetricsFile, R"({"step": 3, "lo)");
  const RunReader r = RunReader::open(run_dir);
  std::vector<json> m = r.metrics();
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[1]["step"], 2);

  MetricsTail tail(run_dir / kMetricsFile);
  EXPECT_EQ(tail.poll().size(), 2u);
  append_raw(run_dir / kMetricsFile, "ss\": 0.5}\n");  // the writer finishes the line
  const std::vector<json> rest = tail.poll();
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_EQ(rest[0]["loss"], 0.5);

  // Torn again, then the run is resumed: the fragment goes, new lines start clean.
  append_raw(run_dir / kMetricsFile, R"({"step": 4)");
  RunWriter resumed = RunWriter::resume(run_dir);
  resumed.append_metrics({{"step", 5}});
  m = r.metrics();
  ASSERT_EQ(m.size(), 4u);
  EXPECT_EQ(m[3]["step"], 5);
  EXPECT_EQ(r.status().state, RunState::running);
  EXPECT_EQ(r.status().message, "resumed");
}

TEST_F(runs, BadCompleteLineNamesFileAndLine) {
  RunWriter w = RunWriter::create(dir_, "bad", json::object());
  w.append_metrics({{"step", 1}});
  append_raw(w.dir() / kMetricsFile, "not json\n");
  w.append_metrics({{"step", 3}});
  try {
    RunReader::open(w.dir()).metrics();
    FAIL() << "a corrupt middle line was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), (w.dir() / kMetricsFile).generic_string() + ":2");
  }
}

TEST_F(runs, ResultsAreWrittenAtomicallyAndListed) {
  RunWriter w = RunWriter::create(dir_, "res", json::object());
  for (int i = 0; i < 20; ++i) {
    w.write_json("niah.json", {{"score", i}});
    w.set_status(RunState::running, "step", i);
  }
  w.write_csv("per_position.csv", {"position", "loss"}, std::vector<std::vector<double>>{{1, 0.1}, {2, 1.0 / 3}});
  w.write_csv("notes.csv", {"name", "text"},
              std::vector<std::vector<std::string>>{{"a", "plain"}, {"b", "with, comma"}, {"c", "say \"hi\"\nbye"}, {"d", ""}});
  w.write_csv("single.csv", {"only"}, std::vector<std::vector<std::string>>{{""}, {"x"}});
  EXPECT_TRUE(temporaries().empty());

  const RunReader r = RunReader::open(w.dir());
  EXPECT_EQ(r.results(), (std::vector<std::string>{"niah.json", "notes.csv", "per_position.csv", "single.csv"}));
  EXPECT_EQ(r.read_json("niah.json")["score"], 19);

  const CsvTable pp = r.read_csv("per_position.csv");
  EXPECT_EQ(pp.header, (std::vector<std::string>{"position", "loss"}));
  ASSERT_EQ(pp.rows.size(), 2u);
  EXPECT_EQ(std::stod(pp.rows[1][1]), 1.0 / 3);  // shortest form, exact on reading back

  const CsvTable notes = r.read_csv("notes.csv");
  ASSERT_EQ(notes.rows.size(), 4u);
  EXPECT_EQ(notes.rows[1][1], "with, comma");
  EXPECT_EQ(notes.rows[2][1], "say \"hi\"\nbye");
  EXPECT_EQ(notes.rows[3][1], "");
  const CsvTable single = r.read_csv("single.csv");
  ASSERT_EQ(single.rows.size(), 2u);
  EXPECT_EQ(single.rows[0][0], "");

  EXPECT_THROW(w.write_json("config.json", json::object()), InputError);
  EXPECT_THROW(w.write_json("../escape.json", json::object()), InputError);
  EXPECT_THROW(w.write_json("results.txt", json::object()), InputError);
  EXPECT_THROW(w.write_csv("x.json", {"a"}, std::vector<std::vector<std::string>>{}), InputError);
  EXPECT_EQ(w.path("model.safetensors"), w.dir() / "model.safetensors");
  EXPECT_THROW(w.path("a/b"), InputError);
}

TEST_F(runs, AFailedWriteLeavesNoTemporary) {
  RunWriter w = RunWriter::create(dir_, "fail", json::object());
  fs::create_directories(w.dir() / "grid.json");  // the rename onto a directory fails
  EXPECT_THROW(w.write_json("grid.json", {{"a", 1}}), std::runtime_error);
  EXPECT_TRUE(temporaries().empty());
}

TEST_F(runs, LeftoverTemporariesAreNotResults) {
  RunWriter w = RunWriter::create(dir_, "tmp", json::object());
  append_raw(w.dir() / ".niah.json.tmp-1-0", "{");  // what a crash between write and rename leaves
  EXPECT_TRUE(RunReader::open(w.dir()).results().empty());
}

// Issue 34: a killed write's temporaries (a checkpoint's, a status's) are removed when the run is
// next opened for writing (resume, evaluation): its lock is held then, so nobody writes them.
TEST_F(runs, ReopeningARunRemovesTheTemporariesAKilledWriteLeft) {
  fs::path dir;
  {
    RunWriter w = RunWriter::create(dir_, "killed", json::object());
    dir = w.dir();
  }
  append_raw(dir / ".checkpoint.safetensors.tmp-999999-0", "half a checkpoint");
  append_raw(dir / ".status.json.tmp-999999-3", "{");
  append_raw(dir / "notes.txt", "the user's");
  RunReader::open(dir);  // a reader leaves them: it holds no lock
  EXPECT_EQ(temporaries().size(), 2u);
  RunWriter again = RunWriter::reopen(dir);
  EXPECT_TRUE(temporaries().empty()) << temporaries().front();
  EXPECT_TRUE(fs::exists(dir / "notes.txt"));
  EXPECT_TRUE(fs::exists(dir / "config.json"));
}

// Issue 34: one limit for writing and reading a run's config.json: one its readers would refuse is
// never written, and no folder is left.
TEST_F(runs, AConfigItsReadersWouldRefuseIsNeverWritten) {
  json big = json::object();
  big["mix"] = json::array();
  for (int i = 0; i < 80000; ++i) big["mix"].push_back({{"task", "text"}, {"weight", 1.0}});
  ASSERT_GT(big.dump(2).size(), kRunFileLimits.max_bytes);
  try {
    RunWriter::create(dir_, "big", big);
    FAIL() << "written";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "config.json");
    EXPECT_NE(e.reason().find("over the limit of 4 MiB"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(list_runs(dir_).empty());
  EXPECT_FALSE(fs::exists(dir_ / "big"));
}

// Issue 34: a path that cannot be told (a symlink loop, an over-long name) is refused as bad input
// naming it, never thrown as a filesystem_error.
TEST_F(runs, ALoopOrAnOverlongPathIsRefusedNotThrown) {
  fs::create_directories(dir_);
  fs::create_symlink("loop", dir_ / "loop");
  for (const fs::path& bad : {dir_ / "loop", dir_ / std::string(5000, 'x')}) {
    EXPECT_THROW(RunReader::open(bad), InputError);
    EXPECT_THROW(RunWriter::reopen(bad), InputError);
  }
  std::vector<std::string> unreadable;
  EXPECT_TRUE(list_runs(dir_, &unreadable).empty());
  ASSERT_EQ(unreadable.size(), 1u);
  EXPECT_NE(unreadable[0].find("loop: cannot read it"), std::string::npos) << unreadable[0];
}

TEST(runs_csv, ParseErrors) {
  EXPECT_THROW(parse_csv("a,b\n1,2,3\n", "t.csv"), InputError);
  EXPECT_THROW(parse_csv("a\n\"open\n", "t.csv"), InputError);
  EXPECT_THROW(parse_csv("a\nx\"y\n", "t.csv"), InputError);
  try {
    parse_csv("a,b\n1,2\n\n3\n", "t.csv");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "t.csv:4");
  }
  const CsvTable crlf = parse_csv("a,b\r\n1,2\r\n", "t.csv");
  ASSERT_EQ(crlf.rows.size(), 1u);
  EXPECT_EQ(crlf.rows[0][1], "2");
}

}  // namespace
