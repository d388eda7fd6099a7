#include "app/cli/version.hpp"

#include "app/cli/version_info.hpp"

namespace proteus::cli {

std::string version_line(const std::string& program) {
  std::string line = program + " " + build_info::version;
  if (*build_info::commit) line += std::string(" (git ") + build_info::commit + ")";
  return line;
}

}  // namespace proteus::cli
