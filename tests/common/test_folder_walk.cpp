// Issue 34: walking a folder someone else fills (core/common/folder_walk.hpp) never throws: a
// symlink loop or a vanished entry is named with its reason and skipped, and the rest is listed.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/common/folder_walk.hpp"
#include "tests/support/temp_dir.hpp"

namespace {

namespace fs = std::filesystem;
using namespace proteus::common;
using proteus::test_support::TempDir;

TEST(FolderWalk, ALoopIsNamedAndSkippedAndTheRestListed) {
  TempDir tmp;
  fs::create_directories(tmp / "runs/a");
  fs::create_directories(tmp / "runs/b");
  fs::create_directories(tmp / "runs/.partial");
  fs::create_symlink("loop", tmp / "runs/loop");
  fs::create_symlink("b", tmp / "runs/link-to-b");
  fs::create_symlink("gone", tmp / "runs/dangling");
  tmp.write("runs/a/config.json", "{}");
  std::vector<std::string> unreadable;
  const auto folders = list_subfolders(tmp / "runs", &unreadable);
  EXPECT_EQ(folders, (std::vector<fs::path>{tmp / "runs/a", tmp / "runs/b", tmp / "runs/link-to-b"}));
  ASSERT_EQ(unreadable.size(), 1u);
  EXPECT_EQ(unreadable[0], (tmp / "runs/loop").string() + ": cannot read it (Too many levels of symbolic links); skipped");
  EXPECT_NO_THROW(list_subfolders(tmp / "runs/loop"));
  EXPECT_TRUE(holds_regular_file(tmp / "runs/a", "config.json"));
  EXPECT_FALSE(holds_regular_file(tmp / "runs/b", "config.json"));
  unreadable.clear();
  EXPECT_FALSE(holds_regular_file(tmp / "runs/loop", "config.json", &unreadable));
  EXPECT_EQ(unreadable.size(), 1u);
}

TEST(FolderWalk, AMissingFolderIsEmptyAndSaysNothing) {
  TempDir tmp;
  std::vector<std::string> unreadable;
  EXPECT_TRUE(list_subfolders(tmp / "absent", &unreadable).empty());
  EXPECT_TRUE(list_regular_files(tmp / "absent", &unreadable).empty());
  EXPECT_FALSE(holds_regular_file(tmp / "absent", "config.json", &unreadable));
  EXPECT_TRUE(unreadable.empty());
  EXPECT_TRUE(list_subfolders(tmp / std::string(5000, 'x'), &unreadable).empty());
  EXPECT_EQ(unreadable.size(), 1u) << "an over-long path is named, not thrown";
}

TEST(FolderWalk, RegularFilesAreTheFoldersOwnNotWhatALinkPointsTo) {
  TempDir tmp;
  tmp.write("run/config.json", "{}");
  tmp.write("run/.hidden", "x");
  tmp.write("secret", "not the run's");
  fs::create_symlink(tmp / "secret", tmp / "run/link.json");
  fs::create_symlink("loop", tmp / "run/loop");
  fs::create_directories(tmp / "run/evals");
  std::vector<std::string> unreadable;
  EXPECT_EQ(list_regular_files(tmp / "run", &unreadable), std::vector<fs::path>{tmp / "run/config.json"});
  EXPECT_EQ(list_regular_files(tmp / "run", &unreadable, true),
            (std::vector<fs::path>{tmp / "run/.hidden", tmp / "run/config.json"}));
  EXPECT_TRUE(unreadable.empty()) << unreadable.front();
}

}  // namespace
