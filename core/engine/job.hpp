// A job on a worker thread, watched without waiting (ARCHITECTURE seam 3):
//   start(work) -> Handle;  handle.latest() -> the last published immutable snapshot;
//   handle.cancel(), pause(), resume(), progress().
// The worker publishes by swapping in a new shared_ptr<const S> under a mutex held only for the
// swap, so a reader (the GUI's render loop, the CLI's progress line) never waits on the work.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace proteus::engine {

struct Progress {
  double fraction = 0;   // of the whole job, in [0, 1]
  std::string phase;     // "training baseline", "eval: niah"
  double eta_s = -1;     // seconds left; -1 = unknown
};

// What the work sees: publish snapshots and progress, and poll for cancel and pause.
template <class S>
class JobContext {
 public:
  void publish(std::shared_ptr<const S> s) {
    std::lock_guard<std::mutex> lock(mu_);
    latest_ = std::move(s);
  }
  void set_progress(Progress p) {
    std::lock_guard<std::mutex> lock(mu_);
    progress_ = std::move(p);
  }
  bool cancelled() const { return cancel_.load(); }
  // Blocks while paused (the worker's own thread only); returns false if cancelled meanwhile.
  bool wait_if_paused() {
    std::unique_lock<std::mutex> lock(pause_mu_);
    pause_cv_.wait(lock, [&] { return !paused_ || cancel_.load(); });
    return !cancel_.load();
  }

 private:
  template <class>
  friend class Handle;
  mutable std::mutex mu_;
  std::shared_ptr<const S> latest_;
  Progress progress_;
  std::atomic<bool> cancel_{false};
  std::mutex pause_mu_;
  std::condition_variable pause_cv_;
  bool paused_ = false;
};

// Owns what is being given up whose destruction waits (a Handle: cancel, then join; an explorer),
// and destroys it on a thread of its own, so the thread that gives it up (the window's render loop)
// never waits for a cancelled job to checkpoint. Its destructor waits for all of them.
class JobReaper {
 public:
  JobReaper() = default;
  JobReaper(const JobReaper&) = delete;
  JobReaper& operator=(const JobReaper&) = delete;
  ~JobReaper() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
    if (worker_.joinable()) worker_.join();
  }

  // Takes `owner` (moved) and destroys it on the reaper's thread; returns at once.
  template <class T>
  void retire(T&& owner) {
    std::shared_ptr<void> held = std::make_shared<std::decay_t<T>>(std::move(owner));
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(held));
    if (!worker_.joinable()) worker_ = std::thread([this] { loop(); });
    cv_.notify_all();
  }
  // How many retired things are not yet destroyed (a cancelled job still stopping counts).
  size_t pending() const {
    std::lock_guard<std::mutex> lock(mu_);
    return queue_.size() + destroying_;
  }

 private:
  void loop() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and everything is destroyed
      std::shared_ptr<void> next = std::move(queue_.front());
      queue_.pop_front();
      destroying_ = 1;
      lock.unlock();
      next.reset();  // the wait happens here, off the retiring thread
      lock.lock();
      destroying_ = 0;
    }
  }

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<void>> queue_;
  size_t destroying_ = 0;
  bool stopping_ = false;
  std::thread worker_;
};

template <class S>
class Handle {
 public:
  Handle() = default;
  Handle(Handle&&) = default;
  // Joins the job this handle held (cancel it first, or give it to a JobReaper to not wait).
  Handle& operator=(Handle&& other) {
    join();
    ctx_ = std::move(other.ctx_);
    state_ = std::move(other.state_);
    thread_ = std::move(other.thread_);
    return *this;
  }
  ~Handle() {
    cancel();
    join();
  }

  std::shared_ptr<const S> latest() const {
    if (!ctx_) return nullptr;
    std::lock_guard<std::mutex> lock(ctx_->mu_);
    return ctx_->latest_;
  }
  Progress progress() const {
    if (!ctx_) return {};
    std::lock_guard<std::mutex> lock(ctx_->mu_);
    return ctx_->progress_;
  }
  void cancel() {
    if (!ctx_) return;
    ctx_->cancel_ = true;
    std::lock_guard<std::mutex> lock(ctx_->pause_mu_);
    ctx_->pause_cv_.notify_all();
  }
  void pause() { set_paused(true); }
  void resume() { set_paused(false); }
  bool paused() const {
    if (!ctx_) return false;
    std::lock_guard<std::mutex> lock(ctx_->pause_mu_);
    return ctx_->paused_;
  }
  bool running() const { return state_ && !state_->done.load(); }
  bool valid() const { return ctx_ != nullptr; }
  // Blocks until the work returns; rethrows what it threw.
  void wait() {
    join();
    if (state_ && state_->error) std::rethrow_exception(state_->error);
  }
  // The work's exception message, or "" (only meaningful once !running()).
  std::string error_message() const {
    if (!state_ || !state_->error) return "";
    try {
      std::rethrow_exception(state_->error);
    } catch (const std::exception& e) {
      return e.what();
    } catch (...) {
      return "unknown error";
    }
  }

  template <class F>
  static Handle start(F work) {
    Handle h;
    h.ctx_ = std::make_shared<JobContext<S>>();
    h.state_ = std::make_shared<State>();
    auto ctx = h.ctx_;
    auto state = h.state_;
    h.thread_ = std::thread([ctx, state, work = std::move(work)]() mutable {
      try {
        work(*ctx);
      } catch (...) {
        state->error = std::current_exception();
      }
      state->done = true;
    });
    return h;
  }

 private:
  struct State {
    std::atomic<bool> done{false};
    std::exception_ptr error;
  };
  void set_paused(bool p) {
    if (!ctx_) return;
    std::lock_guard<std::mutex> lock(ctx_->pause_mu_);
    ctx_->paused_ = p;
    ctx_->pause_cv_.notify_all();
  }
  void join() {
    if (thread_.joinable()) thread_.join();
  }

  std::shared_ptr<JobContext<S>> ctx_;
  std::shared_ptr<State> state_;
  std::thread thread_;
};

}  // namespace proteus::engine
