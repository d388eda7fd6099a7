// A trend: the ordinary least-squares line of a quantity against an axis coordinate u (log2 x on a
// log axis, else x), y = intercept + slope * u, with a Student t interval on the slope and where
// the line is 0. Unweighted on purpose: a figure draws each point's own interval beside it; this is
// a trend, not a weighted model. The gating-effect maps' trends (core/figures) and the per-seed
// budget trend of scripts/paired_seeds.py (`proteus stats trend`) both fit here.
#pragma once
#include <vector>

namespace proteus::eval {

struct LineFit {
  int points = 0;
  double intercept = 0, slope = 0;
  double slope_lo = 0, slope_hi = 0;  // 95% Student t, points - 2 degrees of freedom; NaN with two points
  bool log_x = false;                 // u = log2 x: the slope is per doubling of x
  double zero_x = 0;                  // where the fitted line is 0; NaN when it is flat (slope 0)
  bool zero_inside = false;           // zero_x lies in the measured x range (else extrapolated)
};

// The line through (x[i], y[i]) against u = log2 x (log_x) or x. Throws std::invalid_argument when
// x and y differ in length or hold fewer than two distinct x values (or, on a log axis, an x <= 0).
LineFit fit_line(const std::vector<double>& x, const std::vector<double>& y, bool log_x);

}  // namespace proteus::eval
