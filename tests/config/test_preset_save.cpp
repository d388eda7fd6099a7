// Where the window saves a preset and where a name is found again (config::save_path,
// find_preset's user folder, user_experiments_dir): a new name and a shipped preset go to the
// user's experiments folder, never into the installed share/proteus-lab or /usr/share; Load and
// `proteus train` find what was saved by the same name. Folder names carry spaces and non-ASCII
// letters, as a user's home may.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>

#include "core/config/preset_path.hpp"
#include "tests/support/temp_dir.hpp"

namespace {

using proteus::config::find_preset;
using proteus::config::preset_name;
using proteus::config::save_path;
using proteus::config::user_experiments_dir;
namespace fs = std::filesystem;

void touch(const fs::path& p) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << "{}";
}

// Sets (or unsets) an environment variable for the scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    value ? setenv(name, value, 1) : unsetenv(name);
  }
  ~ScopedEnv() { old_ ? setenv(name_, old_->c_str(), 1) : unsetenv(name_); }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// The working folder for the scope.
class ScopedCwd {
 public:
  explicit ScopedCwd(const fs::path& p) : before_(fs::current_path()) { fs::current_path(p); }
  ~ScopedCwd() { fs::current_path(before_); }

 private:
  fs::path before_;
};

TEST(PresetSave, TheUsersExperimentsFolderFollowsXdg) {
  ScopedEnv home("HOME", "/home/ana maría");
  {
    ScopedEnv data("XDG_DATA_HOME", "/data/zoë");
    EXPECT_EQ(user_experiments_dir(), fs::path("/data/zoë/proteus-lab/experiments"));
  }
  for (const char* ignored : {static_cast<const char*>(nullptr), "", "relative/share"}) {
    ScopedEnv data("XDG_DATA_HOME", ignored);
    EXPECT_EQ(user_experiments_dir(), fs::path("/home/ana maría/.local/share/proteus-lab/experiments"))
        << "XDG_DATA_HOME=" << (ignored ? ignored : "(unset)") << ": unset or not absolute is ignored";
  }
  ScopedEnv no_home("HOME", nullptr);
  ScopedEnv no_data("XDG_DATA_HOME", nullptr);
  EXPECT_TRUE(user_experiments_dir().empty()) << "no home folder: no user folder";
}

TEST(PresetSave, APresetNameDropsTheCheckoutsExperimentsFolder) {
  EXPECT_EQ(preset_name("experiments/quickstart-cpu.json"), fs::path("quickstart-cpu.json"));
  EXPECT_EQ(preset_name("experiments/paper/regime-comba-cpu.json"), fs::path("paper/regime-comba-cpu.json"));
  EXPECT_EQ(preset_name("mine.json"), fs::path("mine.json"));
  EXPECT_EQ(preset_name("/abs/experiments/x.json"), fs::path("/abs/experiments/x.json"));
}

TEST(PresetSave, NewNamesAndShippedPresetsGoToTheUsersFolder) {
  proteus::test_support::TempDir tmp;
  const fs::path root = tmp.path() / "prefix dir/share/proteus-lab";  // an installed data root
  touch(root / "experiments" / "quickstart-cpu.json");
  touch(root / "experiments" / "paper" / "regime-comba-cpu.json");
  const fs::path user = tmp.path() / "home ü/.local/share/proteus-lab/experiments";
  const fs::path here = tmp.path() / "work dir";
  fs::create_directories(here);
  ScopedCwd cwd(here);

  EXPECT_EQ(save_path("", root, true, user), user / "my-experiment.json");
  EXPECT_EQ(save_path("mine.json", root, true, user), user / "mine.json") << "a new relative name";
  EXPECT_EQ(save_path("experiments/quickstart-cpu.json", root, true, user), user / "quickstart-cpu.json");
  EXPECT_EQ(save_path(root / "experiments" / "quickstart-cpu.json", root, true, user), user / "quickstart-cpu.json")
      << "the installed preset itself: a copy in the user's folder";
  EXPECT_EQ(save_path(root / "experiments" / "paper" / "regime-comba-cpu.json", root, true, user),
            user / "paper" / "regime-comba-cpu.json");
  EXPECT_EQ(save_path(root / "assets" / "x.json", root, true, user), user / "x.json") << "anything under the data root";
  EXPECT_EQ(save_path("/usr/share/proteus-lab/experiments/quickstart-cpu.json", "/elsewhere", false, user),
            user / "quickstart-cpu.json")
      << "/usr/share is never written, installed or not";
  EXPECT_EQ(save_path("/usr/share/other/x.json", "/elsewhere", false, user), user / "x.json");

  touch(here / "mine.json");
  EXPECT_EQ(save_path("mine.json", root, true, user), fs::path("mine.json")) << "the user's own file here: itself";
  const fs::path own = tmp.path() / "own folder" / "a.json";
  EXPECT_EQ(save_path(own, root, true, user), own) << "an absolute path of the user's: itself";
  EXPECT_EQ(save_path(root / "experiments" / "quickstart-cpu.json", root, false, user),
            root / "experiments" / "quickstart-cpu.json")
      << "a build's source tree is the developer's checkout: written in place";
}

TEST(PresetSave, WithoutAHomeFolderAShippedPresetIsRefused) {
  proteus::test_support::TempDir tmp;
  const fs::path root = tmp.path() / "share/proteus-lab";
  touch(root / "experiments" / "quickstart-cpu.json");
  EXPECT_THROW(save_path(root / "experiments" / "quickstart-cpu.json", root, true, {}), std::runtime_error);
  EXPECT_EQ(save_path("/tmp/x.json", root, true, {}), fs::path("/tmp/x.json"));
}

TEST(PresetSave, WhatWasSavedIsFoundAgainByItsName) {
  proteus::test_support::TempDir tmp;
  const fs::path root = tmp.path() / "share/proteus-lab";
  touch(root / "experiments" / "quickstart-cpu.json");
  const fs::path user = tmp.path() / "data é/proteus-lab/experiments";
  const fs::path here = tmp.path() / "work";
  fs::create_directories(here);
  ScopedCwd cwd(here);

  EXPECT_EQ(find_preset("quickstart-cpu.json", root, user), root / "experiments" / "quickstart-cpu.json")
      << "nothing saved yet: the shipped preset";
  touch(save_path("experiments/quickstart-cpu.json", root, true, user));
  EXPECT_EQ(find_preset("quickstart-cpu.json", root, user), user / "quickstart-cpu.json") << "the user's copy wins";
  EXPECT_EQ(find_preset("experiments/quickstart-cpu.json", root, user), user / "quickstart-cpu.json");
  EXPECT_EQ(find_preset("quickstart-cpu.json", root), root / "experiments" / "quickstart-cpu.json")
      << "no user folder given: as before";
  touch(here / "quickstart-cpu.json");
  EXPECT_EQ(find_preset("quickstart-cpu.json", root, user), fs::path("quickstart-cpu.json"))
      << "a file here still wins over both";
}

}  // namespace
