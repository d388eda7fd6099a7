// The content check's view side: each view registers the grids, plot areas and colour bars it
// draws (with the part of the screen its window shows and whether that window scrolls), and the
// scripted run (--check-content) or a test asks, after the frame, which are cut or squeezed
// (app/gui/state/content_fit.hpp). Like ImGui's own context, the register is one per process:
// the views that draw cells and figures are called from many panels that know no app.
// LabApp::frame() begins each frame's register.
#pragma once
#include <imgui.h>

#include <string>
#include <vector>

#include "app/gui/state/content_fit.hpp"

namespace proteus::gui {

// Forgets the last frame's content (called at the start of each frame).
void begin_content_frame();
// `min`..`max` on screen, in the current window, read at `readable_px` (0: no size to check).
void register_content(ContentKind kind, const std::string& name, ImVec2 min, ImVec2 max, float readable_px);
// What this frame registered so far.
const std::vector<DrawnContent>& drawn_content();

}  // namespace proteus::gui
