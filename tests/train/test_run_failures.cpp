// Every way a run can end leaves its status.json saying so (issue 10, classes 3 and 6): corpus
// problems are found before the run directory exists; anything thrown once it exists (a failing
// write, an allocation failure, a corrupt or missing checkpoint on resume) is written as "failed"
// with the reason; a run another writer holds is refused untouched.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <new>
#include <string>

#include "core/common/input_error.hpp"
#include "core/runs/run_dir.hpp"
#include "core/train/checkpoint.hpp"
#include "core/train/trainer.hpp"
#include "tests/train/tiny_run.hpp"

namespace {

using namespace proteus;
namespace fs = std::filesystem;

std::string read(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

bool holds_a_run(const fs::path& runs_dir) { return fs::exists(runs_dir) && !runs::list_runs(runs_dir).empty(); }

TEST(RunFailures, CorpusProblemsAreFoundBeforeTheRunDirectory) {
  const auto dir = test_support::fresh_dir("corpus");
  fs::create_directories(dir / "empty-folder");
  fs::create_directories(dir / "no-txt");
  std::ofstream(dir / "no-txt" / "README.md") << "not a document";
  fs::create_directories(dir / "blank");
  std::ofstream(dir / "blank" / "a.txt") << "  \n\n ";
  std::ofstream(dir / "blank" / "b.txt") << "";
  std::ofstream(dir / "empty.txt") << "";
  fs::create_directories(dir / "short");
  std::ofstream(dir / "short" / "a.txt") << "ten bytes.";
  std::ofstream(dir / "short" / "b.txt") << "ten bytes!";
  for (const char* corpus : {"empty-folder", "no-txt", "blank", "empty.txt", "short"}) {
    auto cfg = test_support::tiny_run(dir / "runs");
    cfg.data.text.path = (dir / corpus).string();
    try {
      train::train_new_run(cfg);
      ADD_FAILURE() << corpus << ": trained";
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), "data.text.path") << corpus << ": " << e.what();
    }
    EXPECT_FALSE(holds_a_run(dir / "runs")) << corpus << ": a run directory was written for a refused corpus";
  }
}

TEST(RunFailures, AnythingThrownAfterTheDirectoryExistsIsWrittenAsFailed) {
  const auto dir = test_support::fresh_dir("thrown");
  const auto cfg = test_support::tiny_run(dir);
  train::TrainHooks hooks;
  hooks.on_step = [](const train::StepMetrics& m) {
    if (m.step == 3) throw std::runtime_error("a write failed: No space left on device");
  };
  std::string run_dir;
  hooks.on_run_dir = [&](const std::string& d) { run_dir = d; };
  EXPECT_THROW(train::train_new_run(cfg, hooks), std::runtime_error);
  ASSERT_FALSE(run_dir.empty());
  const auto reader = runs::RunReader::open(run_dir);
  const auto status = reader.status();
  EXPECT_EQ(status.state, runs::RunState::failed);
  EXPECT_EQ(status.message, "a write failed: No space left on device");
  EXPECT_EQ(status.step, 3) << "the step of the last record";
  EXPECT_FALSE(reader.writer_active()) << "the lock goes with the writer";
}

TEST(RunFailures, AnAllocationFailureIsSaidPlainly) {
  const auto dir = test_support::fresh_dir("bad-alloc");
  const auto cfg = test_support::tiny_run(dir);
  train::TrainHooks hooks;
  hooks.on_step = [](const train::StepMetrics&) { throw std::bad_alloc(); };
  std::string run_dir;
  hooks.on_run_dir = [&](const std::string& d) { run_dir = d; };
  EXPECT_THROW(train::train_new_run(cfg, hooks), std::bad_alloc);
  const auto status = runs::RunReader::open(run_dir).status();
  EXPECT_EQ(status.state, runs::RunState::failed);
  EXPECT_EQ(status.message.rfind("out of memory (std::bad_alloc)", 0), 0u) << status.message;
}

TEST(RunFailures, ARealAllocationFailureUnderAMemoryLimit) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer reserves more address space than any limit this test sets";
#else
  const auto dir = test_support::fresh_dir("rlimit");
  auto cfg = test_support::tiny_run(dir);
  cfg.threads = 1;
  cfg.model.vocab = 262144;  // 262144 x 2048 floats: 2 GiB of embedding, within every bound
  cfg.model.d_model = 2048;
  cfg.model.mixer.d_head = 32;
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The address space this process has now, plus 1 GiB: the model's 2 GiB cannot fit.
    std::ifstream statm("/proc/self/statm");
    size_t pages = 0;
    statm >> pages;
    const rlim_t limit = pages * static_cast<rlim_t>(::sysconf(_SC_PAGESIZE)) + (rlim_t{1} << 30);
    const rlimit rl{limit, limit};
    if (::setrlimit(RLIMIT_AS, &rl) != 0) ::_exit(3);
    try {
      train::train_new_run(cfg);
    } catch (const std::bad_alloc&) {
      ::_exit(0);
    } catch (...) {
      ::_exit(2);
    }
    ::_exit(1);
  }
  int wstatus = 0;
  ::waitpid(child, &wstatus, 0);
  ASSERT_TRUE(WIFEXITED(wstatus));
  ASSERT_EQ(WEXITSTATUS(wstatus), 0) << "1: trained anyway; 2: another exception; 3: no limit";
  const auto names = runs::list_runs(dir);
  ASSERT_EQ(names.size(), 1u);
  const auto status = runs::RunReader::open(dir / names[0]).status();
  EXPECT_EQ(status.state, runs::RunState::failed);
  EXPECT_EQ(status.message.rfind("out of memory", 0), 0u) << status.message;
#endif
}

// A run cancelled at step 2, for the resume tests.
std::string cancelled_run(const fs::path& dir) {
  const auto cfg = test_support::tiny_run(dir);
  int seen = 0;
  train::TrainHooks hooks;
  hooks.on_step = [&](const train::StepMetrics&) { ++seen; };
  hooks.should_stop = [&] { return seen >= 2; };
  const auto cut = train::train_new_run(cfg, hooks);
  EXPECT_EQ(cut.state, runs::RunState::cancelled);
  return cut.run_dir;
}

TEST(RunFailures, ACorruptCheckpointOnResumeIsWrittenAsFailed) {
  const auto run = cancelled_run(test_support::fresh_dir("corrupt"));
  const fs::path ckpt = fs::path(run) / train::kCheckpointFile;
  fs::resize_file(ckpt, fs::file_size(ckpt) / 2);
  EXPECT_THROW(train::resume_run(run), InputError);
  const auto status = runs::RunReader::open(run).status();
  EXPECT_EQ(status.state, runs::RunState::failed) << "it said running after the resume had died";
  EXPECT_NE(status.message.find(train::kCheckpointFile), std::string::npos) << status.message;
}

TEST(RunFailures, AMissingCheckpointOnResumeIsWrittenAsFailed) {
  const auto run = cancelled_run(test_support::fresh_dir("missing-ckpt"));
  fs::remove(fs::path(run) / train::kCheckpointFile);
  EXPECT_THROW(train::resume_run(run), InputError);
  const auto status = runs::RunReader::open(run).status();
  EXPECT_EQ(status.state, runs::RunState::failed);
  EXPECT_NE(status.message.find("has no checkpoint.safetensors"), std::string::npos) << status.message;
}

TEST(RunFailures, ARunAnotherWriterHoldsIsRefusedUntouched) {
  const auto run = cancelled_run(test_support::fresh_dir("held"));
  const std::string status_before = read(fs::path(run) / runs::kStatusFile);
  const std::string metrics_before = read(fs::path(run) / runs::kMetricsFile);
  {
    auto other = runs::RunWriter::reopen(run);  // another process, or this window's own job
    try {
      train::resume_run(run);
      FAIL() << "resumed a run another writer holds";
    } catch (const InputError& e) {
      EXPECT_NE(e.reason().find("another writer holds this run"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(read(fs::path(run) / runs::kStatusFile), status_before);
  EXPECT_EQ(read(fs::path(run) / runs::kMetricsFile), metrics_before);
  const auto resumed = train::resume_run(run);  // and once it is free, it resumes
  EXPECT_EQ(resumed.state, runs::RunState::finished);
}

}  // namespace
