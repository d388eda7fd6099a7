// The window's painter of a figures::Figure (ARCHITECTURE seam 5) on ImDrawList: framed axes with
// ticks (linear or log, explicit tick values honoured), line series (dashed, markers), a heatmap
// with its colour bar, a legend, and a hover read-out of the nearest point or cell. The file
// painter (core/figures/painter.hpp) draws the same Figure with cairo for export.
#pragma once
#include <imgui.h>

#include "core/figures/figure.hpp"

namespace proteus::gui {

// Draws f in a box of `size` pixels at the cursor (advancing it), id unique in the window.
// Returns true while the mouse is over the plot area.
bool draw_figure(const char* id, const figures::Figure& f, ImVec2 size);

}  // namespace proteus::gui
