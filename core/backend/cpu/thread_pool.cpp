#include "core/backend/cpu/thread_pool.hpp"

#include <algorithm>

#include "core/backend/cpu/flush_subnormals.hpp"

namespace proteus::backend {
namespace {
thread_local bool inside_pool_loop = false;
}  // namespace

ThreadPool::ThreadPool(int threads) {
  for (int i = 1; i < std::max(1, threads); ++i) workers_.emplace_back([this, i] { work(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  for (auto& w : workers_) w.join();
}

void ThreadPool::run_range(int index, int64_t count, const std::function<void(int64_t)>& body) {
  const int64_t n = threads();
  const int64_t begin = count * index / n, end = count * (index + 1) / n;
  inside_pool_loop = true;
  try {
    for (int64_t i = begin; i < end; ++i) body(i);
  } catch (...) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!error_) error_ = std::current_exception();
  }
  inside_pool_loop = false;
}

void ThreadPool::run(int64_t count, const std::function<void(int64_t)>& body) {
  if (count <= 0) return;
  if (workers_.empty() || count == 1 || inside_pool_loop) {
    for (int64_t i = 0; i < count; ++i) body(i);
    return;
  }
  std::lock_guard<std::mutex> one_loop(run_mu_);
  {
    std::lock_guard<std::mutex> lock(mu_);
    body_ = &body;
    count_ = count;
    pending_ = static_cast<int>(workers_.size());
    error_ = nullptr;
    ++generation_;
  }
  wake_.notify_all();
  run_range(0, count, body);
  std::exception_ptr error;
  {
    std::unique_lock<std::mutex> lock(mu_);
    done_.wait(lock, [&] { return pending_ == 0; });
    body_ = nullptr;
    error = error_;
  }
  if (error) std::rethrow_exception(error);
}

void ThreadPool::work(int index) {
  const FlushSubnormals flush;  // a worker runs only the backend's loops, for its whole life
  uint64_t seen = 0;
  while (true) {
    const std::function<void(int64_t)>* body;
    int64_t count;
    {
      std::unique_lock<std::mutex> lock(mu_);
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      body = body_;
      count = count_;
    }
    run_range(index, count, *body);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (--pending_ == 0) done_.notify_one();
    }
  }
}

}  // namespace proteus::backend
