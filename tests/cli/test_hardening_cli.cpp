// `proteus` against a hostile user (issue 10): every bad input exits 2 with one short line naming
// the field, before anything is written; an output never replaces what is not a regular file; a
// run another writer holds is refused untouched.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/runs/run_dir.hpp"
#include "core/runs/run_lock.hpp"
#include "tests/support/run_command.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using proteus::test_support::run_proteus;

fs::path temp_dir(const std::string& what) {
  auto d = fs::temp_directory_path() / ("proteus-cli-hardening-" + what + "-" + std::to_string(std::random_device{}()));
  fs::create_directories(d);
  return d;
}

void write(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

const std::string kCorpus = std::string(PROTEUS_SOURCE_DIR) + "/assets/corpus/brown";

// A run small enough to train in a second.
json tiny() {
  json j = json::parse(R"({
    "name": "tiny", "seed": 1, "threads": 1,
    "model": {"d_model": 16, "layers": 1, "mixer": {"heads": 1, "d_head": 4, "E": 2}},
    "data": {"seq_len": 16, "batch": 2},
    "train": {"steps": 4, "warmup": 1, "eval_every": 2, "log_every": 1, "val_batches": 1},
    "eval": {"per_position": {"seq_len": 20, "sequences": 2}, "niah": {"enabled": false}, "occupancy": {"blocks": 2}}
  })");
  j["data"]["text"]["path"] = kCorpus;
  return j;
}

// `train CONFIG_TEXT` must exit 2 with one line holding `expect`, and write no run.
void expect_refused(const std::string& config_text, const std::string& expect,
                    const std::vector<std::string>& extra = {}) {
  const auto dir = temp_dir("refused");
  write(dir / "c.json", config_text);
  std::vector<std::string> args = {"train", (dir / "c.json").string(), "--runs-dir", (dir / "runs").string()};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = run_proteus(args);
  EXPECT_EQ(r.status, 2) << expect << "\n" << r.out.substr(0, 500);
  EXPECT_NE(r.out.find(expect), std::string::npos) << expect << "\n" << r.out.substr(0, 500);
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out.substr(0, 500);
  EXPECT_LT(r.out.size(), 500u) << "a message quotes a short prefix of a bad value";
  EXPECT_FALSE(fs::exists(dir / "runs")) << expect << ": something was written for a refused config";
  fs::remove_all(dir);
}

TEST(HardenedTrain, BadConfigsStopBeforeAnythingRuns) {
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "{\"a\":";
  deep += '1';
  deep.append(100000, '}');
  expect_refused(deep, "nesting deeper than 64 levels");  // was a SIGSEGV
  expect_refused(R"({"seed": 1, "seed": 2})", "seed: appears twice");  // the last one won
  expect_refused(R"({"name": 5})", "name: expected a string, got 5");  // became "run"
  expect_refused(R"({"model": {"d_model": 1e9}})", "model.d_model: must be in [1, 65536], got 1000000000");
  expect_refused(R"({"data": {"seq_len": 2e9}})", "data.seq_len: must be in [8, 1048576], got 2000000000");
  expect_refused(R"({"threads": 100000})", "threads: must be in [0, 1024], got 100000");  // 32,000 threads
  expect_refused(R"({"device": ")" + std::string(1 << 20, 'x') + "\"}", "device: unknown value");
  const std::string t = tiny().dump();
  expect_refused(t, "--steps: must be in [1, 100000000], got 0", {"--steps", "0"});
  expect_refused(t, "--steps: must be in [1, 100000000], got -3", {"--steps", "-3"});
  expect_refused(t, "--threads: must be in [0, 1024], got -1", {"--threads", "-1"});
}

TEST(HardenedTrain, AnEndlessConfigIsRefusedAtTheLimit) {
  const auto r = run_proteus({"train", "/dev/zero", "--dry-run"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("/dev/zero: is larger than the limit of 4 MiB for a config file"), std::string::npos) << r.out;
}

TEST(HardenedTrain, CorpusProblemsStopBeforeARunDirectoryExists) {
  const auto dir = temp_dir("corpus");
  write(dir / "empty.txt", "");
  fs::create_directories(dir / "no-text");
  fs::create_directories(dir / "short");
  write(dir / "short" / "a.txt", "too short");
  write(dir / "short" / "b.txt", "also short");
  for (const char* corpus : {"empty.txt", "no-text", "short"}) {
    json c = tiny();
    c["data"]["text"]["path"] = (dir / corpus).string();
    expect_refused(c.dump(), "data.text.path: ");
  }
  fs::remove_all(dir);
}

TEST(HardenedTrain, ResumeRefusesOptionsItWouldIgnore) {
  const auto dir = temp_dir("resume-options");
  fs::create_directories(dir / "run");
  write(dir / "run" / "config.json", tiny().dump());
  for (const auto& [option, value] : std::vector<std::pair<std::string, std::string>>{
           {"--steps", "5"}, {"--threads", "2"}, {"--set", "seed=2"}, {"--device", "cpu"}}) {
    const auto r = run_proteus({"train", "--resume", (dir / "run").string(), option, value});
    EXPECT_EQ(r.status, 2) << option << " " << value << "\n" << r.out;
    EXPECT_NE(r.out.find("cannot be combined with --resume"), std::string::npos) << r.out;
  }
  fs::remove_all(dir);
}

TEST(HardenedTrain, ARunAnotherWriterHoldsIsRefusedUntouched) {
  const auto dir = temp_dir("held");
  write(dir / "tiny.json", tiny().dump());
  ASSERT_EQ(run_proteus({"train", (dir / "tiny.json").string(), "--runs-dir", (dir / "runs").string(), "--no-eval"})
                .status,
            0);
  const fs::path run = dir / "runs" / "tiny";
  const std::string status = read(run / "status.json");
  {
    auto lock = proteus::runs::RunLock::acquire(run);  // a training of another process, say
    for (const std::vector<std::string>& command : {std::vector<std::string>{"train", "--resume", run.string()},
                                                    std::vector<std::string>{"eval", run.string()}}) {
      const auto r = run_proteus(command);
      EXPECT_EQ(r.status, 2) << command.front() << "\n" << r.out;
      EXPECT_NE(r.out.find("another writer holds this run"), std::string::npos) << r.out;
    }
    EXPECT_EQ(read(run / "status.json"), status);
  }
  EXPECT_EQ(run_proteus({"eval", run.string()}).status, 0);
  fs::remove_all(dir);
}

class HardenedMemoryOp : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = temp_dir("memory-op");
    write(dir_ / "in.json", R"({"rule": "linear", "q": [[1, 0]], "k": [[1, 0]], "v": [[2]], "beta": [1]})");
  }
  void TearDown() override { fs::remove_all(dir_); }
  proteus::test_support::CommandResult memory_op(const fs::path& in, const fs::path& out) const {
    return run_proteus({"memory-op", "--in", in.string(), "--out", out.string()});
  }
  fs::path dir_;
};

TEST_F(HardenedMemoryOp, InputsAreBounded) {
  auto r = memory_op("/dev/zero", dir_ / "out.json");  // was read without limit
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("/dev/zero: is larger than the limit of 32 MiB"), std::string::npos) << r.out;
  std::string deep = "{\"rule\": \"linear\", \"q\": ";
  deep.append(100000, '[');
  deep.append(100000, ']');
  deep += '}';
  write(dir_ / "deep.json", deep);  // grew to gigabytes in the duplicate-key check
  r = memory_op(dir_ / "deep.json", dir_ / "out.json");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("nesting deeper than 64 levels"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir_ / "out.json"));
}

TEST_F(HardenedMemoryOp, AnOutputThatIsNotARegularFileIsNeverReplaced) {
  write(dir_ / "target.json", "mine");
  fs::create_symlink(dir_ / "target.json", dir_ / "link.json");
  auto r = memory_op(dir_ / "in.json", dir_ / "link.json");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("is a symbolic link, not a regular file: refusing to replace it"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.json"));
  EXPECT_EQ(read(dir_ / "target.json"), "mine");
  fs::create_directories(dir_ / "folder");
  r = memory_op(dir_ / "in.json", dir_ / "folder");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(fs::is_directory(dir_ / "folder"));
}

TEST_F(HardenedMemoryOp, ADeviceOrAPipeIsWrittenThrough) {
  // A twin of /dev/null made here (never the system's: were it replaced, the test must not have
  // destroyed a real device): `--out /dev/null` replaced the device with a file, as root.
  if (::mknod((dir_ / "null").c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0) {
    const auto r = memory_op(dir_ / "in.json", dir_ / "null");
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_TRUE(fs::is_character_file(dir_ / "null"));
  }
  // A link to this process's stdout (what /dev/stdout is): the JSON goes down the pipe, the
  // summary to stderr, and the link stays a link.
  fs::create_symlink("/proc/self/fd/1", dir_ / "stdout");
  const auto r = run_proteus({"memory-op", "--in", (dir_ / "in.json").string(), "--out", (dir_ / "stdout").string()},
                             {.stderr_apart = true});
  EXPECT_EQ(r.status, 0) << r.err;
  ASSERT_TRUE(json::accept(r.out)) << r.out;
  EXPECT_EQ(json::parse(r.out)["o"][0][0], 2.0);
  EXPECT_TRUE(fs::is_symlink(dir_ / "stdout"));
  // A named pipe.
  ASSERT_EQ(::mkfifo((dir_ / "pipe").c_str(), 0600), 0);
  std::string piped;
  std::thread reader([&] { piped = read(dir_ / "pipe"); });
  EXPECT_EQ(memory_op(dir_ / "in.json", dir_ / "pipe").status, 0);
  reader.join();
  EXPECT_TRUE(json::accept(piped)) << piped;
  EXPECT_TRUE(fs::is_fifo(dir_ / "pipe"));
}

}  // namespace
