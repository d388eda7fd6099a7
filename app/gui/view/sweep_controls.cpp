#include "app/gui/view/sweep_controls.hpp"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <sstream>

#include "app/gui/view/lab_app.hpp"
#include "app/gui/view/widgets.hpp"
#include "core/config/experiment.hpp"

namespace proteus::gui {
namespace {

std::string join_values(const std::vector<nlohmann::json>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + (v[i].is_string() ? v[i].get<std::string>() : v[i].dump());
  return s;
}

// "16, 32, 64" -> each entry as JSON (a number, true) or else as a string ("layer"); false when empty.
bool parse_values(const std::string& text, std::vector<nlohmann::json>& out) {
  std::vector<nlohmann::json> v;
  std::string tok;
  std::stringstream ss(text);
  while (std::getline(ss, tok, ',')) {
    const auto first = tok.find_first_not_of(' '), last = tok.find_last_not_of(' ');
    if (first == std::string::npos) return false;
    tok = tok.substr(first, last - first + 1);
    const auto j = nlohmann::json::parse(tok, nullptr, false);
    v.push_back(j.is_discarded() ? nlohmann::json(tok) : j);
  }
  if (v.empty()) return false;
  out = std::move(v);
  return true;
}

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
    if (state.sweep_shown != ed.sweep_E()) {
      state.sweep_text.clear();
      for (size_t i = 0; i < ed.sweep_E().size(); ++i) state.sweep_text += (i ? ", " : "") + std::to_string(ed.sweep_E()[i]);
      state.sweep_shown = ed.sweep_E();
    }
    if (ImGui::InputText("E values", &state.sweep_text)) {
      std::vector<nlohmann::json> v;
      std::vector<int> es;
      if (parse_values(state.sweep_text, v) &&
          std::all_of(v.begin(), v.end(), [](const nlohmann::json& x) { return x.is_number_integer(); })) {
        for (const auto& x : v) es.push_back(x.get<int>());
        ed.set_sweep_E(es);
        state.sweep_shown = es;
        changed = true;
      }
    }
    return changed;
  }
  if (state.sweep_values_shown != ed.sweep_values())
    state.sweep_values_text = join_values(ed.sweep_values()), state.sweep_values_shown = ed.sweep_values();
  std::vector<nlohmann::json> values;
  if (ImGui::InputText("values", &state.sweep_values_text) && parse_values(state.sweep_values_text, values)) {
    ed.set_sweep_values(values);
    state.sweep_values_shown = ed.sweep_values();
    changed = true;
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
