#include "app/gui/view/schedule_controls.hpp"

#include <imgui.h>

#include <algorithm>

#include "app/gui/state/experiment_editor.hpp"
#include "app/gui/view/ui_scale.hpp"
#include "app/gui/view/widgets.hpp"
#include "core/config/mixer_schedule.hpp"

namespace proteus::gui {
namespace {

// In a row, the next control, `width` wide, goes beside the last when it fits; in a column it takes the column's width.
void place(bool row, float width, const char* label) {
  if (!row) return;
  flow_same_line(width + label_width(label));
  ImGui::SetNextItemWidth(width);
}

}  // namespace

ScheduleChanges draw_schedule_controls(ScheduleFields& f, ScheduleLayout layout) {
  ScheduleChanges changes;
  const bool row = layout != ScheduleLayout::column;
  if (layout == ScheduleLayout::same_row) {
    place(row, ui_px(140), "E");
  } else if (row) {
    ImGui::SetNextItemWidth(ui_px(140));
  } else {
    // The slider takes what the row leaves beside its label and the note.
    ImGui::SetNextItemWidth(-(label_width("E") + ImGui::GetStyle().ItemSpacing.x + ImGui::CalcTextSize(f.E_note.c_str()).x));
  }
  changes.E = ImGui::SliderInt("E", &f.E, 1, f.max_E);
  if (!f.E_note.empty()) {
    ImGui::SameLine();
    ImGui::TextDisabled("%s", f.E_note.c_str());
  }
  if (f.schedule) {
    place(row, ui_px(120), "schedule");
    changes.schedule = combo("schedule", *f.schedule, f.schedules);
    if (f.power && *f.schedule == memory::ScheduleType::power) {
      // A row is short: the exponent is p there, as the paper writes it.
      const char* label = row ? "p" : "power";
      place(row, ui_px(140), label);
      float p = static_cast<float>(*f.power);
      if (ImGui::SliderFloat(label, &p, 0.25f, 4.0f, "%.2f")) f.power = p, changes.power = true;
    }
  }
  if (f.horizon == HorizonControl::auto_or_number) {
    if (row) flow_same_line(horizon_input_width("horizon N", f.auto_N));
    changes.N = horizon_input("horizon N", f.N, f.auto_N);
  } else if (f.horizon == HorizonControl::slider) {
    place(row, ui_px(140), "N");
    changes.N = ImGui::SliderInt("N", &f.N, 1, f.max_N);
  }
  return changes;
}

bool draw_schedule_controls(ExperimentEditor& ed, ScheduleLayout layout) {
  const auto& c = ed.config();
  const auto& m = c.model.mixer;
  const int D = int(config::mixer_state_size(m));
  ScheduleFields f;
  f.E = m.E, f.max_E = std::min(D, 64);
  if (layout == ScheduleLayout::column) f.E_note = "of D=" + std::to_string(D);
  f.schedule = m.schedule.type, f.power = m.schedule.power;
  f.horizon = HorizonControl::auto_or_number, f.N = m.N, f.auto_N = c.data.seq_len;
  const auto changes = draw_schedule_controls(f, layout);
  if (changes.E) ed.set_E(f.E);
  if (changes.schedule) ed.set_schedule_type(*f.schedule);
  if (changes.power) ed.set_schedule_power(*f.power);
  if (changes.N) ed.set_N(f.N);
  return changes.any();
}

}  // namespace proteus::gui
