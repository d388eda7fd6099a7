// The UI scale in the window: the font atlas built at the scale's pixel size (sharp glyphs, not
// FontGlobalScale's stretched ones), the style's sizes scaled from a fresh style, and ui_px() for
// the panels' own pixel sizes. Building the atlas happens between frames (main.cpp then uploads
// the new texture); everything here runs headless too.
#pragma once
#include <imgui.h>

#include "core/figures/layout.hpp"

namespace proteus::gui {

// The UI font's size at scale 1, in pixels.
inline constexpr float kBaseFontPx = 15.0f;
// The presentation view's type against the UI's.
inline constexpr float kPresentationFontFactor = 1.6f;

// The steps the presentation view shrinks its text by (of the presentation font) when the window
// is small for the UI scale: large type helps a room only while the pictures stay readable.
inline constexpr float kPresentationTextSteps[] = {1.0f, 0.85f, 0.72f, 0.6f, 0.5f, 0.42f, 0.35f, 0.3f, 0.25f, 0.21f};
// A presented figure's text stays at or above this step while its plot can stay readable: there
// its smallest text (the notes, 7.5 of the 9-point labels) is 12 px per UI scale unit, 24 px at
// scale 2, read from the back of a room (issue 38).
inline constexpr float kPresentationReadableStep = 0.6f;
static_assert(kBaseFontPx * kPresentationFontFactor * kPresentationReadableStep * figures::kNoteSize / figures::kLabelSize >=
                  12.0 - 1e-3,
              "the presentation floor gives notes of 12 px per UI scale unit");

// The fonts of one scale, by role (each an atlas font).
struct UiFonts {
  ImFont* ui = nullptr;            // every panel's text (the atlas's first: ImGui's default)
  ImFont* bold = nullptr;          // figure titles
  ImFont* presentation = nullptr;  // the presentation view's text
  ImFont* presentation_bold = nullptr;
};

// Rebuilds `atlas` with the fonts of `scale` (DejaVu Sans from /usr/share/fonts when installed,
// else ImGui's built-in font at the same sizes) and builds its pixels. Not between NewFrame and
// Render: the frame's draw lists point into the atlas.
UiFonts build_ui_fonts(ImFontAtlas& atlas, float scale);

// The window's style (light, rounded frames) with every size scaled from scratch, so stepping
// the scale up and down never compounds rounding.
ImGuiStyle scaled_style(float scale);

// Both of the above into the current context: the atlas (ImGui::GetIO().Fonts) and the style.
UiFonts apply_ui_scale(float scale);

// A panel's pixel size at the current text size: `px` pixels at scale 1 (a 15-pixel font).
// Follows the presentation view's larger font too, so a pushed font widens what it labels.
inline float ui_px(float px) { return px * ImGui::GetFontSize() / kBaseFontPx; }

}  // namespace proteus::gui
