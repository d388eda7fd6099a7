// A path field shows a path's end: the file name whole whenever the field can hold it, as many of
// its folders as fit before it, "..." in front of a cut; never a cut-off beginning, never half a
// UTF-8 character. Dear ImGui runs headless (a context, a built font atlas, one frame).
#include <gtest/gtest.h>
#include <imgui.h>

#include <string>

#include "app/gui/view/widgets.hpp"
#include "tests/support/headless_imgui.hpp"

namespace {

using proteus::gui::path_end_fitting;

class PathEndFitting : public ::testing::Test {
 protected:
  void SetUp() override {
    context_ = proteus::test_support::create_headless_imgui();
    ImGui::NewFrame();
  }
  void TearDown() override {
    ImGui::Render();
    ImGui::DestroyContext(context_);
  }
  static float width(const std::string& s) { return ImGui::CalcTextSize(s.c_str()).x; }
  ImGuiContext* context_ = nullptr;
};

bool valid_utf8(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (size_t j = 1; j < n; ++j)
      if ((static_cast<unsigned char>(s[i + j]) & 0xC0) != 0x80) return false;
    i += n;
  }
  return true;
}

TEST_F(PathEndFitting, AFittingPathIsShownWhole) {
  const std::string path = "/work/p/experiments/quickstart-cpu.json";
  EXPECT_EQ(path_end_fitting(path, width(path)), path);
}

TEST_F(PathEndFitting, ALongPathKeepsItsFileNameAndTheFoldersThatFit) {
  const std::string path = "/tmp/a long folder/é/un dossier de recherche assez long/proteus lab/experiments/quickstart-cpu.json";
  const std::string tail = "/experiments/quickstart-cpu.json";
  for (float w : {width("..." + tail), width("..." + tail) + 3.0f, width(path) - 1.0f}) {
    const std::string shown = path_end_fitting(path, w);
    SCOPED_TRACE(shown);
    EXPECT_LE(width(shown), w);
    EXPECT_EQ(shown.rfind("...", 0), 0u) << "a cut path says so in front";
    EXPECT_EQ(path.substr(path.size() - (shown.size() - 3)), shown.substr(3)) << "the end of the path";
    EXPECT_EQ(shown[3], '/') << "whole folders while the file name fits";
    EXPECT_NE(shown.find(tail), std::string::npos);
    EXPECT_TRUE(valid_utf8(shown));
  }
  // More room shows more folders, never fewer.
  EXPECT_LE(path_end_fitting(path, width("..." + tail)).size(), path_end_fitting(path, width(path) - 1).size());
}

TEST_F(PathEndFitting, ANameTooLongForTheFieldShowsItsEndInWholeCharacters) {
  const std::string path = "/data/ééééééééééééééééééééé-résultats-très-longs.json";
  for (float w : {width("...json"), width("...s.json") + 1.0f, width("...ééé-résultats") + 0.5f}) {
    const std::string shown = path_end_fitting(path, w);
    SCOPED_TRACE(shown);
    EXPECT_LE(width(shown), w);
    EXPECT_EQ(shown.rfind("...", 0), 0u);
    EXPECT_EQ(path.substr(path.size() - (shown.size() - 3)), shown.substr(3));
    EXPECT_TRUE(valid_utf8(shown));
    EXPECT_NE(shown.find(".json"), std::string::npos) << "the extension, the part a user reads last";
  }
}

}  // namespace
