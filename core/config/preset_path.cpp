#include "core/config/preset_path.hpp"

namespace proteus::config {

std::filesystem::path find_preset(const std::filesystem::path& given, const std::filesystem::path& root) {
  std::error_code ec;
  if (given.empty() || std::filesystem::exists(given, ec) || !given.is_relative()) return given;
  for (const auto& shipped : {root / given, root / "experiments" / given})
    if (std::filesystem::is_regular_file(shipped, ec)) return shipped;
  return given;
}

}  // namespace proteus::config
