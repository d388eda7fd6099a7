// Counting what a box hides: whole segments against the box (Liang and Barsky's clipping), so a
// long segment of a few-point line is seen where samples along it would miss the box.
#include "core/figures/legend_placement.hpp"

#include <algorithm>

#include "core/figures/mark_sizes.hpp"

namespace proteus::figures {
namespace {

Box inflated(const Box& b, double by) { return {b.x - by, b.y - by, b.w + 2 * by, b.h + 2 * by}; }

// A series' markers, segments and error bars that meet r.
int series_hidden(const Series& s, const AxisMap& x, const AxisMap& y, const Box& r) {
  auto usable = [&](double u, double v) { return x.usable(u) && y.usable(v); };
  auto at = [&](double u, double v) { return Point{x.to_page(u), y.to_page(v)}; };
  int n = 0;
  const size_t m = std::min(s.x.size(), s.y.size());
  for (size_t i = 0; i < m; ++i) {
    if (!usable(s.x[i], s.y[i])) continue;
    const Point a = at(s.x[i], s.y[i]);
    n += inflated(r, marker_radius(s.width)).contains(a);
    if (i + 1 < m && usable(s.x[i + 1], s.y[i + 1])) n += segment_meets_box(a, at(s.x[i + 1], s.y[i + 1]), r);
  }
  if (!s.error_bars) return n;
  for (size_t i = 0; i < std::min({s.x.size(), s.lo.size(), s.hi.size()}); ++i)
    if (usable(s.x[i], s.lo[i]) && y.usable(s.hi[i]))
      n += segment_meets_box(at(s.x[i], s.lo[i]), at(s.x[i], s.hi[i]), inflated(r, error_bar_cap(s.width)));
  return n;
}

// A band's upper and lower edges and its span at each point that meet r.
int band_hidden(const Series& s, const AxisMap& x, const AxisMap& y, const Box& r) {
  if (s.error_bars) return 0;
  auto usable = [&](size_t i) { return x.usable(s.x[i]) && y.usable(s.lo[i]) && y.usable(s.hi[i]); };
  auto at = [&](double u, double v) { return Point{x.to_page(u), y.to_page(v)}; };
  int n = 0;
  const size_t m = std::min({s.x.size(), s.lo.size(), s.hi.size()});
  for (size_t i = 0; i < m; ++i) {
    if (!usable(i)) continue;
    const Point lo = at(s.x[i], s.lo[i]), hi = at(s.x[i], s.hi[i]);
    n += segment_meets_box(lo, hi, r);
    if (i + 1 < m && usable(i + 1))
      n += segment_meets_box(hi, at(s.x[i + 1], s.hi[i + 1]), r) + segment_meets_box(lo, at(s.x[i + 1], s.lo[i + 1]), r);
  }
  return n;
}

}  // namespace

bool segment_meets_box(Point a, Point b, const Box& r) {
  double t0 = 0, t1 = 1;
  const double dx = b.x - a.x, dy = b.y - a.y;
  const double p[4] = {-dx, dx, -dy, dy};
  const double q[4] = {a.x - r.x, r.x + r.w - a.x, a.y - r.y, r.y + r.h - a.y};
  for (int i = 0; i < 4; ++i) {
    if (p[i] == 0) {
      if (q[i] < 0) return false;  // parallel to this side and outside it
      continue;
    }
    const double t = q[i] / p[i];
    if (p[i] < 0) t0 = std::max(t0, t);
    else t1 = std::min(t1, t);
    if (t0 > t1) return false;
  }
  return true;
}

HiddenMarks hidden_by(const Figure& f, const AxisMap& x, const AxisMap& y, const Box& r) {
  HiddenMarks h;
  for (const auto& s : f.series) {
    // Guides (the training length, a ratio of 1) are no data: hiding a stretch of one hides none.
    (s.name.empty() ? h.others : h.data) += series_hidden(s, x, y, r);
    h.others += band_hidden(s, x, y, r);
  }
  return h;
}

}  // namespace proteus::figures
