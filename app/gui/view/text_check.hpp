// Finds text that is cut off in a rendered frame, from its draw data: each glyph is a textured
// quad whose texture rectangle is one of the font atlas's glyphs. A glyph is cut when ImGui
// trimmed its quad to fit a frame (a label wider than its button, combo or tab: the quad shows
// only part of the glyph), or when the quad reaches past its draw command's clip rectangle (text
// running past a panel's or a figure's edge), except along an axis its window scrolls on, where
// text at the edge is scrolled off on purpose. Used by the scripted runs (--check-text) at every
// scale, and by the headless tests.
#pragma once
#include <imgui.h>

#include <string>
#include <vector>

namespace proteus::gui {

// A run of glyphs drawn on one line, in drawing order.
struct DrawnText {
  std::string window;   // the draw list's owner window
  std::string text;     // its glyphs (spaces have none: "Leave (F11)" reads "Leave(F11)")
  float x = 0, y = 0;   // the first glyph's top-left corner, in screen pixels
  float height = 0;     // the tallest glyph's height in pixels (the type's size as drawn)
  bool cut = false;     // a glyph of it is cut
};
using CutText = DrawnText;

// Every run of text in `draw_data` (after ImGui::Render) drawn with `atlas`, for the current
// context's windows (their scroll ranges).
std::vector<DrawnText> drawn_text(const ImDrawData& draw_data, const ImFontAtlas& atlas);
// The runs with a cut glyph, and (as a run naming the window) each window whose items reach
// past its right edge without a horizontal scrollbar: ImGui drops a glyph that starts past a
// clip edge, so text cut exactly between two glyphs leaves no glyph to find, but its item still
// extends the window's content.
std::vector<CutText> find_cut_text(const ImDrawData& draw_data, const ImFontAtlas& atlas);
// One line saying where: cut-off text in WINDOW at (x, y): "TEXT".
std::string describe_cut_text(const CutText& cut);

}  // namespace proteus::gui
