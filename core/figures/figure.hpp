// A figure as data (ARCHITECTURE seam 5): axes (linear or log), line series, an optional
// heatmap with its colour scale, labels and a legend. Two painters draw the same Figure from one
// Layout (layout.hpp): the window's ImDrawList painter (app/gui) and the file painter
// (painter.hpp: PNG, SVG, PDF through cairo), so what a user exports is what they saw. Builders
// from run results are in run_figures.hpp and figure_set.hpp. No drawing here.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace proteus::figures {

using Rgb = std::array<float, 3>;  // 0..1

enum class Scale { linear, log };

struct Axis {
  std::string label;
  Scale scale = Scale::linear;
  std::optional<double> min, max;  // unset: fitted to the data (with a margin on linear axes)
  std::vector<double> tick_values; // explicit tick positions (E = 1, 2, 4, ...); empty: ticks()
  // With tick_values, one label each in their place (a forest plot's rows); empty: the numbers.
  std::vector<std::string> tick_labels{};
};

struct Series {
  std::string name;  // the legend entry; empty = not in the legend
  std::vector<double> x, y;
  // An interval around y (a confidence interval of a mean, say), drawn as a shaded band: point i
  // spans [lo[i], hi[i]]. Empty = no band.
  std::vector<double> lo{}, hi{};
  bool error_bars = false;  // the interval as a capped bar at each point instead of a band (few points)
  Rgb color{0.12f, 0.47f, 0.71f};
  float width = 1.5f;     // line width in points
  bool dashed = false;
  bool markers = false;   // a dot at each point
};

// A grid of values drawn as coloured cells: rows run along y, columns along x.
struct Heatmap {
  int rows = 0, cols = 0;
  std::vector<double> values;      // (rows, cols), row-major; NaN = no value (drawn blank)
  std::vector<double> x_edges;     // cols + 1 cell edges along x (data coordinates)
  std::vector<double> y_edges;     // rows + 1 cell edges along y
  std::vector<std::string> x_tick_labels, y_tick_labels;  // optional: one per column / row, at cell centres
  double vmin = 0, vmax = 1;       // the colour scale's range
  std::string colormap = "viridis";  // viridis | magma | greys
  std::string colorbar_label;
  bool annotate = false;           // print each cell's value in it
};

struct Figure {
  std::string title;
  Axis x, y;
  std::vector<Series> series;
  std::optional<Heatmap> heatmap;
  bool legend = true;
  std::vector<std::string> notes;  // small text lines under the title (run names, settings)
  // The figure's own data table when its rows are not series points (the gating-effect map's
  // x, range, mean, lo, hi, n); empty: figure_csv writes the series.
  std::string data_csv;
  // Further tables the export writes beside the figure's CSV, each as <name>_<suffix>.csv (the
  // gating-effect map's trend fits): (suffix, CSV text). Empty: none.
  std::vector<std::pair<std::string, std::string>> extra_csv{};
};

// Colour of t in [0, 1] on a named map (viridis when unknown).
Rgb colormap(const std::string& name, double t);
// A palette for distinct series: the i-th colour.
Rgb palette(int i);

// Tick positions for an axis range: "nice" numbers on linear axes, powers of ten (and 2, 5
// between them when the range is short) on log axes.
std::vector<double> ticks(double lo, double hi, Scale scale, int target = 6);
std::string tick_label(double v);

// The drawn range of an axis: its explicit bounds, else the data's (series with their bands, and
// heatmap edges).
std::pair<double, double> x_range(const Figure& f);
std::pair<double, double> y_range(const Figure& f);

// The figure's data as CSV text: one row per series point (series, x, y, and lo, hi when a series
// has a band) or, for a heatmap, per cell (row, column, x_lo, x_hi, y_lo, y_hi, value).
// Unnamed series (reference lines such as a training-length marker) are not data: left out.
// A figure with its own data_csv gets that table instead.
std::string figure_csv(const Figure& f);

}  // namespace proteus::figures
