// The gated memory's schedule as controls, the one widget wherever it is edited (the controls
// column, Explore, the Teach tab): E, the schedule (and a power schedule's exponent) and the horizon
// N. Each caller says which of them it offers and applies what changed to its own values.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/common/name_table.hpp"
#include "core/memory/schedule.hpp"

namespace proteus::gui {

class ExperimentEditor;

// Where the horizon N is 0 = "the training length": a box ticked for auto, else the number
// (horizon_input); or, for the Teach stream, a slider from 1 to max_N.
enum class HorizonControl { none, auto_or_number, slider };

struct ScheduleFields {
  int E = 1;
  int max_E = 1;
  std::string E_note;  // beside E in a column ("of D=256")
  std::optional<memory::ScheduleType> schedule;  // no schedule combo when unset
  std::vector<memory::ScheduleType> schedules = common::choice_values<memory::ScheduleType>();
  std::optional<double> power;  // a power schedule's exponent; no slider when unset
  HorizonControl horizon = HorizonControl::none;
  int N = 0;
  int auto_N = 0;  // what N = 0 stands for (auto_or_number)
  int max_N = 0;   // the slider's top (slider)
};

struct ScheduleChanges {
  bool E = false, schedule = false, power = false, N = false;
  bool any() const { return E || schedule || power || N; }
};

// A column: each control on its own line at the column's item width. A row: the controls side
// by side at fixed widths, wrapping where the panel is narrow; on a line of its own (new_row) or
// going on after the caller's controls (same_row).
enum class ScheduleLayout { column, new_row, same_row };

// Draws the fields' controls and leaves the edited values in `f`; says which the user changed.
ScheduleChanges draw_schedule_controls(ScheduleFields& f, ScheduleLayout layout);
// The same over an experiment's mixer (E up to its state size, every schedule, N with auto), the
// changes applied through the editor; true when one changed.
bool draw_schedule_controls(ExperimentEditor& ed, ScheduleLayout layout);

}  // namespace proteus::gui
