// The window's painter of a figures::Figure (ARCHITECTURE seam 5): the figure's Layout
// (core/figures/layout.hpp, the same the file painter draws) painted with ImDrawList, scaled so
// its axis labels are the size of the UI's text, and a read-out of the nearest point or cell on
// hover. No layout decision is made here.
#pragma once
#include <imgui.h>

#include "core/figures/layout.hpp"

namespace proteus::gui {

// Pixels per point of the window's figures: axis labels at the UI font's size.
float figure_scale();

// Text measured with the window's fonts, in points at `scale` pixels per point.
figures::MeasureText window_text_measure(float scale);

// Paints a layout's primitives with the page's top-left corner at `origin`, `scale` pixels per
// point, on a white page.
void paint_layout(ImDrawList* dl, const figures::Layout& layout, ImVec2 origin, float scale);

// Where draw_figure put a figure on the screen.
struct DrawnFigure {
  figures::Layout layout;
  ImVec2 origin{0, 0};  // the page's top-left corner
  float scale = 1;      // pixels per point
  bool hovered = false; // the mouse is over the plot box
  ImVec2 to_screen(figures::Point p) const { return ImVec2(origin.x + float(p.x) * scale, origin.y + float(p.y) * scale); }
  float screen_x(double data_x) const { return origin.x + float(layout.x.to_page(data_x)) * scale; }
  double data_x(float screen_x) const { return layout.x.to_data((screen_x - origin.x) / scale); }
  ImVec2 plot_min() const { return to_screen({layout.plot.x, layout.plot.y}); }
  ImVec2 plot_max() const { return to_screen({layout.plot.x + layout.plot.w, layout.plot.y + layout.plot.h}); }
};

// The plot area's size, in pixels, of f laid out in a box of `size` pixels at the current font.
ImVec2 plot_area_size(const figures::Figure& f, ImVec2 size);
// `height`, or taller where f's labels would leave its plot area under the content check's
// readable size (in a view that scrolls; a squeezed plot cannot be read).
float readable_figure_height(const figures::Figure& f, float width, float height);

// Draws f in a box of `size` pixels at the cursor (advancing it), id unique in the window, with
// the hover read-out.
DrawnFigure draw_figure(const char* id, const figures::Figure& f, ImVec2 size);

}  // namespace proteus::gui
