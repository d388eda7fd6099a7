// The layout of a Figure on a page (ARCHITECTURE seam 5): axis ranges and the data <-> page
// mapping, ticks and their labels, the plot box, legend placement, heatmap cells with their
// colours and label contrast, the colour bar, interval bands, and the list of primitives that
// draws all of it. Computed once from the figure; the window's ImDrawList painter and the cairo
// file painter only draw the primitives, so what a user exports is what they saw.
// Units are points from the page's top-left corner, y down. Text is measured by the painter's
// own font engine (MeasureText); everything else is independent of the painter.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/figures/figure.hpp"

namespace proteus::figures {

struct Point {
  double x = 0, y = 0;
};

struct Box {
  double x = 0, y = 0, w = 0, h = 0;
  bool contains(Point p) const { return p.x >= x && p.x <= x + w && p.y >= y && p.y <= y + h; }
};

// Text sizes in points (a paper figure: 480 x 320 pt is one column at full width).
inline constexpr double kTitleSize = 10.5;
inline constexpr double kNoteSize = 7.5;  // the smallest: the window's presentation floor rests on it
inline constexpr double kLabelSize = 9;
inline constexpr double kTickLabelSize = 8;
inline constexpr double kLegendSize = 8;
// A colour bar is never shorter: beside a thinner plot (Explore's map strip) it rises above it.
inline constexpr double kMinColorBarHeight = 48;
// DejaVu Sans cap height per em: text is anchored by its visible top, not its line box.
inline constexpr double kCapHeight = 0.73;

struct TextStyle {
  double size = kTickLabelSize;
  bool bold = false;
};

// The advance width, in points, of `text` set in `style`: each painter measures with its own font
// engine (cairo, ImGui), which moves margins by a fraction of a point and nothing else.
using MeasureText = std::function<double(const std::string& text, const TextStyle& style)>;

// Data <-> page along one axis; a log axis maps log10 of the value linearly.
struct AxisMap {
  double lo = 0, hi = 1;    // the drawn data range
  bool log = false;
  double origin = 0;        // page position of lo
  double length = 1;        // page distance from lo to hi (negative upwards)
  bool usable(double v) const;      // finite, and positive on a log axis
  double to_page(double v) const;
  double to_data(double page) const;
};

struct Tick {
  double value = 0;
  std::string label;
  bool labelled = true;  // false where the label would touch its neighbour's (only every k-th is printed)
};

// A run of equal heatmap cells in one row, drawn as one rectangle (an activation map of thousands
// of positions is a few rectangles a row).
struct CellRun {
  Box box;
  int row = 0, col_begin = 0, col_end = 0;  // columns [col_begin, col_end)
  double value = 0;
  Rgb color{};
};

struct ColorBar {
  Box bar;
  std::vector<Tick> ticks;
};

struct Legend {
  Box box;
  std::vector<int> series;  // indices into Figure::series, in order
  bool above = false;       // in rows above the plot: every corner inside it hid data
};

// --- primitives: all a painter draws ----------------------------------------------------------
struct Stroke {
  Rgb color{};
  double width = 1;
  std::vector<double> dash;  // on, off lengths in points; empty = solid
  bool round_join = false;
};
// Polylines and rectangle outlines stroked as one path.
struct Lines {
  std::vector<std::vector<Point>> paths;
  std::vector<Box> boxes;
  Stroke stroke;
};
struct Fill {
  Box box;
  Rgb color{};
  double alpha = 1;
};
// The heatmap's cells (Layout::cells), each filled in its colour with crisp edges: no
// antialiasing, and never thinner than a device pixel. One primitive however many cells.
struct Cells {};
// A shaded interval: the area between upper and lower (same length, point i above point i).
struct Band {
  std::vector<Point> upper, lower;
  Rgb color{};
  double alpha = 0.2;
};
struct Dots {
  std::vector<Point> centres;
  double radius = 1;
  Rgb color{};
};
// ax: 0 left, 0.5 centre, 1 right; ay: 0 top of capitals, 0.5 their middle, 1 baseline.
// vertical: reads bottom to top, turned about `at`.
struct Text {
  std::string text;
  Point at;
  double ax = 0, ay = 0;
  TextStyle style;
  Rgb color{};
  bool vertical = false;
};
// A colour scale: stops evenly spaced from the bottom of the box to its top.
struct Gradient {
  Box box;
  std::vector<Rgb> stops;
};
struct Primitive {
  std::variant<Lines, Fill, Cells, Band, Dots, Text, Gradient> shape;
  bool clipped = false;  // to the plot box
};

struct Layout {
  double width = 0, height = 0;  // the page
  Box plot;
  AxisMap x, y;
  std::vector<Tick> x_ticks, y_ticks;
  std::vector<double> x_minor, y_minor;  // unlabelled log-axis ticks
  std::vector<CellRun> cells;
  std::optional<ColorBar> colorbar;
  std::optional<Legend> legend;
  std::vector<Primitive> primitives;  // everything, in painting order
};

// Lays f out on a width x height page. Never throws for odd data: what cannot be drawn (NaN,
// non-positive values on a log axis, a malformed heatmap) is left out.
Layout layout_figure(const Figure& f, double width, double height, const MeasureText& measure);

// A heatmap value's colour on its colour scale.
Rgb heatmap_color(const Heatmap& h, double v);
// Black or white, whichever reads on `background` (by its relative luminance).
Rgb label_color_on(const Rgb& background);
// The text printed in an annotated heatmap cell.
std::string cell_label(double v);

}  // namespace proteus::figures
