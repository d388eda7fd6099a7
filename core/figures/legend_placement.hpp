// What a legend box would hide, for the layout's legend rule (layout.cpp): the corner that hides
// the least data wins, bands and guides breaking ties; where every corner hides data the legend
// goes above the plot.
#pragma once
#include "core/figures/figure.hpp"
#include "core/figures/layout.hpp"

namespace proteus::figures {

struct HiddenMarks {
  int data = 0;    // markers under the box, line segments and error bars crossing it (named series)
  int others = 0;  // interval bands' edges and spans, and unnamed guides' segments, crossing it
};

// What box r on the page (the figure mapped by x and y) would hide.
HiddenMarks hidden_by(const Figure& f, const AxisMap& x, const AxisMap& y, const Box& r);

// Whether the segment a-b crosses or touches box r.
bool segment_meets_box(Point a, Point b, const Box& r);

}  // namespace proteus::figures
