// The sweep controls of the left column: which field is swept (E, or any config field, each point
// then trained with E = 1 beside the gated E) and its list of values. The seed count is the
// column's own "seeds" field. Edits go to the ExperimentEditor; true when one changed.
#pragma once

namespace proteus::gui {

class LabApp;
bool draw_sweep_controls(LabApp& app);

}  // namespace proteus::gui
