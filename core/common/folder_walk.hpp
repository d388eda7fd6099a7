// Walking a folder someone else fills (a runs folder, a job folder on shared storage) without
// ever throwing: a symlink loop, a folder without read permission or an entry that vanishes midway
// is named with its reason and skipped, and the walk goes on with the rest.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace proteus::common {

// "PATH: cannot read it (REASON); skipped": how a walk reports what it could not read.
std::string unreadable_note(const std::filesystem::path& path, const std::error_code& ec);

// The folders in `dir` (symlinks followed), hidden names (".x") left out, sorted. A `dir` that is
// missing gives none; one that cannot be read, and each entry that cannot be told, is reported in
// `unreadable` (when given) and skipped.
std::vector<std::filesystem::path> list_subfolders(const std::filesystem::path& dir,
                                                   std::vector<std::string>* unreadable = nullptr);

// True when dir/name is a regular file (symlinks followed); false when it is anything else or
// missing; an error other than "missing" (a loop, no permission) is reported and gives false.
bool holds_regular_file(const std::filesystem::path& dir, const std::string& name,
                        std::vector<std::string>* unreadable = nullptr);

// The regular files directly in `dir` (symlinks NOT followed: a link is not one of the folder's
// files), hidden ones only with `hidden_too`, sorted; what cannot be read is reported as above.
std::vector<std::filesystem::path> list_regular_files(const std::filesystem::path& dir,
                                                      std::vector<std::string>* unreadable = nullptr,
                                                      bool hidden_too = false);

}  // namespace proteus::common
