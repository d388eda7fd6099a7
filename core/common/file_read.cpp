// Bounded whole-file reads over POSIX (file_read.hpp): a regular file's size is known before a
// byte is read; anything else (a pipe, a device) is read until the limit is passed.
#include "core/common/file_read.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/common/input_error.hpp"

namespace proteus::common {
namespace {

// Closes the descriptor on every way out.
struct Descriptor {
  int fd = -1;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string format_bytes(size_t bytes) {
  if (bytes >= (size_t{1} << 30) && bytes % (size_t{1} << 30) == 0) return std::to_string(bytes >> 30) + " GiB";
  if (bytes >= (size_t{1} << 20) && bytes % (size_t{1} << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= (size_t{1} << 10) && bytes % (size_t{1} << 10) == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

std::string read_file(const std::filesystem::path& path, size_t max_bytes, const std::string& what) {
  const std::string shown = path.generic_string();
  const auto too_large = [&] {
    return InputError(shown, "is larger than the limit of " + format_bytes(max_bytes) + " for " + what);
  };
  Descriptor file;
  file.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (file.fd < 0) {
    if (errno == ENOENT) throw InputError(shown, "cannot open");
    throw InputError(shown, std::string("cannot open: ") + std::strerror(errno));
  }
  struct stat st {};
  if (::fstat(file.fd, &st) != 0) throw InputError(shown, std::string("cannot read: ") + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw InputError(shown, "is a directory, not a file");
  if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > max_bytes) throw too_large();

  std::string bytes;
  if (S_ISREG(st.st_mode)) bytes.reserve(static_cast<size_t>(st.st_size));
  char buffer[1 << 16];
  while (true) {
    const ssize_t n = ::read(file.fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw InputError(shown, std::string("cannot read: ") + std::strerror(errno));
    }
    if (n == 0) break;
    if (bytes.size() + static_cast<size_t>(n) > max_bytes) throw too_large();
    bytes.append(buffer, static_cast<size_t>(n));
  }
  return bytes;
}

}  // namespace proteus::common
