// The teaching panel: a tiny gated rule stepped token by token (the memory-op engine). It shows
// the active blocks over all tokens, the state S_t as a heatmap with locked elements hatched and
// this step's writes outlined, the read o_t, and the equations.
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "app/gui/view/lab_app.hpp"
#include "core/memory/gated_rule.hpp"
#include "core/memory/schedule.hpp"

namespace proteus::gui {
namespace {

// Blue (negative) - white - red (positive), |v| / scale clamped to 1.
ImU32 diverging(double v, double scale) {
  const float t = static_cast<float>(std::clamp(scale > 0 ? v / scale : 0.0, -1.0, 1.0));
  const float r = t > 0 ? 1.0f : 1.0f + t * 0.8f, g = 1.0f - std::abs(t) * 0.8f, b = t < 0 ? 1.0f : 1.0f - t * 0.8f;
  return ImGui::ColorConvertFloat4ToU32(ImVec4(r, g, b, 1));
}

void cell_grid(const char* id, int rows, int cols, float cell, const std::vector<double>& values,
               const std::vector<uint8_t>* mask, const std::vector<uint8_t>* written, double scale) {
  ImGui::PushID(id);
  const ImVec2 o = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("##grid", ImVec2(cols * cell, rows * cell));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      const size_t i = size_t(r) * cols + c;
      const ImVec2 a(o.x + c * cell, o.y + r * cell), b(a.x + cell - 2, a.y + cell - 2);
      dl->AddRectFilled(a, b, diverging(values[i], scale));
      const bool locked = mask && !(*mask)[i];
      if (locked) {  // hatched: locked elements keep their value
        for (float d = 0; d < 2 * cell; d += 6)
          dl->AddLine(ImVec2(a.x + std::max(0.0f, d - cell), a.y + std::min(d, cell - 2)),
                      ImVec2(a.x + std::min(d, cell - 2), a.y + std::max(0.0f, d - cell)), IM_COL32(90, 90, 90, 160));
      }
      if (written && (*written)[i]) dl->AddRect(a, b, IM_COL32(255, 200, 0, 255), 0, 0, 2.5f);
      char buf[16];
      std::snprintf(buf, sizeof buf, "%+.2f", values[i]);
      const ImVec2 ts = ImGui::CalcTextSize(buf);
      if (ts.x < cell - 4) dl->AddText(ImVec2(a.x + (cell - 2 - ts.x) / 2, a.y + (cell - 2 - ts.y) / 2), IM_COL32(0, 0, 0, 255), buf);
      if (ImGui::IsItemHovered() && mouse.x >= a.x && mouse.x < b.x && mouse.y >= a.y && mouse.y < b.y)
        ImGui::SetTooltip("[%d][%d] = %.6f%s", r, c, values[i], locked ? " (locked)" : "");
    }
  ImGui::PopID();
}

}  // namespace

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

  // Active blocks over every token: the schedule's picture in miniature, t marked.
  {
    const ImVec2 o = ImGui::GetCursorScreenPos();
    const float cw = std::min(28.0f, (ImGui::GetContentRegionAvail().x - 80) / e.T), ch = 10;
    ImGui::Dummy(ImVec2(e.T * cw + 80, e.E * ch + 18));
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const auto sched = memory::Schedule::make(memory::ScheduleSpec{e.schedule, 2.0, {}}, int64_t(e.d_k) * e.d_v, e.E,
                                              e.N > 0 ? e.N : e.T);
    for (int t = 1; t <= e.T; ++t)
      for (int b = 0; b < e.E; ++b) {
        const bool on = b < sched.active_blocks(t);
        const ImVec2 a(o.x + 80 + (t - 1) * cw, o.y + (e.E - 1 - b) * ch);
        dl->AddRectFilled(a, ImVec2(a.x + cw - 1, a.y + ch - 1), on ? IM_COL32(60, 60, 60, 255) : IM_COL32(225, 225, 225, 255));
      }
    if (s.t >= 1)
      dl->AddRect(ImVec2(o.x + 80 + (s.t - 1) * cw - 1, o.y - 1), ImVec2(o.x + 80 + s.t * cw, o.y + e.E * ch + 1),
                  IM_COL32(255, 160, 0, 255), 0, 0, 2);
    dl->AddText(ImVec2(o.x, o.y), ImGui::GetColorU32(ImGuiCol_TextDisabled), "blocks");
    dl->AddText(ImVec2(o.x + 80, o.y + e.E * ch + 2), ImGui::GetColorU32(ImGuiCol_TextDisabled),
                "tokens 1..T (dark = active block)");
  }

  double scale = 1e-9;
  for (double v : s.state) scale = std::max(scale, std::abs(v));
  for (double v : s.read) scale = std::max(scale, std::abs(v));
  const float cell = 46;
  ImGui::BeginGroup();
  ImGui::Text("state S_t (%d x %d): hatched = locked, outlined = written at t", e.d_k, e.d_v);
  cell_grid("state", e.d_k, e.d_v, cell, s.state, &s.mask, &s.written, scale);
  ImGui::Text("read o_t = (G_t * S_t)^T q_t");
  if (s.read.empty()) ImGui::TextDisabled("(before the first token)");
  else cell_grid("read", 1, e.d_v, cell, s.read, nullptr, nullptr, scale);
  ImGui::EndGroup();
  ImGui::SameLine(0, 30);
  ImGui::BeginGroup();
  ImGui::TextUnformatted("The gated update (SPEC 3)");
  for (const auto& line : rule_equations(e.rule)) ImGui::BulletText("%s", line.c_str());
  ImGui::Spacing();
  if (s.t >= 1) {
    const auto& in = st.input();
    auto row = [&](const char* name) {
      if (!in.contains(name)) return;
      const auto& x = in[name][s.t - 1];
      std::string text = std::string(name) + "_t = ";
      if (x.is_array()) {
        text += "[";
        for (size_t i = 0; i < x.size(); ++i) {
          char buf[16];
          std::snprintf(buf, sizeof buf, "%s%+.2f", i ? " " : "", x[i].get<double>());
          text += buf;
        }
        text += "]";
      } else {
        char buf[16];
        std::snprintf(buf, sizeof buf, "%.2f", x.get<double>());
        text += buf;
      }
      ImGui::TextUnformatted(text.c_str());
    };
    for (const char* k : {"q", "k", "v", "beta", "a", "eta", "p", "gamma"}) row(k);
  }
  ImGui::TextDisabled("Same engine as: proteus memory-op --in IN.json --out OUT.json");
  ImGui::EndGroup();
}

}  // namespace proteus::gui
