// The lock a run directory's writer holds (flock on the directory itself): one writer per run, in
// this process or any other. The kernel drops it when the writer's process ends in any way (a
// crash, SIGKILL), so a stale lock never needs cleaning up, and "status says running but nobody
// holds the lock" is how a reader recognises a run whose writer died.
#pragma once
#include <filesystem>

namespace proteus::runs {

class RunLock {
 public:
  // Takes the exclusive lock of `dir`. Throws InputError(dir, "another writer ...") when a
  // training or an evaluation (of this process or another) holds it; std::runtime_error when the
  // directory cannot be opened.
  static RunLock acquire(const std::filesystem::path& dir);

  // True while a writer holds dir's lock. False for a directory that cannot be opened.
  static bool held(const std::filesystem::path& dir);

  // Throws acquire's InputError when a writer holds dir's lock: a refusal before work starts.
  static void check_free(const std::filesystem::path& dir);

  RunLock() = default;
  RunLock(RunLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  RunLock& operator=(RunLock&& other) noexcept;
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;
  ~RunLock();

 private:
  explicit RunLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace proteus::runs
