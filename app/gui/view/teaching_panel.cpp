// The teaching panel: a tiny gated rule stepped token by token (the memory-op engine). It shows
// the active blocks over all tokens, the state S_t as a heatmap with locked elements hatched and
// this step's writes outlined, the read o_t, and the equations.
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "app/gui/view/lab_app.hpp"
#include "app/gui/view/teaching_views.hpp"
#include "core/memory/gated_rule.hpp"

namespace proteus::gui {

void draw_teaching_panel(LabApp& app) {
  auto& st = app.teaching;
  auto ex = st.example();
  bool changed = false;
  {
    std::vector<std::string> rules;
    for (auto r : memory::all_rules()) rules.emplace_back(memory::rule_name(r));
    ImGui::SetNextItemWidth(110);
    if (ImGui::BeginCombo("rule", ex.rule.c_str())) {
      for (const auto& r : rules)
        if (ImGui::Selectable(r.c_str(), r == ex.rule)) ex.rule = r, changed = true;
      ImGui::EndCombo();
    }
    ImGui::SameLine();
    ImGui::SetNextItemWidth(110);
    changed |= ImGui::SliderInt("E", &ex.E, 1, ex.d_k * ex.d_v);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(110);
    if (ImGui::BeginCombo("schedule", ex.schedule.c_str())) {
      for (const char* s : {"uniform", "geometric", "power"})
        if (ImGui::Selectable(s, ex.schedule == s)) ex.schedule = s, changed = true;
      ImGui::EndCombo();
    }
    ImGui::SameLine();
    ImGui::SetNextItemWidth(110);
    float a = static_cast<float>(ex.decay);
    if (ImGui::SliderFloat("decay a", &a, 0.5f, 1.0f, "%.2f")) ex.decay = a, changed = true;
    ImGui::SameLine();
    ImGui::SetNextItemWidth(110);
    if (ImGui::SliderInt("tokens", &ex.T, 2, 24)) ex.N = ex.T, changed = true;
    ImGui::SameLine();
    int seed = static_cast<int>(ex.seed);
    ImGui::SetNextItemWidth(90);
    if (ImGui::InputInt("seed", &seed)) ex.seed = static_cast<uint64_t>(std::max(0, seed)), changed = true;
  }
  if (changed) {
    try {
      st.set_example(ex);
    } catch (const std::exception& e) {
      app.notify(e.what(), true);
    }
  }

  if (ImGui::Button("|<")) st.go_to(0), app.teaching_playing = false;
  ImGui::SameLine();
  if (ImGui::Button("< step")) st.back(), app.teaching_playing = false;
  ImGui::SameLine();
  if (ImGui::Button(app.teaching_playing ? "Pause" : "Play")) {
    app.teaching_playing = !app.teaching_playing;
    if (st.t() >= st.T()) st.go_to(0);
    app.teaching_next_step_s = ImGui::GetTime() + 1.0 / app.teaching_steps_per_s;
  }
  ImGui::SameLine();
  if (ImGui::Button("step >")) st.step(), app.teaching_playing = false;
  ImGui::SameLine();
  if (ImGui::Button(">|")) st.go_to(st.T()), app.teaching_playing = false;
  ImGui::SameLine();
  ImGui::SetNextItemWidth(120);
  ImGui::SliderFloat("steps/s", &app.teaching_steps_per_s, 0.5f, 8.0f, "%.1f");
  if (app.teaching_playing && ImGui::GetTime() >= app.teaching_next_step_s) {
    st.step();
    app.teaching_next_step_s = ImGui::GetTime() + 1.0 / app.teaching_steps_per_s;
    if (st.t() >= st.T()) app.teaching_playing = false;
  }

  const auto& s = st.current();
  const auto& e = st.example();
  ImGui::Text("token t = %d of %d   active blocks k(t) = %d of %d   active elements %d of %d", s.t, e.T, s.active_blocks,
              e.E, s.active_elements, e.d_k * e.d_v);

  draw_block_strip(e, s.t);

  double scale = 1e-9;
  for (double v : s.state) scale = std::max(scale, std::abs(v));
  for (double v : s.read) scale = std::max(scale, std::abs(v));
  const float cell = 46;
  ImGui::BeginGroup();
  ImGui::Text("state S_t (%d x %d): hatched = locked, outlined = written at t", e.d_k, e.d_v);
  draw_cell_grid("state", e.d_k, e.d_v, cell, s.state, &s.mask, &s.written, scale);
  ImGui::Text("read o_t = (G_t * S_t)^T q_t");
  if (s.read.empty()) ImGui::TextDisabled("(before the first token)");
  else draw_cell_grid("read", 1, e.d_v, cell, s.read, nullptr, nullptr, scale);
  ImGui::EndGroup();
  ImGui::SameLine(0, 30);
  ImGui::BeginGroup();
  ImGui::TextUnformatted("The gated update (SPEC 3)");
  for (const auto& line : rule_equations(e.rule)) ImGui::BulletText("%s", line.c_str());
  ImGui::Spacing();
  if (s.t >= 1) draw_token_inputs(st.input(), s.t);
  ImGui::TextDisabled("Same engine as: proteus memory-op --in IN.json --out OUT.json");
  ImGui::EndGroup();
}

}  // namespace proteus::gui
