// The programs' --version line (proteus and proteus-lab): the CMake project version, and the git
// commit of the checkout it was built from (app/cli/version_info.cmake writes both at build time;
// a source tree without .git, a release tarball, has no commit and says so by leaving it out).
#pragma once
#include <string>

namespace proteus::cli {

// "proteus 0.1.0 (git 6befe94c1a2b)", "... (git 6befe94c1a2b, modified)" with uncommitted changes,
// or "proteus 0.1.0" without git. The first word is `program`.
std::string version_line(const std::string& program);

}  // namespace proteus::cli
