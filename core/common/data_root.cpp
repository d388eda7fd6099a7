#include "core/common/data_root.hpp"

namespace proteus::common {

std::filesystem::path data_root() {
  // An installed program has no checkout: its data lies beside bin/, wherever the prefix is.
  static const std::filesystem::path root = [] {
    std::error_code ec;
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) {
      const auto installed = (exe.parent_path() / PROTEUS_INSTALLED_DATA_DIR).lexically_normal();
      if (std::filesystem::is_directory(installed / "experiments", ec)) return installed;
    }
    return std::filesystem::path(PROTEUS_SOURCE_DIR);
  }();
  return root;
}

}  // namespace proteus::common
