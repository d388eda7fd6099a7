// The left column's Save button, its Save as (right-click on Save) and their questions: both write
// where LabSession::save_target says (the user's experiments folder for a new name or a shipped
// preset, never /usr/share) and ask first where LabSession::save_asks_first says (a file this
// window did not write); the save leaves the path field (editor.controls) naming the file written.
#pragma once

namespace proteus::gui {

class LabApp;
void draw_save_buttons(LabApp& app);

}  // namespace proteus::gui
