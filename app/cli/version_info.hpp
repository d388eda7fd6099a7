// What app/cli/version_info.cmake writes into the build folder at every build (version_info.cpp).
#pragma once

namespace proteus::cli::build_info {

extern const char* const version;  // the CMake project version: "0.1.0"
extern const char* const commit;   // "6befe94c1a2b", "6befe94c1a2b, modified", or "" without git

}  // namespace proteus::cli::build_info
