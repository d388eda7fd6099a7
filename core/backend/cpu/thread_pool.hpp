// A small pool of worker threads for the CPU backend's loops. Workers sleep on a condition
// variable between loops instead of spinning (as OpenMP's barriers do), so a busy second core
// (the window's render thread, a compiler) slows training gracefully instead of collapsing it.
// Loops are split into the same contiguous ranges whatever the timing, and every index runs
// exactly once, so results do not depend on scheduling.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace proteus::backend {

class ThreadPool {
 public:
  // threads: total, the calling thread included (threads - 1 workers are started).
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int threads() const { return static_cast<int>(workers_.size()) + 1; }

  // Runs body(i) for every i in [0, count), split into threads() contiguous ranges; returns when
  // all are done and rethrows the first exception. Called from inside a loop, it runs serially.
  void run(int64_t count, const std::function<void(int64_t)>& body);

 private:
  void work(int index);
  void run_range(int index, int64_t count, const std::function<void(int64_t)>& body);

  std::vector<std::thread> workers_;
  std::mutex run_mu_;  // one loop at a time per pool
  std::mutex mu_;
  std::condition_variable wake_, done_;
  const std::function<void(int64_t)>* body_ = nullptr;
  int64_t count_ = 0;
  uint64_t generation_ = 0;
  int pending_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
};

}  // namespace proteus::backend
