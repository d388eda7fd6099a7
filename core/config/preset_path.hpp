// Where a preset named on the command line is: an installed program runs from any folder, so
// `proteus train experiments/quickstart-cpu.json` (or `paper/regime-comba-cpu.json`) must find the
// shipped presets as well as a file of the user's own.
#pragma once
#include <filesystem>

namespace proteus::config {

// `given` when it exists; else, for a relative path, the first that exists of root / given (a path
// from the checkout, `experiments/quickstart-cpu.json`) and root / "experiments" / given (one inside
// it, `paper/regime-comba-cpu.json`); else `given`, which the loader then names as missing. A file of
// the user's own always wins over a shipped one of the same name. root: common::data_root().
std::filesystem::path find_preset(const std::filesystem::path& given, const std::filesystem::path& root);

}  // namespace proteus::config
