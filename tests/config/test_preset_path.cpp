// A preset named on the command line is found in the user's folder first, then among the shipped
// presets (a path from the checkout, or one inside experiments/), and a name found nowhere comes
// back as given, for the loader to name as missing.
#include <gtest/gtest.h>

#include <fstream>

#include "core/config/preset_path.hpp"
#include "tests/support/temp_dir.hpp"

namespace {

using proteus::config::find_preset;
namespace fs = std::filesystem;

void touch(const fs::path& p) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << "{}";
}

TEST(PresetPath, TheUsersFileFirstThenTheShippedPresets) {
  proteus::test_support::TempDir tmp;
  const fs::path root = tmp.path() / "share";
  touch(root / "experiments" / "quickstart-cpu.json");
  touch(root / "experiments" / "paper" / "regime-comba-cpu.json");
  const fs::path here = tmp.path() / "work";
  fs::create_directories(here);
  const fs::path before = fs::current_path();
  fs::current_path(here);

  EXPECT_EQ(find_preset("experiments/quickstart-cpu.json", root), root / "experiments/quickstart-cpu.json")
      << "a path from the checkout, run from another folder";
  EXPECT_EQ(find_preset("paper/regime-comba-cpu.json", root), root / "experiments" / "paper/regime-comba-cpu.json");
  EXPECT_EQ(find_preset("quickstart-cpu.json", root), root / "experiments" / "quickstart-cpu.json");
  touch(here / "quickstart-cpu.json");
  EXPECT_EQ(find_preset("quickstart-cpu.json", root), fs::path("quickstart-cpu.json")) << "the user's own file wins";
  EXPECT_EQ(find_preset("missing.json", root), fs::path("missing.json")) << "found nowhere: as given";
  EXPECT_EQ(find_preset(here / "missing.json", root), here / "missing.json") << "an absolute path is never looked up";
  EXPECT_EQ(find_preset("paper", root), fs::path("paper")) << "a folder is not a preset";
  fs::current_path(before);
}

}  // namespace
