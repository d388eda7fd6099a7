// Issue 34: the window's ImGui settings file is read defensively (state/settings_file.hpp): only a
// regular file within its limit is read, without ever blocking, and only the lines ImGui reads
// safely are handed on; a FIFO, a device, a loop or a huge file is set aside with a message.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <string>

#include "app/gui/state/settings_file.hpp"
#include "tests/support/temp_dir.hpp"

namespace {

namespace fs = std::filesystem;
using namespace proteus::gui;
using proteus::test_support::TempDir;

// What the window writes: its own entry, a window, a table of 3 columns.
constexpr const char* kSaved =
    "[Window][Debug##Default]\nPos=60,60\nSize=400,400\nCollapsed=0\n\n"
    "[Table][0x8B2AFAE8,3]\nRefScale=15\nColumn 0  Width=120 Visible=1 Order=0 Sort=0v\n"
    "Column 1  Weight=1.0000 Visible=1 Order=2\nColumn 2  Width=80 Order=1\n\n"
    "[ProteusLab][Window]\nUiScale=1.5\nWindowSize=1600,1000\nTab=teach\n\n";

TEST(SettingsFile, WhatTheWindowWritesIsKeptWhole) {
  std::vector<std::string> messages;
  EXPECT_EQ(sanitize_settings(kSaved, &messages), kSaved);
  EXPECT_TRUE(messages.empty()) << messages.front();
}

TEST(SettingsFile, CraftedLinesAreDroppedAndSaidSo) {
  const std::pair<const char*, const char*> crafted[] = {
      {"[Table][0x00000001,2147483647]\nColumn 0 Width=1\n", "column count"},
      {"[Table][0x00000001,-5]\n", "column count"},
      {"[Table][0x00000001,0]\n", "column count"},
      {"[Table][0x00000001,65]\n", "column count"},
      {"[Table][0xZZ,3]\n", "column count"},
      {"[Table][0x00000001,3]\nColumn 7 Width=10\n", "out of range"},
      {"[Table][0x00000001,3]\nColumn -1 Width=10\n", "out of range"},
      {"[Table][0x00000001,3]\nColumn 0 Order=300\n", "out of range"},
      {"[Table][0x00000001,3]\nColumn 0 Sort=9v\n", "out of range"},
      {"[Table][0x00000001,3]\nColumn 0 Weight=nan\n", "out of range"},
      {"[Table][0x00000001,3]\nColumn 0 Width=-99999999\n", "out of range"},
      {"[Table][0x00000001,3]\nRefScale=1e38\n", "out of range"},
      {"[Window][x]\nSize=99999999,1\n", "out of range"},
      {"[Window][x]\nPos=1\n", "out of range"},
      {"[Docking][Data]\nDockNode ID=0x1\n", "does not keep"},
      {"[Window][x\x01y]\nPos=1,1\n", "control byte"},
  };
  for (const auto& [text, why] : crafted) {
    std::vector<std::string> messages;
    const std::string kept = sanitize_settings(text, &messages);
    ASSERT_FALSE(messages.empty()) << text;
    EXPECT_NE(messages[0].find(why), std::string::npos) << text << " -> " << messages[0];
    EXPECT_EQ(messages[0].rfind("line ", 0), 0u) << messages[0];
    EXPECT_EQ(kept.find("2147483647"), std::string::npos) << kept;
    EXPECT_EQ(kept.find("Column 7"), std::string::npos) << kept;
    EXPECT_EQ(kept.find("Order=300"), std::string::npos) << kept;
  }
  // Many bad lines: eight named, the rest counted.
  std::string many = "[Window][x]\n";
  for (int i = 0; i < 100; ++i) many += "Pos=bad\n";
  std::vector<std::string> messages;
  sanitize_settings(many, &messages);
  ASSERT_EQ(messages.size(), 9u);
  EXPECT_EQ(messages.back(), "92 more lines dropped");
}

// Runs read_settings_file on another thread: a read that blocks fails the test instead of hanging it.
SettingsFileText read_within_seconds(const fs::path& path) {
  auto reading = std::async(std::launch::async, [&] { return read_settings_file(path); });
  if (reading.wait_for(std::chrono::seconds(5)) != std::future_status::ready) {
    ADD_FAILURE() << "reading " << path << " blocked";
    std::_Exit(1);  // the reader cannot be stopped; the test binary ends here
  }
  return reading.get();
}

TEST(SettingsFile, AFifoADeviceOrALoopIsSetAsideWithoutBlocking) {
  TempDir tmp;
  const fs::path file = tmp / "imgui.ini";
  ASSERT_EQ(::mkfifo(file.c_str(), 0600), 0);
  auto r = read_within_seconds(file);
  EXPECT_TRUE(r.text.empty());
  ASSERT_EQ(r.messages.size(), 1u);
  EXPECT_NE(r.messages[0].find("not a regular file"), std::string::npos) << r.messages[0];
  EXPECT_NE(r.messages[0].find("set aside as"), std::string::npos) << r.messages[0];
  EXPECT_FALSE(fs::exists(fs::symlink_status(file))) << "the FIFO is out of the way of the next save";
  EXPECT_TRUE(fs::is_fifo(tmp / "imgui.ini.set-aside"));

  fs::create_symlink("/dev/zero", file);
  r = read_within_seconds(file);
  EXPECT_TRUE(r.text.empty());
  EXPECT_NE(r.messages.at(0).find("not a regular file"), std::string::npos) << r.messages[0];
  fs::remove(tmp / "imgui.ini.set-aside");

  fs::create_symlink("imgui.ini", file);  // a link to itself
  r = read_within_seconds(file);
  EXPECT_NE(r.messages.at(0).find("a symlink loop"), std::string::npos) << r.messages[0];
}

TEST(SettingsFile, AHugeFileIsSetAsideAndAMissingOneIsEmpty) {
  TempDir tmp;
  const fs::path file = tmp / "imgui.ini";
  auto r = read_within_seconds(file);
  EXPECT_TRUE(r.text.empty());
  EXPECT_TRUE(r.messages.empty());
  tmp.write("imgui.ini", std::string(kSettingsFileLimit + 1, '\n'));
  r = read_within_seconds(file);
  EXPECT_TRUE(r.text.empty());
  EXPECT_NE(r.messages.at(0).find("larger than 1 MiB"), std::string::npos) << r.messages[0];
  EXPECT_TRUE(fs::exists(tmp / "imgui.ini.set-aside"));
  tmp.write("imgui.ini", std::string(kSaved) + "[Table][0x00000001,2147483647]\n");
  r = read_within_seconds(file);
  EXPECT_EQ(r.text, kSaved) << "the good entries are read, the crafted one dropped";
  ASSERT_EQ(r.messages.size(), 1u);
  EXPECT_NE(r.messages[0].find((tmp / "imgui.ini").string() + ": line 17 dropped"), std::string::npos) << r.messages[0];
}

TEST(SettingsFile, SavingNeverWritesThroughAFifoOrALink) {
  TempDir tmp;
  const fs::path file = tmp / "imgui.ini";
  std::string error;
  EXPECT_TRUE(write_settings_file(file, kSaved, &error)) << error;
  EXPECT_EQ(TempDir::read(file), kSaved);
  fs::remove(file);
  ASSERT_EQ(::mkfifo(file.c_str(), 0600), 0);
  EXPECT_FALSE(write_settings_file(file, kSaved, &error));
  EXPECT_FALSE(error.empty());
  EXPECT_TRUE(fs::is_fifo(file)) << "not ours to replace";
}

}  // namespace
