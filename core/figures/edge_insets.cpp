// Each drawn mark's reach from its centre, against its distance from each side of the plot box.
#include "core/figures/edge_insets.hpp"

#include <algorithm>

#include "core/figures/mark_sizes.hpp"

namespace proteus::figures {

Insets edge_insets(const Figure& f, const AxisMap& x, const AxisMap& y, const Box& p, const Insets& current) {
  Insets need;
  auto keep = [&](double px, double py, double reach_x, double reach_y) {
    if (px < p.x - 0.5 || px > p.x + p.w + 0.5 || py < p.y - 0.5 || py > p.y + p.h + 0.5) return;  // outside the range
    need.left = std::max(need.left, reach_x + 0.5 - (px - p.x));
    need.right = std::max(need.right, reach_x + 0.5 - (p.x + p.w - px));
    need.top = std::max(need.top, reach_y + 0.5 - (py - p.y));
    need.bottom = std::max(need.bottom, reach_y + 0.5 - (p.y + p.h - py));
  };
  auto usable = [&](double u, double v) { return x.usable(u) && y.usable(v); };
  for (const auto& s : f.series) {
    const size_t n = std::min(s.x.size(), s.y.size());
    size_t drawn = 0;
    for (size_t i = 0; i < n; ++i) drawn += usable(s.x[i], s.y[i]);
    // A lone point is drawn as a marker (layout.cpp), markers or not.
    const double reach = s.markers || drawn == 1 ? marker_radius(s.width) : s.width / 2.0;
    for (size_t i = 0; i < n; ++i)
      if (usable(s.x[i], s.y[i])) keep(x.to_page(s.x[i]), y.to_page(s.y[i]), reach, reach);
    if (!s.error_bars) continue;
    const double cap = error_bar_cap(s.width), half_bar = error_bar_width(s.width) / 2;
    for (size_t i = 0; i < std::min({s.x.size(), s.lo.size(), s.hi.size()}); ++i) {
      if (!usable(s.x[i], s.lo[i]) || !y.usable(s.hi[i])) continue;
      keep(x.to_page(s.x[i]), y.to_page(s.lo[i]), cap, half_bar);
      keep(x.to_page(s.x[i]), y.to_page(s.hi[i]), cap, half_bar);
    }
  }
  auto extra = [](double needed, double have, double box) { return std::clamp(needed, 0.0, std::max(0.0, box / 4 - have)); };
  return {extra(need.left, current.left, p.w), extra(need.right, current.right, p.w), extra(need.top, current.top, p.h),
          extra(need.bottom, current.bottom, p.h)};
}

}  // namespace proteus::figures
