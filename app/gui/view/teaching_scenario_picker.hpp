// The Teach tab's scenario picker (core/teaching/teaching_scenarios.hpp): a list beside the default
// stream, and the chosen scenario's caption (what to look for, who wins, how often over its seeds).
#pragma once

namespace proteus::gui {

class LabApp;
// Picking a scenario loads its stream into the stepper at token 0. Which one is shown is read
// from the stepper's example (its seed aside), so no state is kept here.
void draw_teaching_scenario_picker(LabApp& app);

}  // namespace proteus::gui
