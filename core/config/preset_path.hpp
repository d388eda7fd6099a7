// Where a preset named on the command line or in the window is: an installed program runs from any
// folder, so `proteus train experiments/quickstart-cpu.json` (or `paper/regime-comba-cpu.json`) must
// find the shipped presets as well as a file of the user's own. And where the window saves one: in
// the user's experiments folder, never over the shipped presets (/usr/share is the system's).
#pragma once
#include <filesystem>

namespace proteus::config {

// The user's experiments folder: $XDG_DATA_HOME/proteus-lab/experiments, or
// ~/.local/share/proteus-lab/experiments when XDG_DATA_HOME is unset or not absolute (the XDG rule);
// empty without a home folder. Not made here: the window makes it on its first save.
std::filesystem::path user_experiments_dir();

// A preset's name inside an experiments folder: `given` without a leading "experiments/" (the path
// the docs use, from the checkout), so experiments/quickstart-cpu.json is quickstart-cpu.json there.
std::filesystem::path preset_name(const std::filesystem::path& given);

// `given` when it exists; else, for a relative path, the first that is a file of user / the preset's
// name (what the window saved), root / given (a path from the checkout,
// `experiments/quickstart-cpu.json`) and root / "experiments" / given (one inside it,
// `paper/regime-comba-cpu.json`); else `given`, which the loader then names as missing. A file of the
// user's own always wins over a shipped one of the same name. root: common::data_root(); user:
// user_experiments_dir(), or empty for none.
std::filesystem::path find_preset(const std::filesystem::path& given, const std::filesystem::path& root,
                                  const std::filesystem::path& user = {});

// Where the window's Save (and Save as) writes the file its path field names:
//   - empty: user / "my-experiment.json";
//   - a relative path that exists here (a file of the user's own, a checkout's preset): itself;
//   - another relative path: user / its preset_name (the user's experiments folder, as Load finds it);
//   - a path among the shipped presets (under root when `installed`) or anywhere under /usr/share: user /
//     its name inside the shipped experiments/ (never over the system's copy, even as root);
//   - any other absolute path: itself.
// An empty `user` (no home folder) leaves the path as it is, refusing only the shipped ones (throws).
std::filesystem::path save_path(const std::filesystem::path& field, const std::filesystem::path& root, bool installed,
                                const std::filesystem::path& user);

}  // namespace proteus::config
