// The real `proteus memory-op` binary: exit statuses, the one-line stderr report, the files it
// writes (and does not write), and every shipped example in assets/examples.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/run_command.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string read_text(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream file(path, std::ios::binary);
  file << text;
}

using Outcome = proteus::test_support::CommandResult;  // stdout in out, stderr in err

// A fresh directory per test, so OUT.json's absence means this run did not write it.
class MemoryOpCli : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("proteus_memory_op_cli_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path path(const std::string& name) const { return dir_ / name; }

  Outcome run(const std::vector<std::string>& args) const {
    return proteus::test_support::run_proteus(args, {.stderr_apart = true});
  }

  Outcome run_memory_op(const fs::path& in, const fs::path& out) const {
    return run({"memory-op", "--in", in.string(), "--out", out.string()});
  }

  // IN.json with this text must be refused: status 2, one stderr line naming the field, no OUT.json.
  void expect_refused(const std::string& in_text, const std::string& field) const {
    write_text(path("in.json"), in_text);
    expect_refused_run(run_memory_op(path("in.json"), path("out.json")), field, in_text);
  }

  void expect_refused_run(const Outcome& outcome, const std::string& field, const std::string& what) const {
    EXPECT_EQ(outcome.status, 2) << what << "\nstderr: " << outcome.err;
    EXPECT_EQ(std::count(outcome.err.begin(), outcome.err.end(), '\n'), 1) << "stderr: " << outcome.err;
    EXPECT_EQ(outcome.err.rfind("proteus memory-op: error: " + field + ":", 0), 0u) << "stderr: " << outcome.err;
    EXPECT_FALSE(fs::exists(path("out.json"))) << what;
    EXPECT_FALSE(fs::exists(path("out.json.tmp"))) << what;
  }

  fs::path dir_;
};

// A valid delta input: T = 3, d_k = 2, d_v = 2, E = 2; `changes` adds or replaces top-level fields.
std::string delta_input(const json& changes = json::object()) {
  json in = json::parse(R"({"rule": "delta", "E": 2, "N": 2,
    "q": [[1, 0], [0, 1], [0.6, 0.8]],
    "k": [[0.6, 0.8], [1, 0], [0, 1]],
    "v": [[1, 2], [3, 4], [5, 6]],
    "beta": [0.5, 1, 0.25],
    "a": [1, 0.9, 0.8],
    "dO": [[1, 0], [0, 1], [1, 1]]})");
  in.update(changes);
  return in.dump();
}

// The same input as text with one more field appended, for what a json value cannot hold.
std::string delta_input_with_raw(const std::string& field_text) {
  std::string text = delta_input();
  text.pop_back();  // the closing brace
  return text + ", " + field_text + "}";
}

void expect_shape(const json& value, size_t rows, size_t cols, const std::string& name) {
  ASSERT_TRUE(value.is_array()) << name;
  ASSERT_EQ(value.size(), rows) << name;
  for (const auto& row : value) {
    ASSERT_TRUE(row.is_array()) << name;
    EXPECT_EQ(row.size(), cols) << name;
  }
}

TEST_F(MemoryOpCli, GoodInputWritesOutputsAndGrads) {
  write_text(path("in.json"), delta_input());
  const Outcome outcome = run_memory_op(path("in.json"), path("out.json"));
  ASSERT_EQ(outcome.status, 0) << outcome.err;
  EXPECT_TRUE(outcome.err.empty()) << outcome.err;
  EXPECT_LE(std::count(outcome.out.begin(), outcome.out.end(), '\n'), 1);
  EXPECT_FALSE(fs::exists(path("out.json.tmp")));

  const std::string text = read_text(path("out.json"));
  EXPECT_NE(text.find("\n  \""), std::string::npos) << "not indented by 2";
  const json out = json::parse(text);
  expect_shape(out["o"], 3, 2, "o");
  expect_shape(out["S"], 2, 2, "S");
  EXPECT_EQ(out["active_blocks"], json({1, 2, 2}));
  EXPECT_EQ(out["active_elements"], json({2, 4, 4}));
  EXPECT_EQ(out["rule"], "delta");
  EXPECT_EQ(out["schedule"]["unlock"], json({1, 2}));
  const json& grad = out["grad"];
  expect_shape(grad["q"], 3, 2, "grad.q");
  expect_shape(grad["k"], 3, 2, "grad.k");
  expect_shape(grad["v"], 3, 2, "grad.v");
  expect_shape(grad["S0"], 2, 2, "grad.S0");
  EXPECT_EQ(grad["beta"].size(), 3u);
  EXPECT_EQ(grad["a"].size(), 3u);
  EXPECT_FALSE(grad.contains("p") || grad.contains("eta") || grad.contains("gamma"));
  // t = 1 reads only key row 0 of S_1 = beta_1 k_1[0] v_1^T = 0.5 * 0.6 * (1, 2): o_1 = (0.3, 0.6).
  EXPECT_DOUBLE_EQ(out["o"][0][0].get<double>(), 0.3);
  EXPECT_DOUBLE_EQ(out["o"][0][1].get<double>(), 0.6);
}

TEST_F(MemoryOpCli, NumbersRoundTripExactly) {
  // A value with all 53 bits in use comes back as the same double: the file is the op's result.
  write_text(path("in.json"), R"({"rule": "linear", "q": [[1]], "k": [[1]], "v": [[0.1]], "beta": [0.3]})");
  ASSERT_EQ(run_memory_op(path("in.json"), path("out.json")).status, 0);
  const json out = json::parse(read_text(path("out.json")));
  EXPECT_EQ(out["o"][0][0].get<double>(), 0.3 * 1.0 * 0.1);
}

TEST_F(MemoryOpCli, NoGradWithoutUpstream) {
  write_text(path("in.json"), R"({"rule": "linear", "q": [[1, 0]], "k": [[1, 0]], "v": [[2]], "beta": [1]})");
  ASSERT_EQ(run_memory_op(path("in.json"), path("out.json")).status, 0);
  EXPECT_FALSE(json::parse(read_text(path("out.json"))).contains("grad"));
}

TEST_F(MemoryOpCli, BadInputsExitTwoWithOneLine) {
  expect_refused(delta_input({{"rule", "foo"}}), "rule");
  expect_refused(R"({"rule": "delta", "q": [[1, 0], [0]], "k": [[1, 0], [0, 1]], "v": [[1], [1]], "beta": [1, 1]})",
                 "q[1]");
  expect_refused(delta_input({{"E", 5}}), "E");
  expect_refused(delta_input({{"E", 0}}), "E");
  expect_refused(delta_input({{"beta", {0.5, 2.5, 1}}}), "beta[1]");
  expect_refused(delta_input({{"schedule", {{"type", "custom"}, {"unlock", {2, 3}}}}}), "schedule.unlock[0]");
  expect_refused(R"({"rule": "linear", "E": 3, "schedule": {"type": "custom", "unlock": [1, 4, 2]},
                     "q": [[1, 0, 0]], "k": [[1, 0, 0]], "v": [[1]], "beta": [1]})",
                 "schedule.unlock[2]");
  expect_refused(delta_input({{"schedule", {{"type", "uniform"}, {"typo", 1}}}}), "schedule.typo");
  expect_refused(delta_input({{"betaa", {1, 1, 1}}}), "betaa");
  expect_refused(delta_input_with_raw(R"("S0": [[0, 0], [0, -1e999]])"), "S0[1][1]");
  expect_refused(delta_input_with_raw(R"("schedule": {"type": "uniform", "type": "geometric"})"), "schedule.type");
  expect_refused(delta_input_with_raw(R"("beta": [1, 1, 1])"), "beta");
}

TEST_F(MemoryOpCli, MalformedJsonNamesTheFile) {
  const std::string in = path("in.json").string();
  expect_refused(R"({"rule": "delta", "q": [[1, 0]],)", in);
  expect_refused("", in);
}

TEST_F(MemoryOpCli, UnreadableInputNamesTheFile) {
  const fs::path missing = path("missing.json");
  expect_refused_run(run_memory_op(missing, path("out.json")), missing.string(), "a missing IN.json");
}

TEST_F(MemoryOpCli, UsageErrorsExitTwo) {
  expect_refused_run(run({"memory-op", "--out", path("out.json").string()}), "--in", "missing --in");
  write_text(path("in.json"), delta_input());
  const Outcome no_out = run({"memory-op", "--in", path("in.json").string()});
  EXPECT_EQ(no_out.status, 2);
  EXPECT_NE(no_out.err.find("--out"), std::string::npos) << no_out.err;
  const Outcome no_command = run({});
  EXPECT_EQ(no_command.status, 2);
  EXPECT_EQ(std::count(no_command.err.begin(), no_command.err.end(), '\n'), 1) << no_command.err;
}

TEST_F(MemoryOpCli, HelpDescribesTheFields) {
  const Outcome help = run({"memory-op", "--help"});
  EXPECT_EQ(help.status, 0);
  for (const char* word : {"--in", "--out", "rule", "beta", "schedule", "unlock", "README"})
    EXPECT_NE(help.out.find(word), std::string::npos) << word;
}

TEST_F(MemoryOpCli, UnwritableOutputLeavesNothing) {
  write_text(path("in.json"), delta_input());
  const fs::path out = path("no_such_dir") / "out.json";
  const Outcome outcome = run_memory_op(path("in.json"), out);
  EXPECT_EQ(outcome.status, 1);
  EXPECT_EQ(std::count(outcome.err.begin(), outcome.err.end(), '\n'), 1) << outcome.err;
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(MemoryOpCli, EveryExampleRuns) {
  const fs::path examples = fs::path(PROTEUS_SOURCE_DIR) / "assets" / "examples";
  std::vector<fs::path> inputs;
  for (const auto& entry : fs::directory_iterator(examples))
    if (entry.path().extension() == ".json") inputs.push_back(entry.path());
  std::sort(inputs.begin(), inputs.end());
  EXPECT_GE(inputs.size(), 3u);
  for (const auto& in : inputs) {
    const fs::path out = path(in.stem().string() + ".out.json");
    const Outcome outcome = run_memory_op(in, out);
    EXPECT_EQ(outcome.status, 0) << in << ": " << outcome.err;
    ASSERT_TRUE(fs::exists(out)) << in;
    const json result = json::parse(read_text(out));
    EXPECT_TRUE(result.contains("o") && result.contains("S") && result.contains("active_blocks")) << in;
  }
}

}  // namespace
