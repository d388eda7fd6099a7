// The sizes of a series' marks in points: the layout draws them, and the rules that keep them
// whole (edge_insets.hpp) and in view (legend_placement.hpp) measure the same ones.
#pragma once
#include <algorithm>

namespace proteus::figures {

// A marker dot's radius on a line `width` points wide.
inline double marker_radius(float width) { return 1.6 + 0.4 * width; }
// An error bar's stroke, and half the length of the caps at its ends.
inline double error_bar_width(float width) { return std::max(1.0, width * 0.8); }
inline double error_bar_cap(float width) { return marker_radius(width) + 1.5; }

}  // namespace proteus::figures
