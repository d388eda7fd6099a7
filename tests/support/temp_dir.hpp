// A fresh folder per test, removed at scope exit, with small helpers to write and read files in it.
// It is made in the temporary folder ($TMPDIR, else /tmp); TempDir::plain() makes one in /tmp
// whatever $TMPDIR says, for a feature that refuses some paths by design (`--slurm` refuses a
// runs folder whose path an #SBATCH line cannot hold: a space, a quote, '%').
#pragma once
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <random>
#include <string>
#include <vector>

namespace proteus::test_support {

class TempDir {
 public:
  TempDir() : TempDir(std::filesystem::temp_directory_path()) {}
  explicit TempDir(const std::filesystem::path& parent) {
    std::random_device unique_name;  // only the folder name; no test data depends on it
    path_ = parent / ("proteus-test-" + std::to_string(::getpid()) + "-" + std::to_string(unique_name()));
    std::filesystem::create_directories(path_);
  }
  static TempDir plain() { return TempDir(std::filesystem::path("/tmp")); }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

  // Writes `text` to `name` (its folders made first); the file's path.
  std::string write(const std::string& name, const std::string& text) const {
    const auto file = path_ / name;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << text;
    return file.string();
  }

  static std::string read(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }

 private:
  std::filesystem::path path_;
};

// The folders fresh_dir made, removed when the test program that made them exits: a suite run leaves
// nothing in /tmp (leftovers filled a shared disk once). A forked child exiting leaves them alone.
class FreshDirs {
 public:
  static FreshDirs& instance() {
    static FreshDirs dirs;
    return dirs;
  }
  void add(const std::filesystem::path& dir) {
    std::lock_guard<std::mutex> lock(mutex_);
    dirs_.push_back(dir);
  }
  ~FreshDirs() {
    if (::getpid() != owner_) return;
    std::error_code ec;
    for (const auto& dir : dirs_) std::filesystem::remove_all(dir, ec);
  }

 private:
  FreshDirs() : owner_(::getpid()) {}
  pid_t owner_;
  std::mutex mutex_;
  std::vector<std::filesystem::path> dirs_;
};

// A fresh, empty folder of its own (the name and a random suffix: no two calls share one) that
// outlives the test and goes when the test program exits.
inline std::filesystem::path fresh_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("proteus-test-" + name + "-" + std::to_string(std::random_device{}()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  FreshDirs::instance().add(dir);
  return dir;
}

}  // namespace proteus::test_support
