#include "core/common/data_root.hpp"

namespace proteus::common {

namespace {

struct Root {
  std::filesystem::path path;
  bool installed = false;
};

const Root& root() {
  // An installed program has no checkout: its data lies beside bin/, wherever the prefix is.
  static const Root found = [] {
    std::error_code ec;
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) {
      const auto installed = (exe.parent_path() / PROTEUS_INSTALLED_DATA_DIR).lexically_normal();
      if (std::filesystem::is_directory(installed / "experiments", ec)) return Root{installed, true};
    }
    return Root{std::filesystem::path(PROTEUS_SOURCE_DIR), false};
  }();
  return found;
}

}  // namespace

std::filesystem::path data_root() { return root().path; }

bool runs_installed() { return root().installed; }

std::filesystem::path docs_root() {
  // share/proteus-lab -> share/doc/proteus-lab/docs: the Debian place, named after the package.
  if (runs_installed()) return data_root().parent_path() / "doc" / "proteus-lab" / "docs";
  return data_root() / "docs";
}

}  // namespace proteus::common
