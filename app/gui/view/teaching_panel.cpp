// The teaching panel: one stream of key -> value associations written into an ungated memory and
// a gated one, side by side, stepped token by token (the memory-op engine computes every number).
// Each side shows its state S_t (locked elements hatched, this step's writes outlined), the
// recall error of every association at this step, and how each association's error evolved.
// Keys (shortcuts.cpp's table, handled by LabApp): space plays or pauses, the arrows step, Home
// and End jump to the ends. The lesson itself (caption, blocks, both memories) is drawn by
// teaching_lesson.cpp, which the presentation view shares with the lesson row from here.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "app/gui/view/lab_app.hpp"
#include "app/gui/view/schedule_controls.hpp"
#include "app/gui/view/teaching_scenario_picker.hpp"
#include "app/gui/view/teaching_views.hpp"
#include "app/gui/view/widgets.hpp"
#include "core/memory/block_axis.hpp"
#include "core/memory/gated_rule.hpp"
#include "core/memory/key_normalize.hpp"
#include "core/memory/schedule.hpp"

namespace proteus::gui {
namespace {

// A combo `width` wide over `choices`, shown by their names (the name tables'); true when one was picked.
template <class E>
bool choose(const char* label, E& value, const std::vector<E>& choices, float width) {
  bool changed = false;
  ImGui::SetNextItemWidth(width);
  if (ImGui::BeginCombo(label, std::string(common::choice_name(value)).c_str())) {
    for (E choice : choices)
      if (ImGui::Selectable(std::string(common::choice_name(choice)).c_str(), choice == value)) value = choice, changed = true;
    ImGui::EndCombo();
  }
  return changed;
}

// The example's controls; true when one changed (ex holds the new example).
bool draw_example_controls(TeachingExample& ex) {
  bool changed = false;
  changed |= choose("rule", ex.rule, memory::all_rules(), ui_px(90));
  ScheduleFields schedule;
  schedule.E = ex.E, schedule.max_E = std::min(64, ex.d_k * ex.d_v), schedule.schedule = ex.schedule;
  std::erase(schedule.schedules, memory::ScheduleType::custom);  // custom needs unlock points, which a lesson has not
  if (draw_schedule_controls(schedule, ScheduleLayout::same_row).any())
    ex.E = schedule.E, ex.schedule = *schedule.schedule, changed = true;
  flow_same_line(ui_px(170) + label_width("normalize"));
  changed |= choose("normalize", ex.normalize, common::choice_values<memory::KeyNormalize>(), ui_px(170));
  flow_same_line(ui_px(120) + label_width("block axis"));
  // One head's memory: the layer axis runs across a layer's heads (memory-op refuses it).
  changed |= choose("block axis", ex.block_axis, {memory::BlockAxis::key_rows, memory::BlockAxis::value_rows}, ui_px(120));

  ImGui::SetNextItemWidth(ui_px(90));
  if (ImGui::SliderInt("d_k", &ex.d_k, 1, 16)) changed = true;
  flow_same_line(ui_px(90) + label_width("d_v"));
  ImGui::SetNextItemWidth(ui_px(90));
  if (ImGui::SliderInt("d_v", &ex.d_v, 1, 16)) changed = true;
  flow_same_line(ui_px(110) + label_width("associations"));
  ImGui::SetNextItemWidth(ui_px(110));
  if (ImGui::SliderInt("associations", &ex.T, 1, 32)) changed = true;
  flow_same_line(ui_px(80) + label_width("beta"));
  ImGui::SetNextItemWidth(ui_px(80));
  float beta = static_cast<float>(ex.beta);
  if (ImGui::SliderFloat("beta", &beta, 0.0f, 2.0f, "%.2f")) ex.beta = beta, changed = true;
  flow_same_line(ui_px(80) + label_width("decay a"));
  ImGui::SetNextItemWidth(ui_px(80));
  float a = static_cast<float>(ex.decay);
  if (ImGui::SliderFloat("decay a", &a, 0.5f, 1.0f, "%.2f")) ex.decay = a, changed = true;
  if (memory::rule_traits(ex.rule).per_key_retention && ImGui::IsItemHovered())
    ImGui::SetTooltip("a retention per key row: row i keeps a^((d_k - i) / d_k), the first row fading fastest");
  flow_same_line(ui_px(90) + label_width("seed"));
  int seed = static_cast<int>(ex.seed);
  ImGui::SetNextItemWidth(ui_px(90));
  if (ImGui::InputInt("seed", &seed)) ex.seed = static_cast<uint64_t>(std::max(0, seed)), changed = true;
  ex.E = std::clamp(ex.E, 1, ex.d_k * ex.d_v);  // d_k or d_v shrank under E
  return changed;
}

// The transport buttons (the keys do the same through LabApp::perform).
void draw_transport_buttons(LabApp& app) {
  auto& st = app.teach.stepper;
  if (ImGui::Button("|<")) app.teach.go_to(0);
  ImGui::SameLine();
  if (ImGui::Button("< step")) app.teach.go_to(st.t() - 1);
  ImGui::SameLine();
  if (ImGui::Button(app.teach.playing ? "Pause" : "Play", ImVec2(ImGui::CalcTextSize("Pause").x + ui_px(24), 0)))
    app.teach.toggle_play(ImGui::GetTime());
  ImGui::SameLine();
  if (ImGui::Button("step >")) app.teach.go_to(st.t() + 1);
  ImGui::SameLine();
  if (ImGui::Button(">|")) app.teach.go_to(st.T());
}

void draw_transport(LabApp& app) {
  draw_transport_buttons(app);
  flow_same_line(ui_px(110) + label_width("steps/s"));
  ImGui::SetNextItemWidth(ui_px(110));
  ImGui::SliderFloat("steps/s", &app.teach.steps_per_s, 0.5f, 8.0f, "%.1f");
  flow_same_line(ImGui::CalcTextSize("Reset to the example").x + ImGui::GetStyle().FramePadding.x * 2);
  if (ImGui::Button("Reset to the example")) {
    app.teach.go_to(0);
    app.teach.stepper.set_example(TeachingExample{});
    app.teach.stepper.go_to(0);
  }
  const char* keys = "space: play/pause   left/right: step   Home/End   F1: all keys";
  flow_same_line(ImGui::CalcTextSize(keys).x);
  ImGui::PushTextWrapPos(0.0f);  // a narrow column (1280 x 720 at scale 2) wraps it, not cuts it
  ImGui::TextDisabled("%s", keys);
  ImGui::PopTextWrapPos();
}

}  // namespace

void draw_teaching_lesson_row(LabApp& app) {
  draw_transport_buttons(app);
  auto ex = app.teach.stepper.example();
  ScheduleFields schedule;
  schedule.E = ex.E, schedule.max_E = std::min(64, ex.d_k * ex.d_v);
  schedule.horizon = HorizonControl::slider, schedule.N = ex.horizon(), schedule.max_N = 4 * ex.T;
  const auto changes = draw_schedule_controls(schedule, ScheduleLayout::same_row);
  if (changes.E) ex.E = schedule.E;
  if (changes.N) ex.N = schedule.N;
  if (changes.any()) {
    try {
      app.teach.stepper.set_example(ex);
    } catch (const std::exception& e) {
      app.notify_error(e.what());
    }
  }
  const std::string where = "token " + std::to_string(app.teach.stepper.t()) + " of " + std::to_string(app.teach.stepper.T());
  flow_same_line(ImGui::CalcTextSize(where.c_str()).x);
  ImGui::TextUnformatted(where.c_str());
}

void draw_teaching_panel(LabApp& app) {
  auto& st = app.teach.stepper;
  draw_teaching_scenario_picker(app);
  auto ex = st.example();
  if (draw_example_controls(ex)) {
    try {
      st.set_example(ex);
    } catch (const std::exception& e) {
      app.notify_error(e.what());
    }
  }
  draw_transport(app);
  ImGui::Separator();
  draw_teaching_lesson(app, LessonFit::scroll);

  const auto& s = st.current();
  const auto& e = st.example();
  ImGui::Spacing();
  // The reference goes in the tooltip: a longer header runs past the panel at 1280x720, scale 2.
  const bool open = ImGui::CollapsingHeader("The gated update and this token's inputs");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("The update is math.md's section 3 (docs/math.md)");
  if (open) {
    ImGui::BeginGroup();
    ImGui::PushTextWrapPos(ImGui::GetCursorPos().x + ImGui::GetContentRegionAvail().x * 0.5f);
    for (const auto& line : rule_equations(e.rule)) ImGui::BulletText("%s", line.c_str());
    ImGui::BulletText("recall error e_i(t) = ||(G_t * S_t)^T k_i - v_i|| / ||v_i||, k_i as the memory sees a key at t");
    ImGui::PopTextWrapPos();
    ImGui::EndGroup();
    ImGui::SameLine(0, ui_px(30));
    ImGui::BeginGroup();
    if (s.t >= 1) draw_token_inputs(st.input(), s.t);
    ImGui::EndGroup();
  }
  ImGui::PushTextWrapPos(ImGui::GetCursorPos().x + ImGui::GetContentRegionAvail().x);
  ImGui::TextDisabled("Same engine as: proteus memory-op --in IN.json --out OUT.json (with \"recall\": true)");
  ImGui::PopTextWrapPos();
}

}  // namespace proteus::gui
