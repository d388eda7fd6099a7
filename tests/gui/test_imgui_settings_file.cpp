// Issue 34: no settings file keeps the window from opening. Crafted entries for a table the window
// draws (a column count that sizes a huge allocation, orders and sort indices past the columns,
// NaN weights) go through load_settings_file as the window reads them, and the frames that follow
// draw that table; the valid part of the file is still applied.
#include <gtest/gtest.h>
#include <imgui.h>
#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "app/gui/view/ui_settings_handler.hpp"
#include "tests/support/headless_imgui.hpp"
#include "tests/support/temp_dir.hpp"

namespace {

using namespace proteus;

// The ID BeginTable("runs", ...) takes inside window "Runs": what a crafted entry aims at.
ImGuiID table_id() {
  ImGui::NewFrame();
  ImGui::Begin("Runs");
  const ImGuiID id = ImGui::GetID("runs");
  ImGui::End();
  ImGui::Render();
  return id;
}

// Frames drawing a 3-column table in window "Runs"; the window's position after them.
ImVec2 draw_table(int frames) {
  ImVec2 pos;
  for (int f = 0; f < frames; ++f) {
    ImGui::NewFrame();
    ImGui::Begin("Runs");
    pos = ImGui::GetWindowPos();
    if (ImGui::BeginTable("runs", 3, ImGuiTableFlags_Resizable | ImGuiTableFlags_Reorderable | ImGuiTableFlags_Sortable |
                                         ImGuiTableFlags_Hideable)) {
      for (const char* h : {"run", "state", "why"}) ImGui::TableSetupColumn(h);
      ImGui::TableHeadersRow();
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted("tiny-s1");
      ImGui::EndTable();
    }
    ImGui::End();
    ImGui::Render();
  }
  return pos;
}

std::string table_header(ImGuiID id, const char* columns) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "[Table][0x%08X,%s]\n", id, columns);
  return buf;
}

TEST(ImguiSettingsFile, CraftedTableEntriesCannotStopTheWindow) {
  const std::string crafted_bodies[] = {
      "2147483647]\nColumn 0 Width=100\n",
      "-7]\nColumn 0 Width=100\n",
      "3]\nColumn 0 Order=200\nColumn 1 Order=-100\nColumn 2 Sort=120^\n",
      "3]\nColumn 0 Weight=nan\nColumn 1 Weight=-1e30\nColumn 2 Width=-2147483648\n",
      "3]\nColumn 3000000 Width=1\nRefScale=-inf\n",
  };
  for (const auto& body : crafted_bodies) {
    test_support::TempDir tmp;
    ImGuiContext* context = test_support::create_headless_imgui();
    const ImGuiID id = table_id();
    const std::string count = body.substr(0, body.find(']'));
    tmp.write("imgui.ini", "[Window][Runs]\nPos=70,80\nSize=500,300\n\n" + table_header(id, count.c_str()) +
                               body.substr(body.find('\n') + 1));
    gui::load_settings_file(tmp / "imgui.ini");
    const ImVec2 pos = draw_table(3);
    EXPECT_FLOAT_EQ(pos.x, 70.0f) << "the valid window entry is applied\n" << body;
    EXPECT_FLOAT_EQ(pos.y, 80.0f) << body;
    ImGui::DestroyContext(context);
  }
}

TEST(ImguiSettingsFile, ASpecialFileInItsPlaceOpensTheWindowWithItsDefaults) {
  test_support::TempDir tmp;
  ImGuiContext* context = test_support::create_headless_imgui();
  ASSERT_EQ(::mkfifo((tmp / "imgui.ini").c_str(), 0600), 0);
  gui::load_settings_file(tmp / "imgui.ini");  // returns: a FIFO is never opened
  draw_table(2);
  gui::mark_ui_settings_changed();
  gui::save_settings_file(tmp / "imgui.ini", true);  // the FIFO was set aside: a fresh file is written
  EXPECT_TRUE(std::filesystem::is_regular_file(tmp / "imgui.ini"));
  EXPECT_NE(test_support::TempDir::read(tmp / "imgui.ini").find("[Window][Runs]"), std::string::npos);
  ImGui::DestroyContext(context);
}

}  // namespace
