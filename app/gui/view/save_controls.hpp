// The left column's Save button, its Save as (right-click on Save) and their questions: both write
// where LabApp::save_target says (the user's experiments folder for a new name or a shipped preset,
// never /usr/share), ask before replacing a file this window did not write, and leave the path
// field naming the file written, so Load reads it back.
#pragma once
#include <string>

namespace proteus::gui {

class LabApp;
struct ControlsPanelState;
// `file`: the path field's text (Load and Save use it).
void draw_save_buttons(LabApp& app, std::string& file, ControlsPanelState& state);

}  // namespace proteus::gui
