// The loaded file's grid that the controls cannot edit (ExperimentEditor's kept_variants and
// kept_sweep), read-only: its variants and sweep axes with their values, the fields they set over the controls, the run count,
// what the current mode leaves out, and a button to leave it out and edit with the controls alone.
#pragma once

namespace proteus::gui {

class LabApp;
// Draws nothing when the editor keeps no grid; true when the editor changed (the grid left out).
bool draw_kept_grid(LabApp& app);

}  // namespace proteus::gui
