// JobReaper (core/engine/job.hpp): what is given up is destroyed on the reaper's thread, so the
// thread giving up a job (the window's render loop) never waits for it to stop; the reaper's own
// destructor waits for everything it holds.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "core/engine/job.hpp"

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using proteus::engine::Handle;
using proteus::engine::JobContext;
using proteus::engine::JobReaper;

// A job that takes `stop_time` to stop once cancelled (a run finishing its step and checkpointing).
Handle<int> slow_to_stop(std::chrono::milliseconds stop_time, std::atomic<bool>& stopped) {
  return Handle<int>::start([stop_time, &stopped](JobContext<int>& ctx) {
    while (!ctx.cancelled()) std::this_thread::sleep_for(1ms);
    std::this_thread::sleep_for(stop_time);
    stopped = true;
  });
}

TEST(JobReaper, RetiringAJobReturnsAtOnceAndTheReaperJoinsIt) {
  std::atomic<bool> stopped{false};
  JobReaper reaper;
  auto h = slow_to_stop(400ms, stopped);
  h.cancel();
  const auto t0 = Clock::now();
  reaper.retire(std::move(h));
  EXPECT_LT(Clock::now() - t0, 200ms) << "retire waited for the job";  // it stops in 400 ms; 200 allows a loaded CI machine
  EXPECT_FALSE(h.valid());
  EXPECT_FALSE(stopped.load());
  EXPECT_EQ(reaper.pending(), 1u);
  const auto deadline = Clock::now() + 10s;
  while (reaper.pending() > 0 && Clock::now() < deadline) std::this_thread::sleep_for(5ms);
  EXPECT_EQ(reaper.pending(), 0u);
  EXPECT_TRUE(stopped.load()) << "joined before the job returned";
}

TEST(JobReaper, ItsDestructorWaitsForEveryRetiredJob) {
  std::atomic<bool> a{false}, b{false};
  {
    JobReaper reaper;
    auto first = slow_to_stop(100ms, a);
    auto second = slow_to_stop(100ms, b);
    first.cancel();
    second.cancel();
    reaper.retire(std::move(first));
    reaper.retire(std::move(second));
  }
  EXPECT_TRUE(a.load());
  EXPECT_TRUE(b.load());
}

}  // namespace
