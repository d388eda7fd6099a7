#include "core/eval/line_fit.hpp"

#include <cmath>
#include <set>
#include <stdexcept>

#include "core/eval/statistics.hpp"

namespace proteus::eval {

LineFit fit_line(const std::vector<double>& x, const std::vector<double>& y, bool log) {
  if (x.size() != y.size()) throw std::invalid_argument("fit_line: x and y hold different numbers of values");
  const std::set<double> distinct(x.begin(), x.end());
  if (distinct.size() < 2) throw std::invalid_argument("fit_line: needs two or more distinct x values");
  if (log && *distinct.begin() <= 0) throw std::invalid_argument("fit_line: a log axis needs x > 0");
  const auto axis = [&](double v) { return log ? std::log2(v) : v; };
  const double n = static_cast<double>(x.size());
  double su = 0, sy = 0;
  for (size_t i = 0; i < x.size(); ++i) su += axis(x[i]), sy += y[i];
  const double ubar = su / n, ybar = sy / n;
  double suu = 0, suy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    suu += (axis(x[i]) - ubar) * (axis(x[i]) - ubar);
    suy += (axis(x[i]) - ubar) * (y[i] - ybar);
  }
  LineFit f;
  f.points = static_cast<int>(x.size());
  f.log_x = log;
  f.slope = suy / suu;
  f.intercept = ybar - f.slope * ubar;
  if (f.points > 2) {
    double sse = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      const double r = y[i] - (f.intercept + f.slope * axis(x[i]));
      sse += r * r;
    }
    const double half = t_quantile(0.95, f.points - 2) * std::sqrt(sse / (n - 2) / suu);
    f.slope_lo = f.slope - half;
    f.slope_hi = f.slope + half;
  } else {
    f.slope_lo = f.slope_hi = std::nan("");
  }
  const double u0 = -f.intercept / f.slope, x0 = log ? std::exp2(u0) : u0;
  // A slope of rounding size puts the crossing past double's range (or at x = 0 on a log axis): flat.
  f.zero_x = f.slope != 0 && std::isfinite(x0) && (!log || x0 > 0) ? x0 : std::nan("");
  // A crossing at an end point is inside even when rounding puts it a hair beyond.
  const double slack = 1e-9 * (*distinct.rbegin() - *distinct.begin());
  f.zero_inside = f.zero_x >= *distinct.begin() - slack && f.zero_x <= *distinct.rbegin() + slack;
  return f;
}

}  // namespace proteus::eval
