#include "app/gui/view/teaching_scenario_picker.hpp"

#include <imgui.h>

#include <algorithm>

#include "app/gui/view/lab_app.hpp"
#include "app/gui/view/widgets.hpp"
#include "core/teaching/teaching_scenarios.hpp"

namespace proteus::gui {
namespace {

// The scenario whose stream the stepper shows (any seed), or null.
const teaching::TeachingScenario* current_scenario(const TeachingExample& shown) {
  for (const auto& s : teaching::teaching_scenarios()) {
    auto ex = shown;
    ex.seed = s.example.seed;
    if (ex == s.example) return &s;
  }
  return nullptr;
}

}  // namespace

void draw_teaching_scenario_picker(LabApp& app) {
  const auto* current = current_scenario(app.teach.stepper.example());
  // The scenario's name whole: the label beside the combo when both fit, else above it.
  const char* preview = current ? current->name.c_str() : "(your own settings)";
  const float want = ImGui::CalcTextSize(preview).x + ImGui::GetFrameHeight() + 2 * ImGui::GetStyle().FramePadding.x;
  const bool beside = want + label_width("scenario") <= ImGui::GetContentRegionAvail().x;
  if (!beside) ImGui::TextDisabled("scenario");
  ImGui::SetNextItemWidth(std::min(want, ImGui::GetContentRegionAvail().x));
  if (ImGui::BeginCombo(beside ? "scenario" : "##scenario", preview)) {
    for (const auto& s : teaching::teaching_scenarios())
      if (ImGui::Selectable(s.name.c_str(), &s == current)) {
        try {
          app.teach.stepper.set_example(s.example);
          app.teach.go_to(0);
        } catch (const std::exception& e) {
          app.notify_error(e.what());
        }
      }
    ImGui::EndCombo();
  }
  if (!current) return;
  ImGui::PushTextWrapPos(ImGui::GetCursorPos().x + ImGui::GetContentRegionAvail().x);
  ImGui::TextDisabled("%s", current->caption.c_str());
  if (current->example.filler > 0)
    ImGui::TextDisabled("Associations 1-%d are filler: only %d-%d count in the scenario's score (mean error at the end).",
                        current->example.filler, current->example.filler + 1, current->example.T);
  ImGui::PopTextWrapPos();
}

}  // namespace proteus::gui
