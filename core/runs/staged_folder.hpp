// A folder made whole or not at all (issue 21): its first files are written into a hidden sibling,
// `.NAME.partial-PID-N`, locked by this process (run_lock.hpp), which is renamed into place only
// once it is complete enough to say what it is (a run's config and status, a summary's every file).
// Whatever stops the maker before that (an exception: it is removed; a kill: it stays hidden, and
// the next StagedFolder made beside it removes it once its lock is free) leaves no folder under NAME.
#pragma once
#include <filesystem>
#include <string>

#include "core/runs/run_lock.hpp"

namespace proteus::runs {

class StagedFolder {
 public:
  // Makes `parent` if needed, removes stale partials there, and makes and locks a new staging folder
  // for NAME. Throws std::filesystem::filesystem_error when the parent cannot be written.
  StagedFolder(const std::filesystem::path& parent, const std::string& name);
  StagedFolder(StagedFolder&&) = delete;
  ~StagedFolder();  // removes the staging folder unless committed

  // Where the contents go: the staging folder until a commit, the final one after.
  const std::filesystem::path& path() const { return path_; }
  bool committed() const { return committed_; }

  // Renames the staging folder to `parent/name` unless something is already there: then false, and
  // nothing changed (try another name). The lock goes with the folder.
  bool commit_as(const std::string& name);
  // Renames the staging folder to `parent/name`, replacing a folder there (removed afterwards): for a
  // summary that is rewritten whole each time (a seed group's).
  void commit_replacing(const std::string& name);

  // The staging folder's lock, for a writer that keeps the folder locked once committed (a run).
  RunLock take_lock() { return std::move(lock_); }

 private:
  std::filesystem::path parent_;
  std::filesystem::path path_;
  RunLock lock_;
  bool committed_ = false;
};

// True for a name StagedFolder gives its staging folders (so listings can leave them out).
bool is_staging_name(const std::string& name);

}  // namespace proteus::runs
