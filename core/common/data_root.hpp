// Where the shipped presets (experiments/) and corpus (assets/corpus) are found at run time.
#pragma once
#include <filesystem>

namespace proteus::common {

// <prefix>/share/proteus-lab when this program runs installed as <prefix>/bin/<program> (found from
// /proc/self/exe, so a package unpacked anywhere works), else the source tree it was built from.
std::filesystem::path data_root();

}  // namespace proteus::common
