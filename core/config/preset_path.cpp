#include "core/config/preset_path.hpp"

#include <cstdlib>
#include <stdexcept>

namespace proteus::config {

namespace fs = std::filesystem;

namespace {

// `p` (absolute, normalised) lies inside `folder`.
bool inside(const fs::path& p, const fs::path& folder) {
  const auto rel = p.lexically_relative(folder);
  return !rel.empty() && *rel.begin() != "..";
}

// An absolute, normalised form of `p` that follows symlinks where they exist (/usr/share/... and a
// link to it are one place).
fs::path resolved(const fs::path& p) {
  std::error_code ec;
  auto r = fs::weakly_canonical(fs::absolute(p, ec), ec);
  return ec ? fs::absolute(p, ec).lexically_normal() : r;
}

}  // namespace

fs::path user_experiments_dir() {
  const char* data_home = std::getenv("XDG_DATA_HOME");
  fs::path base;
  if (data_home && fs::path(data_home).is_absolute()) base = data_home;
  else if (const char* home = std::getenv("HOME"); home && *home) base = fs::path(home) / ".local" / "share";
  else return {};
  return base / "proteus-lab" / "experiments";
}

fs::path preset_name(const fs::path& given) {
  if (given.is_absolute() || given.empty() || *given.begin() != "experiments") return given;
  fs::path rest;
  for (auto it = std::next(given.begin()); it != given.end(); ++it) rest /= *it;
  return rest.empty() ? given : rest;
}

fs::path find_preset(const fs::path& given, const fs::path& root, const fs::path& user) {
  std::error_code ec;
  if (given.empty() || fs::exists(given, ec) || !given.is_relative()) return given;
  if (!user.empty() && fs::is_regular_file(user / preset_name(given), ec)) return user / preset_name(given);
  for (const auto& shipped : {root / given, root / "experiments" / given})
    if (fs::is_regular_file(shipped, ec)) return shipped;
  return given;
}

fs::path save_path(const fs::path& field, const fs::path& root, bool installed, const fs::path& user) {
  std::error_code ec;
  if (field.empty()) return user.empty() ? fs::path("my-experiment.json") : user / "my-experiment.json";
  if (field.is_relative() && !fs::exists(field, ec)) return user.empty() ? field : user / preset_name(field);
  const fs::path target = resolved(field);
  const fs::path shipped = resolved(root);
  const bool system = inside(target, "/usr/share") || (installed && inside(target, shipped));
  if (!system) return field;
  if (user.empty())
    throw std::runtime_error(field.string() + " is a shipped preset, and there is no home folder to save a copy in");
  if (inside(target, shipped / "experiments")) return user / target.lexically_relative(shipped / "experiments");
  return user / target.filename();
}

}  // namespace proteus::config
