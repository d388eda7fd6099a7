// The edge rule of the figure layout (layout.cpp): a point on an axis bound (entropy 1 on a 0..1
// axis, an explicit range's ends) would lose half its marker to the plot box's clip, so the data
// range is mapped inside the box by as much as the marks at its edges reach.
#pragma once
#include "core/figures/figure.hpp"
#include "core/figures/layout.hpp"

namespace proteus::figures {

// Page distances from each side of the plot box to where the data range starts.
struct Insets {
  double left = 0, right = 0, top = 0, bottom = 0;
};

// How much further in each side must go (beyond `current`, the insets x and y were mapped with)
// so that every mark inside the range is whole: a marker (its radius), an error bar's cap and
// ends, a line's half width; at most a quarter of the box a side. Marks outside the range stay cut.
Insets edge_insets(const Figure& f, const AxisMap& x, const AxisMap& y, const Box& plot, const Insets& current);

}  // namespace proteus::figures
