// Atomic whole-file writes over POSIX: look at what the path holds (lstat: a link is not followed),
// write a temporary in the same directory (rename is atomic only within one file system), fsync it,
// rename it over the target, fsync the directory. Between the look and the rename another process
// could put something else at the path; the rename then replaces that entry, never what a link
// points to, so the worst case is the entry itself.
#include "core/common/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>


namespace proteus::common {
namespace {

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& what, int err) {
  throw WriteError(path.generic_string() + ": " + what + ": " + std::strerror(err), err);
}

// Closes the descriptor and removes the temporary unless the rename happened.
struct Temporary {
  std::filesystem::path path;
  int fd = -1;
  bool renamed = false;
  ~Temporary() {
    if (fd >= 0) ::close(fd);
    if (!renamed && !path.empty()) ::unlink(path.c_str());
  }
};

const char* kind_of(mode_t mode) {
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

[[noreturn]] void refuse(const std::filesystem::path& path, mode_t mode, const std::string& advice) {
  throw WriteError(path.generic_string() + ": is " + kind_of(mode) + ", not a regular file: refusing to replace it" +
                       advice,
                   0);
}

void write_all(int fd, std::string_view bytes, const std::filesystem::path& path) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(path, "cannot write", errno);
    }
    done += static_cast<size_t>(n);
  }
}

// The target as lstat sees it: false when nothing is there.
bool look(const std::filesystem::path& path, struct stat& st) {
  if (::lstat(path.c_str(), &st) == 0) return true;
  if (errno == ENOENT) return false;
  fail(path, "cannot write", errno);
}

// Fills a fresh temporary through `fill(fd)`, then renames it over `path`.
template <class Fill>
void replace_atomically(const std::filesystem::path& path, Fill&& fill) {
  // A name unique per process and call, so two writers of one file never share a temporary.
  static std::atomic<uint64_t> counter{0};
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  // The temporary's name holds the target's; a long one is cut so the temporary's stays legal.
  std::string tmp_name = ".";
  tmp_name.append(path.filename().string(), 0, 180);
  tmp_name += ".tmp-";
  tmp_name += std::to_string(::getpid());
  tmp_name += '-';
  tmp_name += std::to_string(counter.fetch_add(1));
  Temporary tmp;
  tmp.path = dir / tmp_name;
  tmp.fd = ::open(tmp.path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (tmp.fd < 0) {
    tmp.path.clear();  // not ours to unlink
    fail(path, "cannot write", errno);
  }
  fill(tmp.fd);
  // On disk before the rename: otherwise a power cut can leave the new name with no data.
  if (::fsync(tmp.fd) != 0) fail(path, "cannot flush", errno);
  const int closed = ::close(tmp.fd);
  tmp.fd = -1;
  if (closed != 0) fail(path, "cannot write", errno);
  if (::rename(tmp.path.c_str(), path.c_str()) != 0) fail(path, "cannot replace", errno);
  tmp.renamed = true;
  // The rename itself lives in the directory; flushing it is best effort (some file systems refuse).
  if (const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

// What stat (through links) finds at a user's output path, when it is a stream to write through.
bool is_stream(const std::filesystem::path& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode));
}

void check_user_output_at(const std::filesystem::path& path, bool& stream) {
  stream = false;
  struct stat st {};
  if (!look(path, st) || S_ISREG(st.st_mode)) return;
  if (is_stream(path)) {
    stream = true;
    return;
  }
  if (S_ISLNK(st.st_mode))
    refuse(path, st.st_mode, "; name the file it points to, or a device or pipe to write through");
  refuse(path, st.st_mode, "");
}

}  // namespace

bool WriteError::disk_full() const { return error_ == ENOSPC || error_ == EDQUOT; }

bool is_temporary_name(const std::string& file_name) {
  return file_name.size() > 1 && file_name.front() == '.' && file_name.find(".tmp-") != std::string::npos;
}

void write_file_atomically(const std::filesystem::path& path, std::string_view bytes) {
  struct stat st {};
  if (look(path, st) && !S_ISREG(st.st_mode)) refuse(path, st.st_mode, "");
  replace_atomically(path, [&](int fd) { write_all(fd, bytes, path); });
}

void copy_file_atomically(const std::filesystem::path& from, const std::filesystem::path& to) {
  struct stat st {};
  if (look(to, st) && !S_ISREG(st.st_mode)) refuse(to, st.st_mode, "");
  const int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (in < 0) fail(from, "cannot read", errno);
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{in};
  replace_atomically(to, [&](int out) {
    char buffer[1 << 16];
    while (true) {
      const ssize_t n = ::read(in, buffer, sizeof buffer);
      if (n < 0) {
        if (errno == EINTR) continue;
        fail(from, "cannot read", errno);
      }
      if (n == 0) return;
      write_all(out, std::string_view(buffer, static_cast<size_t>(n)), to);
    }
  });
}

void check_user_output(const std::filesystem::path& path) {
  bool stream = false;
  check_user_output_at(path, stream);
}

bool write_user_file(const std::filesystem::path& path, std::string_view bytes) {
  bool stream = false;
  check_user_output_at(path, stream);
  if (!stream) {
    replace_atomically(path, [&](int fd) { write_all(fd, bytes, path); });
    return false;
  }
  // A device or a pipe: written through, as `cat > /dev/stdout` would. No O_CREAT: it exists.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) fail(path, "cannot open for writing", errno);
  try {
    write_all(fd, bytes, path);
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::close(fd) != 0) fail(path, "cannot write", errno);
  return true;
}

void overwrite_in_place(const std::filesystem::path& path, std::string_view bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) fail(path, "cannot open for rewriting", errno);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw WriteError(path.generic_string() + ": is not a regular file: refusing to rewrite it", 0);
  }
  // Written over the old bytes, then cut to length: no moment with an empty file.
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::pwrite(fd, bytes.data() + done, bytes.size() - done, static_cast<off_t>(done));
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      fail(path, "cannot rewrite", err);
    }
    done += static_cast<size_t>(n);
  }
  const bool ok = ::ftruncate(fd, static_cast<off_t>(bytes.size())) == 0 && ::fsync(fd) == 0;
  const int err = errno;
  ::close(fd);
  if (!ok) fail(path, "cannot rewrite", err);
}

}  // namespace proteus::common
