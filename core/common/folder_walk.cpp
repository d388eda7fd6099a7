#include "core/common/folder_walk.hpp"

#include <algorithm>
#include <functional>

namespace proteus::common {
namespace {

namespace fs = std::filesystem;

void report(std::vector<std::string>* unreadable, const fs::path& path, const std::error_code& ec) {
  if (unreadable) unreadable->push_back(unreadable_note(path, ec));
}

// Calls `visit` for each entry of `dir` (hidden names only with `hidden_too`); a missing `dir` is empty.
void for_each_entry(const fs::path& dir, std::vector<std::string>* unreadable,
                    const std::function<void(const fs::directory_entry&)>& visit, bool hidden_too = false) {
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) {
    if (ec != std::errc::no_such_file_or_directory) report(unreadable, dir, ec);
    return;
  }
  for (const fs::directory_iterator end; it != end;) {
    const std::string name = it->path().filename().string();
    if (!name.empty() && (hidden_too || name.front() != '.')) visit(*it);
    if (it.increment(ec); ec) {
      report(unreadable, dir, ec);  // the listing stopped midway: what was read stands
      return;
    }
  }
}

}  // namespace

std::string unreadable_note(const fs::path& path, const std::error_code& ec) {
  return path.string() + ": cannot read it (" + ec.message() + "); skipped";
}

std::vector<fs::path> list_subfolders(const fs::path& dir, std::vector<std::string>* unreadable) {
  std::vector<fs::path> out;
  for_each_entry(dir, unreadable, [&](const fs::directory_entry& e) {
    std::error_code ec;
    const bool folder = e.is_directory(ec);
    if (ec && ec != std::errc::no_such_file_or_directory) report(unreadable, e.path(), ec);
    if (folder && !ec) out.push_back(e.path());
  });
  std::sort(out.begin(), out.end());
  return out;
}

bool holds_regular_file(const fs::path& dir, const std::string& name, std::vector<std::string>* unreadable) {
  std::error_code ec;
  const auto st = fs::status(dir / name, ec);
  if (ec && ec != std::errc::no_such_file_or_directory) report(unreadable, dir / name, ec);
  return !ec && fs::is_regular_file(st);
}

std::vector<fs::path> list_regular_files(const fs::path& dir, std::vector<std::string>* unreadable, bool hidden_too) {
  std::vector<fs::path> out;
  const auto visit = [&](const fs::directory_entry& e) {
    std::error_code ec;
    const auto st = e.symlink_status(ec);
    if (ec && ec != std::errc::no_such_file_or_directory) report(unreadable, e.path(), ec);
    if (!ec && fs::is_regular_file(st)) out.push_back(e.path());
  };
  for_each_entry(dir, unreadable, visit, hidden_too);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace proteus::common
