// Where the shipped presets (experiments/), corpus (assets/corpus) and documentation are found at
// run time, and whether this program runs installed or from a build folder.
#pragma once
#include <filesystem>

namespace proteus::common {

// <prefix>/share/proteus-lab when this program runs installed as <prefix>/bin/<program> (found from
// /proc/self/exe, so a package unpacked anywhere works), else the source tree it was built from.
std::filesystem::path data_root();

// True when data_root() is the installed share/proteus-lab, not the source tree.
bool runs_installed();

// The documentation pages (docs/*.md): <prefix>/share/doc/proteus-lab/docs installed (README.md
// beside it, as in the checkout), else the source tree's docs/.
std::filesystem::path docs_root();

}  // namespace proteus::common
