// Atomic whole-file writes over POSIX: write a temporary in the same directory (rename is atomic
// only within one file system), fsync it, rename it over the target, fsync the directory.
#include "core/runs/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "core/memory/input_error.hpp"

namespace proteus::runs {
namespace {

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& what, int err) {
  throw std::runtime_error(path.generic_string() + ": " + what + ": " + std::strerror(err));
}

// Closes the descriptor and removes the temporary unless the rename happened.
struct Temporary {
  std::filesystem::path path;
  int fd = -1;
  bool renamed = false;
  ~Temporary() {
    if (fd >= 0) ::close(fd);
    if (!renamed) ::unlink(path.c_str());
  }
};

}  // namespace

bool is_temporary_name(const std::string& file_name) {
  return file_name.size() > 1 && file_name.front() == '.' && file_name.find(".tmp-") != std::string::npos;
}

void write_file_atomically(const std::filesystem::path& path, std::string_view bytes) {
  // A name unique per process and call, so two writers of one file never share a temporary.
  static std::atomic<uint64_t> counter{0};
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  Temporary tmp;
  std::string tmp_name = ".";
  tmp_name += path.filename().string();
  tmp_name += ".tmp-";
  tmp_name += std::to_string(::getpid());
  tmp_name += '-';
  tmp_name += std::to_string(counter.fetch_add(1));
  tmp.path = dir / tmp_name;
  tmp.fd = ::open(tmp.path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (tmp.fd < 0) fail(path, "cannot write", errno);
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(tmp.fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(path, "cannot write", errno);
    }
    done += static_cast<size_t>(n);
  }
  // On disk before the rename: otherwise a power cut can leave the new name with no data.
  if (::fsync(tmp.fd) != 0) fail(path, "cannot flush", errno);
  if (::close(tmp.fd) != 0) {
    tmp.fd = -1;
    fail(path, "cannot write", errno);
  }
  tmp.fd = -1;
  if (::rename(tmp.path.c_str(), path.c_str()) != 0) fail(path, "cannot replace", errno);
  tmp.renamed = true;
  // The rename itself lives in the directory; flushing it is best effort (some file systems refuse).
  if (const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

std::string read_whole_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path.generic_string(), "cannot open");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw InputError(path.generic_string(), "cannot read");
  return text;
}

}  // namespace proteus::runs
