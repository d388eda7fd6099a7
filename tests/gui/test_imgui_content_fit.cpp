// The Teach presentation fitted to the screens of a room (issue 38), drawn headless: from
// 1280 x 720 to 3840 x 2160 at UI scales 1 to 3, both memories' state grids (every row, the
// locked ones included), recall bars and step triangles are whole on screen at readable sizes,
// with no text cut; and the content check does see a grid the window cuts.
#include <gtest/gtest.h>
#include <imgui.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "app/gui/state/content_fit.hpp"
#include "app/gui/view/content_check.hpp"
#include "app/gui/view/lab_app.hpp"
#include "app/gui/view/text_check.hpp"
#include "app/gui/view/ui_scale.hpp"
#include "tests/support/headless_lab_app.hpp"

namespace {

using namespace proteus;

class ContentFitView : public test_support::HeadlessLabApp {
 protected:
  // The Teach presentation at token 7 in a `size` window at UI scale `s`, drawn until settled.
  void present_teach(ImVec2 size, float s) {
    app_->fonts = gui::apply_ui_scale(s);
    app_->display.ui_scale = s;
    ImGui::GetIO().DisplaySize = size;
    app_->show(gui::Tab::teach);
    app_->display.presenting = true;
    app_->teach.stepper.go_to(7);
    for (int i = 0; i < 3; ++i) {  // a requested tab is drawn from the second frame
      ImGui::NewFrame();
      app_->frame();
      ImGui::Render();
    }
  }
  const gui::DrawnContent* drawn(const std::string& name) {
    for (const auto& c : gui::drawn_content())
      if (c.name == name) return &c;
    return nullptr;
  }
};

TEST_F(ContentFitView, TheTeachPresentationFitsEveryScreenAtEveryScale) {
  for (const ImVec2 size : {ImVec2(1280, 720), ImVec2(1920, 1080), ImVec2(2560, 1440), ImVec2(3840, 2160)})
    for (const float s : {1.0f, 1.5f, 2.0f, 3.0f}) {
      present_teach(size, s);
      const std::string where = std::to_string(int(size.x)) + " x " + std::to_string(int(size.y)) + " at scale " + std::to_string(s);
      for (const auto& p : gui::find_content_problems(gui::drawn_content())) ADD_FAILURE() << where << ": " << p;
      for (const auto& c : gui::find_cut_text(*ImGui::GetDrawData(), *ImGui::GetIO().Fonts))
        ADD_FAILURE() << where << ": text cut in " << c.window << ": " << c.text;
      // Both memories whole: every state row (8 rows of square cells), the bars, the triangle.
      const int d_k = app_->teach.stepper.example().d_k;
      for (const char* name : {"ungated state", "gated state", "ungated recall bars", "gated recall bars",
                               "ungated recall history", "gated recall history"}) {
        const gui::DrawnContent* c = drawn(name);
        ASSERT_NE(c, nullptr) << where << ": " << name << " not drawn";
        EXPECT_LE(c->rect.y1, size.y) << where << ": " << name;
      }
      EXPECT_NEAR(drawn("gated state")->rect.height(), d_k * drawn("gated state")->readable_px, 1.0f) << where;
    }
}

TEST_F(ContentFitView, TheCheckSeesAGridTheWindowCuts) {
  ImGui::GetIO().DisplaySize = ImVec2(1280, 720);
  ImGui::NewFrame();
  std::vector<gui::DrawnContent> drawn;
  gui::begin_content_frame(drawn);
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(ImVec2(400, 300));
  ImGui::Begin("probe", nullptr, ImGuiWindowFlags_NoDecoration);
  ImGui::SetCursorPosY(250);
  ImGui::Dummy(ImVec2(100, 100));
  gui::register_content(gui::ContentKind::grid, "probe grid", ImGui::GetItemRectMin(), ImGui::GetItemRectMax(), 20);
  ImGui::End();
  ImGui::Render();
  ASSERT_EQ(&gui::drawn_content(), &drawn);
  const auto problems = gui::find_content_problems(drawn);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("probe grid (grid, in probe) is cut by the window's bottom edge"), std::string::npos) << problems[0];
}

// Issue 38: a presented figure at 1920 x 1080 and scale 2 keeps its smallest text at 24 px (the
// step kPresentationReadableStep or above), its plot whole and readable.
TEST_F(ContentFitView, APresentedFigureKeepsRoomSizedTextAt1920x1080Scale2) {
  app_->fonts = gui::apply_ui_scale(2.0f);
  app_->display.ui_scale = 2.0f;
  ImGui::GetIO().DisplaySize = ImVec2(1920, 1080);
  app_->load_experiment(std::filesystem::path(PROTEUS_SOURCE_DIR) / "experiments/paper/regime-comba-cpu.json");
  app_->editor.experiment.edit_config([&](config::RunConfig& c) { c.model.mixer.heads = 4; return true; });
  app_->editor.experiment.edit_config([&](config::RunConfig& c) { c.model.d_model = 128; return true; });
  app_->editor.experiment.set_E(16);
  app_->editor_changed();
  app_->show(gui::Tab::activation);
  ASSERT_EQ(app_->presentation_figures().size(), 2u) << "the activation map and the state picture";
  app_->display.presenting = true;
  for (int fig = 0; fig < 2; ++fig) {
    app_->display.presented_figure = fig;
    for (int i = 0; i < 3; ++i) {
      ImGui::NewFrame();
      app_->frame();
      ImGui::Render();
    }
    const std::string name = app_->presentation_figures()[size_t(fig)].name;
    EXPECT_GE(app_->display.presented_text_step, gui::kPresentationReadableStep) << name;
    const float note_px = gui::kBaseFontPx * 2.0f * gui::kPresentationFontFactor * app_->display.presented_text_step *
                          float(figures::kNoteSize / figures::kLabelSize);
    EXPECT_GE(note_px, 24.0f - 1e-3f) << name;
    // The check below must have the presented plot to look at: registered, on screen, readable.
    int plots = 0;
    for (const auto& c : gui::drawn_content()) {
      if (c.kind != gui::ContentKind::plot) continue;
      ++plots;
      EXPECT_GT(c.readable_px, 200.0f) << name << ": " << c.name << " is drawn too small to read";
      EXPECT_LE(c.rect.y1, 1080.0f) << name << ": " << c.name;
      EXPECT_LE(c.rect.x1, 1920.0f) << name << ": " << c.name;
    }
    EXPECT_GE(plots, 1) << name << ": no plot registered with the content check";
    for (const auto& p : gui::find_content_problems(gui::drawn_content())) ADD_FAILURE() << name << ": " << p;
    for (const auto& c : gui::find_cut_text(*ImGui::GetDrawData(), *ImGui::GetIO().Fonts))
      ADD_FAILURE() << name << ": text cut in " << c.window << ": " << c.text;
  }
}

}  // namespace
