#include "app/gui/view/sweep_controls.hpp"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>

#include "app/gui/state/sweep_values.hpp"
#include "app/gui/view/lab_app.hpp"
#include "app/gui/view/widgets.hpp"
#include "core/config/experiment.hpp"

namespace proteus::gui {
namespace {

// Swept most often, offered first; every other field follows in the schema's order.
const std::vector<std::string>& common_fields() { return common_sweep_fields(); }

}  // namespace

bool draw_sweep_controls(LabApp& app) {
  auto& ed = app.editor.experiment;
  auto& state = app.editor.controls;
  bool changed = false;
  if (ImGui::BeginCombo("swept field", ed.sweep_field().c_str())) {
    const auto pick = [&](const std::string& f) {
      if (ImGui::Selectable(f.c_str(), f == ed.sweep_field()) && f != ed.sweep_field()) {
        try {
          if (const auto note = ed.pick_sweep_field(f); !note.empty()) app.notify(note);
        } catch (const std::exception& e) {
          app.notify_error(std::string("cannot sweep ") + f + ": " + e.what());
        }
        state.sweep_values_shown.clear();
        state.sweep_values_text.clear();
        state.sweep_shown.clear();
        changed = true;
      }
    };
    for (const auto& f : common_fields()) pick(f);
    ImGui::Separator();
    for (const auto& f : config::override_paths())
      if (std::find(common_fields().begin(), common_fields().end(), f) == common_fields().end()) pick(f);
    ImGui::EndCombo();
  }
  if (ed.sweep_field() == "model.mixer.E") {
    if (state.sweep_shown != ed.sweep_E()) state.sweep_text = sweep_values_text(ed.sweep_E()), state.sweep_shown = ed.sweep_E();
    if (ImGui::InputText("E values", &state.sweep_text)) {
      if (const auto es = parse_sweep_E(state.sweep_text)) {
        ed.set_sweep_E(*es);
        state.sweep_shown = *es;
        changed = true;
      }
    }
    return changed;
  }
  if (state.sweep_values_shown != ed.sweep_values())
    state.sweep_values_text = sweep_values_text(ed.sweep_values()), state.sweep_values_shown = ed.sweep_values();
  if (ImGui::InputText("values", &state.sweep_values_text)) {
    if (const auto values = parse_sweep_values(state.sweep_values_text)) {
      ed.set_sweep_values(*values);
      state.sweep_values_shown = ed.sweep_values();
      changed = true;
    }
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Comma-separated: 16, 32, 64. Each value is trained with E = 1 and with the E below,\n"
                      "so the Training view draws the effect of gating against this field as runs finish\n"
                      "(numbers only: a list of names, rules say, is trained and drawn run by run).");
  const int seeds = ed.seeds(), E = ed.config().model.mixer.E;
  if (ed.kept_sweep().contains("model.mixer.E")) {
    ImGui::TextDisabled("each value: E from the file's grid below, %d seed%s", seeds, seeds == 1 ? "" : "s");
    return changed;
  }
  bool baseline = ed.sweep_baseline();
  if (ImGui::Checkbox("a baseline (E = 1) at each value", &baseline)) ed.set_sweep_baseline(baseline), changed = true;
  if (ed.sweep_baseline() && E > 1)
    ImGui::TextDisabled("each value: E = 1 and E = %d, %d seed%s", E, seeds, seeds == 1 ? "" : "s");
  else
    ImGui::TextDisabled("each value: E = %d, %d seed%s", E, seeds, seeds == 1 ? "" : "s");
  return changed;
}

}  // namespace proteus::gui
