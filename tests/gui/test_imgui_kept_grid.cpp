// The controls column, headless, with a preset whose grid the controls cannot edit: the kept
// axis or variants are shown read-only with the run count and the command that trains them, the
// file's variants get a mode of their own, and what a mode leaves out is said; none of it is cut.
#include <gtest/gtest.h>
#include <imgui.h>

#include <memory>
#include <string>

#include "app/gui/view/lab_app.hpp"
#include "app/gui/view/text_check.hpp"
#include "tests/support/headless_lab_app.hpp"

namespace {

using namespace proteus;
const std::filesystem::path kExperiments = std::filesystem::path(PROTEUS_SOURCE_DIR) / "experiments";

class KeptGridViewTest : public test_support::HeadlessLabApp {
 protected:
  // Loads a preset; the file field then shows a short name (a long path is cut there, whatever the file).
  void load(const std::filesystem::path& preset) {
    app_->load_experiment(kExperiments / preset);
    app_->editor.controls.experiment_file = "saved.json";
  }
  // The controls column's text after a few frames (a layout settles by the third), without
  // spaces (they have no glyphs) or line breaks (wrapped lines are drawn apart). Fails on cut
  // text in the read-only block (from its heading to its button; the preset and file fields above
  // cut a long name whatever the file).
  std::string controls_text() {
    for (int i = 0; i < 3; ++i) {
      ImGui::NewFrame();
      app_->frame();
      ImGui::Render();
    }
    std::string shown;
    float top = 1e9f, bottom = -1e9f;
    for (const auto& t : gui::drawn_text(*ImGui::GetDrawData(), *ImGui::GetIO().Fonts)) {
      if (t.window.find("/controls") == std::string::npos) continue;
      shown += t.text;
      if (t.text.rfind("Fromthefile", 0) == 0) top = t.y;
      if (t.text.rfind("Leaveout", 0) == 0) bottom = t.y;
    }
    for (const auto& c : gui::find_cut_text(*ImGui::GetDrawData(), *ImGui::GetIO().Fonts))
      if (c.window.find("/controls") != std::string::npos && ((c.y >= top && c.y <= bottom) || c.text.rfind("(an item", 0) == 0))
        ADD_FAILURE() << "cut in " << c.window << " at (" << c.x << ", " << c.y << "): " << c.text;
    std::erase(shown, ' ');
    return shown;
  }
  static std::string squeezed(std::string s) {
    std::erase(s, ' ');
    return s;
  }
};

TEST_F(KeptGridViewTest, ASecondSweptFieldIsShownReadOnlyWithTheRunCount) {
  load("maps/memory-load-cpu.json");
  const auto shown = controls_text();
  EXPECT_NE(shown.find(squeezed("sweep data.mqar.layout: pairs-first, spread")), std::string::npos) << shown;
  EXPECT_NE(shown.find(squeezed("80 runs (proteus sweep)")), std::string::npos) << shown;
  EXPECT_EQ(shown.find(squeezed("leaves out")), std::string::npos) << shown;
  app_->editor.experiment.set_mode(gui::RunMode::single);
  EXPECT_NE(controls_text().find("leavesout"), std::string::npos);
}

TEST_F(KeptGridViewTest, AFilesOwnVariantsGetAModeOfTheirOwn) {
  load("paper/normalize-variants-cpu.json");
  const auto shown = controls_text();
  EXPECT_NE(shown.find(squeezed("the file's variants")), std::string::npos) << shown;
  EXPECT_NE(shown.find(squeezed("capped-renormalize: model.mixer.E = 16, model.mixer.normalize = capped_renormalize")),
            std::string::npos)
      << shown;
  EXPECT_NE(shown.find(squeezed("12 runs (proteus train)")), std::string::npos) << shown;
}

}  // namespace
