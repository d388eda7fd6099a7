#include "core/runs/staged_folder.hpp"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <system_error>

namespace proteus::runs {

namespace {

constexpr const char* kPartialMark = ".partial-";
// A staging folder is locked right after mkdir; one this old whose lock is free was left by a kill.
constexpr auto kStaleAfter = std::chrono::minutes(1);

std::atomic<unsigned> staging_counter{0};

// rename(2) that never replaces (RENAME_NOREPLACE) or swaps two folders (RENAME_EXCHANGE); errno set.
int rename_with(const std::filesystem::path& from, const std::filesystem::path& to, unsigned flags) {
  return ::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), flags);
}

void remove_stale_partials(const std::filesystem::path& parent) {
  std::error_code ec;
  const auto now = std::filesystem::file_time_type::clock::now();
  for (const auto& entry : std::filesystem::directory_iterator(parent, ec)) {
    const std::string name = entry.path().filename().string();
    if (!is_staging_name(name) || !entry.is_directory(ec)) continue;
    const auto written = std::filesystem::last_write_time(entry.path(), ec);
    if (ec || now - written < kStaleAfter || RunLock::held(entry.path())) continue;
    std::filesystem::remove_all(entry.path(), ec);  // best effort: another maker may be removing it too
  }
}

}  // namespace

bool is_staging_name(const std::string& name) {
  return !name.empty() && name.front() == '.' && name.find(kPartialMark) != std::string::npos;
}

StagedFolder::StagedFolder(const std::filesystem::path& parent, const std::string& name) : parent_(parent) {
  std::filesystem::create_directories(parent_);
  remove_stale_partials(parent_);
  for (;;) {
    path_ = parent_ / ("." + name + kPartialMark + std::to_string(::getpid()) + "-" +
                       std::to_string(staging_counter.fetch_add(1)));
    if (std::filesystem::create_directory(path_)) break;  // false: left by an earlier process of this pid
  }
  try {
    lock_ = RunLock::acquire(path_);
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
    throw;
  }
}

StagedFolder::~StagedFolder() {
  if (committed_) return;
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

bool StagedFolder::commit_as(const std::string& name) {
  const auto target = parent_ / name;
  if (rename_with(path_, target, RENAME_NOREPLACE) != 0) {
    if (errno == EEXIST || errno == ENOTEMPTY) return false;
    if (errno != EINVAL && errno != ENOSYS)
      throw std::filesystem::filesystem_error("cannot move the finished folder into place", path_, target,
                                              std::error_code(errno, std::generic_category()));
    // A file system without RENAME_NOREPLACE: check, then rename (a race here can only replace an empty folder).
    std::error_code ec;
    if (std::filesystem::exists(target, ec)) return false;
    std::filesystem::rename(path_, target);
  }
  path_ = target;
  committed_ = true;
  return true;
}

void StagedFolder::commit_replacing(const std::string& name) {
  if (commit_as(name)) return;
  const auto target = parent_ / name;
  if (rename_with(path_, target, RENAME_EXCHANGE) != 0)
    throw std::filesystem::filesystem_error("cannot move the finished folder into place", path_, target,
                                            std::error_code(errno, std::generic_category()));
  // path_ now names the old folder: the destructor's removal is what replaces it.
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
  path_ = target;
  committed_ = true;
}

}  // namespace proteus::runs
