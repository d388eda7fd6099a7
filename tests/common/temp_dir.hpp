// A fresh folder per test, removed at scope exit, for the common room's file tests.
#pragma once
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

namespace proteus::common::testing {

class TempDir {
 public:
  TempDir() {
    std::random_device unique_name;  // only the folder name; no test data depends on it
    path_ = std::filesystem::temp_directory_path() /
            ("proteus-common-" + std::to_string(::getpid()) + "-" + std::to_string(unique_name()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }
  std::filesystem::path write(const std::string& name, const std::string& text) const {
    std::ofstream(path_ / name, std::ios::binary) << text;
    return path_ / name;
  }
  static std::string read(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }

 private:
  std::filesystem::path path_;
};

}  // namespace proteus::common::testing
