// The content check's view side: each view registers the grids, plot areas and colour bars it
// draws (with the part of the screen its window shows and whether that window scrolls), and the
// scripted run (--check-content) or a test asks, after the frame, which are cut or squeezed
// (app/gui/state/content_fit.hpp). The register is the caller's (LabApp's display state), found
// through the current ImGui context (its io's user data): the views that draw cells and figures
// are called from many panels that know no app. LabApp::frame() begins each frame's.
#pragma once
#include <imgui.h>

#include <string>
#include <vector>

#include "app/gui/state/content_fit.hpp"

namespace proteus::gui {

// This frame's content goes to `drawn` (cleared), which must outlive the frame.
void begin_content_frame(std::vector<DrawnContent>& drawn);
// `min`..`max` on screen, in the current window, read at `readable_px` (0: no size to check);
// nothing when no frame was begun.
void register_content(ContentKind kind, const std::string& name, ImVec2 min, ImVec2 max, float readable_px);
// What this frame registered so far (nothing when no frame was begun).
const std::vector<DrawnContent>& drawn_content();

}  // namespace proteus::gui
