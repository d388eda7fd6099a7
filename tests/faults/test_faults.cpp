// The fault suite (issue 10): `proteus train` killed (SIGKILL) or stopped (SIGTERM) at random
// points of a tiny run that checkpoints every step, two writers racing for one run, and a full
// disk (a small tmpfs, where the test may mount one). After each, the run's files are checked:
// every file parses, metrics steps only increase, status.json never claims a run is running that
// nobody runs, and the run resumes to the same complete record of steps.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/common/input_error.hpp"
#include "core/runs/run_dir.hpp"
#include "core/runs/run_lock.hpp"
#include "core/runs/safetensors.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/run_command.hpp"

namespace {

using namespace proteus;
using namespace std::chrono_literals;
namespace fs = std::filesystem;
using nlohmann::json;
using test_support::ChildProcess;
using test_support::wait_until;

constexpr int kSteps = 60;

fs::path temp_dir(const std::string& what) {
  auto d = fs::temp_directory_path() / ("proteus-faults-" + what + "-" + std::to_string(::getpid()) + "-" +
                                        std::to_string(std::random_device{}()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// A run that checkpoints at every step, so a kill lands in a checkpoint write as often as not.
fs::path write_config(const fs::path& dir, int steps = kSteps, int d_model = 32) {
  json c = json::parse(R"({"name": "tiny", "seed": 1, "threads": 1,
    "model": {"layers": 1, "mixer": {"heads": 2, "d_head": 8, "E": 2}},
    "data": {"seq_len": 32, "batch": 2},
    "train": {"warmup": 1, "eval_every": 10, "log_every": 1, "val_batches": 1, "checkpoint_every": 1},
    "eval": {"per_position": {"seq_len": 40, "sequences": 2}, "niah": {"enabled": false}, "occupancy": {"blocks": 2}}})");
  c["model"]["d_model"] = d_model;
  c["train"]["steps"] = steps;
  c["data"]["text"]["path"] = std::string(PROTEUS_SOURCE_DIR) + "/assets/corpus/brown";
  std::ofstream(dir / "tiny.json") << c.dump(2);
  return dir / "tiny.json";
}

std::vector<int64_t> steps_of(const runs::RunReader& reader) {
  std::vector<int64_t> steps;
  for (const auto& m : reader.metric_records()) steps.push_back(m.step);
  return steps;
}

std::vector<int64_t> one_to(int64_t n) {
  std::vector<int64_t> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = i + 1;
  return v;
}

// Everything a reader (the runs browser, eval, export) reads of a run parses, whatever moment the
// process died at; the run's state is never "running" without a writer.
void check_run_files(const fs::path& run, const std::string& when) {
  SCOPED_TRACE(when);
  const auto reader = runs::RunReader::open(run);
  EXPECT_NO_THROW(reader.run_config());
  runs::RunStatus status;
  ASSERT_NO_THROW(status = reader.status());
  EXPECT_FALSE(reader.writer_active()) << "the lock died with its writer";
  EXPECT_NE(reader.observed_state(), runs::ObservedState::running);
  std::vector<int64_t> steps;
  ASSERT_NO_THROW(steps = steps_of(reader));  // a torn last line is skipped, never an error
  EXPECT_TRUE(std::is_sorted(steps.begin(), steps.end()) &&
              std::adjacent_find(steps.begin(), steps.end()) == steps.end())
      << "metrics steps must only increase";
  for (const auto& file : reader.results()) {
    if (file.ends_with(".json")) EXPECT_NO_THROW(reader.read_json(file)) << file;
    else EXPECT_NO_THROW(reader.read_csv(file)) << file;
  }
  const fs::path ckpt = run / "checkpoint.safetensors";
  if (fs::exists(ckpt)) {
    runs::SafetensorsFile f;
    ASSERT_NO_THROW(f = runs::read_safetensors(ckpt)) << "a checkpoint is replaced whole or not at all";
    const int64_t ckpt_step = std::stoll(f.metadata.at("step"));
    if (ckpt_step > 0) {  // a cancel before the first step checkpoints step 0
      ASSERT_FALSE(steps.empty());
      EXPECT_LE(ckpt_step, steps.back()) << "a step is logged before it is checkpointed";
    }
  }
}

// Resumes the run to its end; afterwards every step was logged exactly once.
void resume_and_check(const fs::path& run, const fs::path& log, int steps) {
  const bool has_checkpoint = fs::exists(run / "checkpoint.safetensors");
  const auto r =
      test_support::run_proteus({"train", "--resume", run.string(), "--no-eval"}, {.append_to = log.string()});
  const auto reader = runs::RunReader::open(run);
  if (!has_checkpoint) {
    // Killed before the first checkpoint: nothing to resume from, and the run says so.
    EXPECT_EQ(r.status, 1) << "its output is in " << log;
    EXPECT_EQ(reader.status().state, runs::RunState::failed);
    return;
  }
  ASSERT_EQ(r.status, 0) << "its output is in " << log;
  EXPECT_EQ(reader.status().state, runs::RunState::finished);
  EXPECT_EQ(steps_of(reader), one_to(steps)) << "after a resume every step is there once";
}

// The kill's delay counts from the moment the run folder appears, so every trial kills a live run
// and is checked (a slow machine used to let kills land before the run existed and skip them all).
constexpr int kKillTrials = 6;
constexpr auto kRunAppears = 60s;

bool run_appeared(const fs::path& run) { return fs::exists(run / runs::kConfigFile); }

TEST(Faults, SigkillAtRandomPointsLeavesAReadableResumableRun) {
  std::mt19937 rng(20260301);  // the delays are drawn, not the outcomes: timing varies run to run
  std::uniform_int_distribution<int> delay_ms(0, 600);
  int checked = 0;
  for (int trial = 0; trial < kKillTrials; ++trial) {
    const auto dir = temp_dir("sigkill");
    const auto config = write_config(dir);
    const int delay = delay_ms(rng);
    const fs::path run = dir / "runs" / "tiny";
    {
      ChildProcess p({"train", config.string(), "--runs-dir", (dir / "runs").string()}, (dir / "log").string());
      ASSERT_TRUE(wait_until([&] { return run_appeared(run); }, kRunAppears)) << "the run never appeared";
      std::this_thread::sleep_for(std::chrono::milliseconds(delay));
      p.signal(SIGKILL);
      p.wait();
    }
    check_run_files(run, "SIGKILL " + std::to_string(delay) + " ms after the run appeared");
    resume_and_check(run, dir / "log", kSteps);
    ++checked;
    fs::remove_all(dir);
  }
  EXPECT_EQ(checked, kKillTrials) << "trials whose run was checked";
}

// A kill before or while the run folder is made leaves no run folder, or one that says what it is:
// never a half-made one (issue 21). A hidden staging folder may stay; the next run removes it.
TEST(Faults, SigkillWhileTheRunIsMadeLeavesNoHalfMadeFolder) {
  std::mt19937 rng(20260303);
  std::uniform_int_distribution<int> delay_ms(0, 400);
  int with_run = 0;
  for (int trial = 0; trial < kKillTrials; ++trial) {
    const auto dir = temp_dir("sigkill-early");
    const auto config = write_config(dir);
    const int delay = delay_ms(rng);
    {
      ChildProcess p({"train", config.string(), "--runs-dir", (dir / "runs").string()}, (dir / "log").string());
      std::this_thread::sleep_for(std::chrono::milliseconds(delay));
      p.signal(SIGKILL);
      p.wait();
    }
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir / "runs", ec)) {
      const std::string name = entry.path().filename().string();
      if (name.front() == '.') continue;  // a staging folder: never listed as a run
      EXPECT_EQ(name, "tiny");
      check_run_files(entry.path(), "SIGKILL " + std::to_string(delay) + " ms after the start");
      ++with_run;
    }
    fs::remove_all(dir);
  }
  std::printf("%d of %d early kills landed after the run appeared\n", with_run, kKillTrials);
}

// How long a run lives from the moment its folder appears to the process's exit, on this machine
// and under this load (a CUDA build starts and ends slower).
std::chrono::milliseconds run_lifetime() {
  const auto dir = temp_dir("lifetime");
  const auto config = write_config(dir);
  const fs::path run = dir / "runs" / "tiny";
  ChildProcess p({"train", config.string(), "--runs-dir", (dir / "runs").string()}, (dir / "log").string());
  EXPECT_TRUE(wait_until([&] { return run_appeared(run); }, kRunAppears)) << "the run never appeared";
  const auto appeared = std::chrono::steady_clock::now();
  EXPECT_EQ(p.wait(), 0);
  const auto lifetime = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - appeared);
  fs::remove_all(dir);
  return lifetime;
}

// The signal lands anywhere in the run's life, its last moments too: training, evaluating, printing
// the table and unwinding (where a CUDA build once died of a SIGTERM after its run had finished).
TEST(Faults, SigtermIsACancel) {
  const int lifetime_ms = static_cast<int>(run_lifetime().count());
  std::mt19937 rng(20260302);
  std::uniform_int_distribution<int> delay_ms(0, lifetime_ms + lifetime_ms / 10);
  constexpr int kTrials = 6;
  int checked = 0;
  for (int trial = 0; trial < kTrials; ++trial) {
    const auto dir = temp_dir("sigterm");
    const auto config = write_config(dir);
    const int delay = delay_ms(rng);
    const fs::path run = dir / "runs" / "tiny";
    int status = 0;
    {
      ChildProcess p({"train", config.string(), "--runs-dir", (dir / "runs").string()}, (dir / "log").string());
      ASSERT_TRUE(wait_until([&] { return run_appeared(run); }, kRunAppears)) << "the run never appeared";
      std::this_thread::sleep_for(std::chrono::milliseconds(delay));
      p.signal(SIGTERM);
      status = p.wait();
    }
    SCOPED_TRACE("SIGTERM " + std::to_string(delay) + " ms after the run appeared");
    ASSERT_TRUE(WIFEXITED(status)) << "SIGTERM must be handled once the run exists";
    const auto state = runs::RunReader::open(run).status().state;
    if (WEXITSTATUS(status) == 130) {
      // Cancelled while training (status cancelled, checkpointed) or while evaluating (trained).
      EXPECT_TRUE(state == runs::RunState::cancelled || state == runs::RunState::finished) << runs::state_name(state);
    } else {
      EXPECT_EQ(WEXITSTATUS(status), 0) << "finished before the signal";
      EXPECT_EQ(state, runs::RunState::finished);
    }
    check_run_files(run, "SIGTERM");
    if (state == runs::RunState::cancelled) resume_and_check(run, dir / "log", kSteps);
    ++checked;
    fs::remove_all(dir);
  }
  EXPECT_EQ(checked, kTrials) << "trials whose run was checked";
}

TEST(Faults, OfTwoResumesOfOneRunOneIsRefused) {
  const auto dir = temp_dir("two-writers");
  // Long enough that the first resume still holds the run while the second starts, on any load;
  // it is stopped by a signal once the refusal is seen.
  const int steps = 1'000'000;
  const auto config = write_config(dir, steps);
  const fs::path run = dir / "runs" / "tiny";
  const auto status_is = [&](runs::RunState s, int64_t min_step) {
    try {
      const auto st = runs::RunReader::open(run).status();
      return st.state == s && st.step >= min_step;
    } catch (const std::exception&) {
      return false;
    }
  };
  {
    ChildProcess first({"train", config.string(), "--runs-dir", (dir / "runs").string()}, (dir / "log").string());
    ASSERT_TRUE(wait_until([&] { return status_is(runs::RunState::running, 2); }, 20s));
    first.signal(SIGTERM);
    first.wait();
  }
  ASSERT_EQ(runs::RunReader::open(run).status().state, runs::RunState::cancelled);
  // Two resumes: they both ran and interleaved duplicate, out-of-order steps in metrics.jsonl.
  ChildProcess a({"train", "--resume", run.string(), "--no-eval"}, (dir / "a.log").string());
  ASSERT_TRUE(wait_until([&] { return runs::RunLock::held(run) && status_is(runs::RunState::running, 2); }, 20s));
  const auto b = test_support::run_proteus({"train", "--resume", run.string(), "--no-eval"});
  EXPECT_EQ(b.status, 2) << b.out;
  EXPECT_NE(b.out.find("another writer holds this run"), std::string::npos) << b.out;
  a.signal(SIGTERM);
  const int a_status = a.wait();
  ASSERT_TRUE(WIFEXITED(a_status));
  const auto reader = runs::RunReader::open(run);
  EXPECT_EQ(reader.status().state, runs::RunState::cancelled);
  // One writer only: the logged steps are 1, 2, ... up to where the resume was stopped.
  const auto logged = steps_of(reader);
  ASSERT_FALSE(logged.empty());
  EXPECT_EQ(logged, one_to(static_cast<int>(logged.back())));
  fs::remove_all(dir);
}

// Runs `script` (sh) in a new user and mount namespace, where it may mount a tmpfs; false when
// this machine allows neither (a container without user namespaces).
bool run_in_mount_namespace(const std::string& script, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"unshare", "-rm", "sh", "-c", script, "sh"};
  argv.insert(argv.end(), args.begin(), args.end());
  return test_support::run_program(argv).status == 0;
}

TEST(Faults, AFullDiskLeavesAFailedStatusAndEveryEarlierFile) {
  const auto dir = temp_dir("full-disk");
  const auto config = write_config(dir);
  fs::create_directories(dir / "mnt");
  fs::create_directories(dir / "out");
  // 96 KiB: the config, status and metrics fit; the first checkpoint (~250 KB) does not.
  const std::string script =
      "mount -t tmpfs -o size=96k tmpfs \"$1\" || exit 99; "
      "\"$2\" train \"$3\" --runs-dir \"$1/runs\" --no-eval > \"$4/log\" 2>&1; echo $? > \"$4/rc\"; "
      "cp -r \"$1/runs\" \"$4/\"";
  if (!run_in_mount_namespace(script, {(dir / "mnt").string(), PROTEUS_BIN, config.string(), (dir / "out").string()}) ||
      !fs::exists(dir / "out" / "rc")) {
    fs::remove_all(dir);
    GTEST_SKIP() << "cannot mount a tmpfs here (no user namespaces)";
  }
  std::ifstream rc_file(dir / "out" / "rc");
  int rc = -1;
  rc_file >> rc;
  std::ifstream log_file(dir / "out" / "log");
  const std::string log((std::istreambuf_iterator<char>(log_file)), std::istreambuf_iterator<char>());
  EXPECT_EQ(rc, 1) << log;
  const fs::path run = dir / "out" / "runs" / "tiny";
  check_run_files(run, "full disk");
  const auto status = runs::RunReader::open(run).status();
  EXPECT_EQ(status.state, runs::RunState::failed) << status.message;
  EXPECT_NE(status.message.find("No space left on device"), std::string::npos) << status.message;
  fs::remove_all(dir);
}

// In a child: a mount namespace with a tmpfs at `mnt` (root, or a user namespace otherwise).
bool private_tmpfs(const fs::path& mnt, const char* size) {
  const uid_t uid = ::getuid();
  const gid_t gid = ::getgid();
  if (::unshare(CLONE_NEWNS) != 0) {
    if (::unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) return false;
    std::ofstream("/proc/self/setgroups") << "deny";
    std::ofstream("/proc/self/uid_map") << "0 " << uid << " 1";
    std::ofstream("/proc/self/gid_map") << "0 " << gid << " 1";
  }
  if (::mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return false;
  return ::mount("tmpfs", mnt.c_str(), "tmpfs", 0, (std::string("size=") + size).c_str()) == 0;
}

TEST(Faults, AStatusIsStillWrittenWhenNotOneBlockIsLeft) {
  const auto dir = temp_dir("no-block-left");
  fs::create_directories(dir / "mnt");
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (!private_tmpfs(dir / "mnt", "64k")) ::_exit(77);
    try {
      auto w = runs::RunWriter::create(dir / "mnt", "full", json::object());
      w.set_status(runs::RunState::running, "training", 5);
      // Fill every block that is left.
      const int fd = ::open((dir / "mnt" / "filler").c_str(), O_WRONLY | O_CREAT, 0644);
      const std::string block(4096, 'f');
      while (::write(fd, block.data(), block.size()) > 0) {
      }
      ::close(fd);
      // The atomic write has no block for its temporary: the status is rewritten in place.
      w.set_status(runs::RunState::failed, "No space left on device", 5);
      const auto st = runs::RunReader::open(w.dir()).status();
      ::_exit(st.state == runs::RunState::failed && st.message == "No space left on device" ? 0 : 1);
    } catch (const std::exception&) {
      ::_exit(2);
    }
  }
  int wstatus = 0;
  ::waitpid(child, &wstatus, 0);
  fs::remove_all(dir);
  ASSERT_TRUE(WIFEXITED(wstatus));
  if (WEXITSTATUS(wstatus) == 77) GTEST_SKIP() << "cannot mount a tmpfs here";
  EXPECT_EQ(WEXITSTATUS(wstatus), 0) << "1: the status did not say failed; 2: writing it threw";
}

}  // namespace
