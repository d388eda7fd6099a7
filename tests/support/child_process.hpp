// For tests that signal the `proteus` command while it works: start it as a child process (its
// output into a file), signal it, and wait for its exit status.
#pragma once
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/run_command.hpp"

namespace proteus::test_support {

class ChildProcess {
 public:
  // Runs PROTEUS_BIN with `args`, stdout and stderr appended to `log`.
  ChildProcess(const std::vector<std::string>& args, const std::string& log) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    pid_ = start_program(proteus_argv(args), {}, fd, fd);
    if (fd >= 0) ::close(fd);
  }
  ~ChildProcess() {
    if (pid_ > 0 && !waited_) {
      ::kill(pid_, SIGKILL);
      wait();
    }
  }
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  void signal(int sig) const { ::kill(pid_, sig); }

  // The raw wait status (WIFEXITED / WIFSIGNALED).
  int wait() {
    if (!waited_) {
      status_ = wait_for(pid_);
      waited_ = true;
    }
    return status_;
  }

  // True once the child has ended (without waiting for it).
  bool ended() {
    if (waited_) return true;
    if (::waitpid(pid_, &status_, WNOHANG) == pid_) waited_ = true;
    return waited_;
  }

 private:
  pid_t pid_ = -1;
  int status_ = 0;
  bool waited_ = false;
};

// Polls `done` every 5 ms until it holds or `timeout` passes; returns whether it held.
template <class F>
bool wait_until(F&& done, std::chrono::milliseconds timeout) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  while (!done()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

}  // namespace proteus::test_support
