// flock(2) on the run directory's descriptor (run_lock.hpp). flock locks belong to one open file
// description, so two writers in one process exclude each other just as two processes do.
#include "core/runs/run_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "core/common/input_error.hpp"

namespace proteus::runs {
namespace {

InputError busy(const std::filesystem::path& dir) {
  return InputError(dir.generic_string(), "another writer holds this run (a training or an evaluation, in this or "
                                          "another process): wait for it to end, or stop it first");
}

int open_dir(const std::filesystem::path& dir) {
  return ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

}  // namespace

RunLock RunLock::acquire(const std::filesystem::path& dir) {
  const int fd = open_dir(dir);
  if (fd < 0) throw std::runtime_error(dir.generic_string() + ": cannot open the run directory: " + std::strerror(errno));
  // A reader's probe (held()) takes a shared lock for an instant: a few tries ride over it.
  for (int attempt = 0; attempt < 20; ++attempt) {
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return RunLock(fd);
    if (errno != EWOULDBLOCK && errno != EINTR) {
      const int err = errno;
      ::close(fd);
      throw std::runtime_error(dir.generic_string() + ": cannot lock the run directory: " + std::strerror(err));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::close(fd);
  throw busy(dir);
}

void RunLock::check_free(const std::filesystem::path& dir) {
  if (held(dir)) throw busy(dir);
}

bool RunLock::held(const std::filesystem::path& dir) {
  const int fd = open_dir(dir);
  if (fd < 0) return false;
  int rc;
  do rc = ::flock(fd, LOCK_SH | LOCK_NB);
  while (rc != 0 && errno == EINTR);
  const bool busy = rc != 0 && errno == EWOULDBLOCK;
  ::close(fd);  // also releases the shared lock, if it was taken
  return busy;
}

RunLock& RunLock::operator=(RunLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

RunLock::~RunLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace proteus::runs
