// The figure-as-data helpers both painters share: colour maps, the series palette, tick
// placement and labels, the drawn axis ranges, and the figure's data as CSV.
#include "core/figures/figure.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

#include "core/runs/run_dir.hpp"

namespace proteus::figures {
namespace {

struct Anchor {
  double t;
  Rgb c;
};

// Matplotlib's viridis and magma (van der Walt and Smith, 2015) sampled at entries
// round(i * 255 / 16) of their 256-entry tables; linear interpolation between them stays within
// about 0.01 of the full table.
const std::vector<Anchor>& viridis_anchors() {
  static const std::vector<Anchor> a = {
      {0 / 255.0, {0.267004f, 0.004874f, 0.329415f}},   {16 / 255.0, {0.282327f, 0.094955f, 0.417331f}},
      {32 / 255.0, {0.278826f, 0.175490f, 0.483397f}},  {48 / 255.0, {0.258965f, 0.251537f, 0.524736f}},
      {64 / 255.0, {0.229739f, 0.322361f, 0.545706f}},  {80 / 255.0, {0.199430f, 0.387607f, 0.554642f}},
      {96 / 255.0, {0.172719f, 0.448791f, 0.557885f}},  {112 / 255.0, {0.149039f, 0.508051f, 0.557250f}},
      {128 / 255.0, {0.127568f, 0.566949f, 0.550556f}}, {143 / 255.0, {0.120081f, 0.622161f, 0.534946f}},
      {159 / 255.0, {0.153894f, 0.680203f, 0.504172f}}, {175 / 255.0, {0.239374f, 0.735588f, 0.455688f}},
      {191 / 255.0, {0.360741f, 0.785964f, 0.387814f}}, {207 / 255.0, {0.506271f, 0.828786f, 0.300362f}},
      {223 / 255.0, {0.668054f, 0.861999f, 0.196293f}}, {239 / 255.0, {0.835270f, 0.886029f, 0.102646f}},
      {255 / 255.0, {0.993248f, 0.906157f, 0.143936f}},
  };
  return a;
}

const std::vector<Anchor>& magma_anchors() {
  static const std::vector<Anchor> a = {
      {0 / 255.0, {0.001462f, 0.000466f, 0.013866f}},   {16 / 255.0, {0.039608f, 0.031090f, 0.133515f}},
      {32 / 255.0, {0.113094f, 0.065492f, 0.276784f}},  {48 / 255.0, {0.211718f, 0.061992f, 0.418647f}},
      {64 / 255.0, {0.316654f, 0.071690f, 0.485380f}},  {80 / 255.0, {0.414709f, 0.110431f, 0.504662f}},
      {96 / 255.0, {0.512831f, 0.148179f, 0.507648f}},  {112 / 255.0, {0.613617f, 0.181811f, 0.498536f}},
      {128 / 255.0, {0.716387f, 0.214982f, 0.475290f}}, {143 / 255.0, {0.810855f, 0.252861f, 0.439305f}},
      {159 / 255.0, {0.899552f, 0.314616f, 0.391037f}}, {175 / 255.0, {0.958464f, 0.411324f, 0.360014f}},
      {191 / 255.0, {0.985693f, 0.528148f, 0.379371f}}, {207 / 255.0, {0.995810f, 0.646344f, 0.441361f}},
      {223 / 255.0, {0.997019f, 0.762398f, 0.528821f}}, {239 / 255.0, {0.992831f, 0.877168f, 0.633109f}},
      {255 / 255.0, {0.987053f, 0.991438f, 0.749504f}},
  };
  return a;
}

// ColorBrewer's 9-class Greys (matplotlib's Greys): white at 0, black at 1.
const std::vector<Anchor>& greys_anchors() {
  static const std::vector<Anchor> a = {
      {0 / 8.0, {1.0f, 1.0f, 1.0f}},
      {1 / 8.0, {0xf0 / 255.0f, 0xf0 / 255.0f, 0xf0 / 255.0f}},
      {2 / 8.0, {0xd9 / 255.0f, 0xd9 / 255.0f, 0xd9 / 255.0f}},
      {3 / 8.0, {0xbd / 255.0f, 0xbd / 255.0f, 0xbd / 255.0f}},
      {4 / 8.0, {0x96 / 255.0f, 0x96 / 255.0f, 0x96 / 255.0f}},
      {5 / 8.0, {0x73 / 255.0f, 0x73 / 255.0f, 0x73 / 255.0f}},
      {6 / 8.0, {0x52 / 255.0f, 0x52 / 255.0f, 0x52 / 255.0f}},
      {7 / 8.0, {0x25 / 255.0f, 0x25 / 255.0f, 0x25 / 255.0f}},
      {8 / 8.0, {0.0f, 0.0f, 0.0f}},
  };
  return a;
}

bool finite(double v) { return std::isfinite(v); }

// A tick step m * 10^p; multiples are formed as (k m) scaled by an exact power of ten, so
// 3 x 0.2 is the double nearest 0.6, not 0.6000000000000001.
struct Step {
  double m;
  int p;
  double at(double k) const { return p >= 0 ? k * m * std::pow(10.0, p) : k * m / std::pow(10.0, -p); }
  double value() const { return at(1); }
};

// Ticks at multiples of `step` inside [lo, hi].
double tick_count(double lo, double hi, double step) { return std::floor(hi / step) - std::ceil(lo / step) + 1; }

// The "nice" step (1, 2, 2.5, 5 times a power of ten) whose tick count is nearest the target;
// 2.5 only when clearly better, and on a tie the finer step.
Step nice_step(double lo, double hi, int target) {
  const double raw = (hi - lo) / target;
  const int p0 = static_cast<int>(std::floor(std::log10(raw)));
  Step best{0, 0};
  double best_cost = std::numeric_limits<double>::infinity();
  for (int p = p0 - 1; p <= p0 + 1; ++p)
    for (double m : {1.0, 2.0, 2.5, 5.0}) {
      const Step step{m, p};
      const double n = tick_count(lo, hi, step.value());
      if (n < 2) continue;
      const double cost = std::abs(n - target) + (m == 2.5 ? 1 : 0);
      if (cost < best_cost || (cost == best_cost && step.value() < best.value())) {
        best = step;
        best_cost = cost;
      }
    }
  return best.m > 0 ? best : Step{1, p0};
}

std::vector<double> linear_ticks(double lo, double hi, int target) {
  const Step step = nice_step(lo, hi, std::max(2, target));
  std::vector<double> out;
  // Rounding in k * step is relative to the value: ends a few ulps off still count as inside.
  const double lo_tol = 1e-12 * std::abs(lo), hi_tol = 1e-12 * std::abs(hi);
  // The cap ends the loop where k + 1 == k (a range narrower than doubles resolve at its size).
  double k = std::floor(lo / step.value()) - 1;
  for (int i = 0; i < 2000; ++i, k += 1) {
    double v = step.at(k);
    if (v > hi + hi_tol) break;
    if (v < lo - lo_tol) continue;
    if (v == 0) v = 0;  // no "-0"
    out.push_back(v);
  }
  return out;
}

std::vector<double> log_ticks(double lo, double hi, int target) {
  const double llo = std::log10(lo), lhi = std::log10(hi);
  const double eps = 1e-9;
  std::vector<double> out;
  const int d0 = static_cast<int>(std::floor(llo + eps)), d1 = static_cast<int>(std::ceil(lhi - eps));
  if (lhi - llo < 2) {
    // A short range: 1, 2, 5 in each decade.
    for (int d = d0; d <= d1; ++d)
      for (double m : {1.0, 2.0, 5.0}) {
        const double v = m * std::pow(10.0, d);
        if (v >= lo * (1 - eps) && v <= hi * (1 + eps)) out.push_back(v);
      }
  } else {
    const int n = static_cast<int>(std::floor(lhi + eps)) - static_cast<int>(std::ceil(llo - eps)) + 1;
    const int every = std::max(1, (n + std::max(1, target) - 1) / std::max(1, target));
    for (int d = static_cast<int>(std::ceil(llo - eps)); d <= static_cast<int>(std::floor(lhi + eps)); ++d)
      if (d % every == 0) out.push_back(std::pow(10.0, d));
  }
  // Inside one decade between 5 and the next 1 (3..4.5, say): linear ticks still label it.
  if (out.size() < 2) out = linear_ticks(lo, hi, std::max(2, target / 2));
  return out;
}

// Bounds of the finite (and, on log axes, positive) values.
void extend(double v, Scale s, double& lo, double& hi) {
  if (!finite(v) || (s == Scale::log && v <= 0)) return;
  lo = std::min(lo, v);
  hi = std::max(hi, v);
}

std::pair<double, double> axis_range(const Axis& axis, const std::vector<double>* series_values[], size_t n_series,
                                     const std::vector<double>* edges) {
  const double inf = std::numeric_limits<double>::infinity();
  double slo = inf, shi = -inf;  // from series: gets a margin
  for (size_t i = 0; i < n_series; ++i)
    for (double v : *series_values[i]) extend(v, axis.scale, slo, shi);
  double elo = inf, ehi = -inf;  // from heatmap edges: cells fill the plot, no margin
  if (edges)
    for (double v : *edges) extend(v, axis.scale, elo, ehi);

  const bool log = axis.scale == Scale::log;
  // With cells to fill the plot, lines (a horizon marker) only widen it where they leave the grid.
  if (slo <= shi && !(elo <= ehi)) {
    if (slo == shi) {
      // A single value: widen so it sits in the middle.
      if (log) {
        slo /= 2;
        shi *= 2;
      } else {
        const double w = slo == 0 ? 1 : std::abs(slo) * 0.5;
        slo -= w;
        shi += w;
      }
    } else if (log) {
      const double m = 0.05 * (std::log10(shi) - std::log10(slo));
      slo = std::pow(10.0, std::log10(slo) - m);
      shi = std::pow(10.0, std::log10(shi) + m);
    } else {
      const double m = 0.05 * (shi - slo);
      slo -= m;
      shi += m;
    }
  }
  double lo = std::min(slo, elo), hi = std::max(shi, ehi);
  if (!(lo <= hi)) {
    lo = log ? 1 : 0;
    hi = log ? 10 : 1;
  }
  auto valid = [&](const std::optional<double>& b) { return b && finite(*b) && (!log || *b > 0); };
  if (valid(axis.min)) lo = *axis.min;
  if (valid(axis.max)) hi = *axis.max;
  if (lo > hi) std::swap(lo, hi);
  if (lo == hi) {
    if (log) {
      lo /= 2;
      hi *= 2;
    } else {
      const double w = lo == 0 ? 1 : std::abs(lo) * 0.5;
      lo -= w;
      hi += w;
    }
  }
  return {lo, hi};
}

std::string number(double v) {
  if (!finite(v)) return "";  // missing in CSV
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

}  // namespace

Rgb colormap(const std::string& name, double t) {
  const auto& a = name == "magma" ? magma_anchors() : name == "greys" ? greys_anchors() : viridis_anchors();
  if (!finite(t)) t = 0;
  t = std::clamp(t, 0.0, 1.0);
  size_t i = 1;
  while (i + 1 < a.size() && a[i].t < t) ++i;
  const double f = (t - a[i - 1].t) / (a[i].t - a[i - 1].t);
  Rgb c;
  for (int k = 0; k < 3; ++k) c[k] = static_cast<float>(a[i - 1].c[k] + f * (a[i].c[k] - a[i - 1].c[k]));
  return c;
}

Rgb palette(int i) {
  // Okabe and Ito's colour-blind-safe set, blue and vermillion first (baseline vs Proteus);
  // yellow last, as it is faint on white.
  static const Rgb colors[] = {
      {0x00 / 255.0f, 0x72 / 255.0f, 0xB2 / 255.0f},  // blue
      {0xD5 / 255.0f, 0x5E / 255.0f, 0x00 / 255.0f},  // vermillion
      {0x00 / 255.0f, 0x9E / 255.0f, 0x73 / 255.0f},  // bluish green
      {0xE6 / 255.0f, 0x9F / 255.0f, 0x00 / 255.0f},  // orange
      {0xCC / 255.0f, 0x79 / 255.0f, 0xA7 / 255.0f},  // reddish purple
      {0x56 / 255.0f, 0xB4 / 255.0f, 0xE9 / 255.0f},  // sky blue
      {0.0f, 0.0f, 0.0f},                             // black
      {0xF0 / 255.0f, 0xE4 / 255.0f, 0x42 / 255.0f},  // yellow
  };
  constexpr int n = sizeof colors / sizeof colors[0];
  return colors[((i % n) + n) % n];
}

std::vector<double> ticks(double lo, double hi, Scale scale, int target) {
  if (!finite(lo) || !finite(hi)) return {};
  if (lo > hi) std::swap(lo, hi);
  if (scale == Scale::log) {
    if (hi <= 0) return {};
    if (lo <= 0) lo = hi * 1e-3;  // nothing non-positive exists on a log axis
  }
  if (lo == hi) return {lo};
  auto out = scale == Scale::log ? log_ticks(lo, hi, target) : linear_ticks(lo, hi, target);
  if (out.empty()) out = {lo, hi};  // a range too narrow for doubles to step through
  return out;
}

namespace {

// v to `digits` significant digits; by an exact power of ten either way, so 999.96e9 to three is 1e12 exactly.
double round_significant(double v, int digits) {
  const int places = digits - 1 - static_cast<int>(std::floor(std::log10(std::abs(v))));
  if (places >= 0) return std::round(v * std::pow(10.0, places)) / std::pow(10.0, places);
  return std::round(v / std::pow(10.0, -places)) * std::pow(10.0, -places);
}

// "12.5k", "10.25M", "2.62M": four significant digits where they hold the value exactly (a nice
// tick), else three (a run's 2621440 training bytes), with the prefix of the rounded value.
std::string with_si_prefix(double v) {
  const int digits = std::abs(round_significant(v, 4) - v) <= 1e-9 * std::abs(v) ? 4 : 3;
  const double rounded = round_significant(v, digits), a = std::abs(rounded);
  const auto [scale, prefix] = a >= 1e9 ? std::pair{1e9, "G"} : a >= 1e6 ? std::pair{1e6, "M"} : std::pair{1e3, "k"};
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g%s", digits, rounded / scale, prefix);
  return buf;
}

}  // namespace

std::string tick_label(double v) {
  if (!finite(v)) return std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
  if (v == 0) return "0";
  char buf[64];
  const double a = std::abs(v);
  if (a >= 1e4 && round_significant(a, 3) < 1e12) return with_si_prefix(v);
  if (a >= 1e4 || a < 1e-3) {  // past the G prefix, or small
    int e = static_cast<int>(std::floor(std::log10(a)));
    double m = std::round(v / std::pow(10.0, e) * 100) / 100;
    // Rounding may carry the mantissa to 10 (9.9996e3 -> 10e3): move it into the exponent.
    if (std::abs(m) >= 10) {
      m /= 10;
      ++e;
    }
    std::snprintf(buf, sizeof buf, "%.3ge%d", m, e);
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::pair<double, double> x_range(const Figure& f) {
  std::vector<const std::vector<double>*> values;
  for (const auto& s : f.series) values.push_back(&s.x);
  return axis_range(f.x, values.data(), values.size(), f.heatmap ? &f.heatmap->x_edges : nullptr);
}

std::pair<double, double> y_range(const Figure& f) {
  std::vector<const std::vector<double>*> values;
  for (const auto& s : f.series) {
    values.push_back(&s.y);
    values.push_back(&s.lo);
    values.push_back(&s.hi);
  }
  return axis_range(f.y, values.data(), values.size(), f.heatmap ? &f.heatmap->y_edges : nullptr);
}

std::string figure_csv(const Figure& f) {
  if (!f.data_csv.empty()) return f.data_csv;
  std::string out;
  const bool named = std::any_of(f.series.begin(), f.series.end(), [](const Series& s) { return !s.name.empty(); });
  if (named || !f.heatmap) {
    const bool bands = std::any_of(f.series.begin(), f.series.end(),
                                   [](const Series& s) { return !s.name.empty() && (!s.lo.empty() || !s.hi.empty()); });
    auto at = [](const std::vector<double>& v, size_t k) {
      return k < v.size() ? number(v[k]) : std::string();  // no band here: blank
    };
    std::vector<std::vector<std::string>> rows;
    for (const auto& s : f.series) {
      if (s.name.empty()) continue;
      for (size_t k = 0; k < std::min(s.x.size(), s.y.size()); ++k) {
        rows.push_back({s.name, number(s.x[k]), number(s.y[k])});
        if (bands) rows.back().insert(rows.back().end(), {at(s.lo, k), at(s.hi, k)});
      }
    }
    out += bands ? runs::format_csv({"series", "x", "y", "lo", "hi"}, rows) : runs::format_csv({"series", "x", "y"}, rows);
  }
  if (f.heatmap) {
    const auto& h = *f.heatmap;
    if (!out.empty()) out += "\n";  // a blank line between the two tables
    std::vector<std::vector<std::string>> rows;
    auto edge = [](const std::vector<double>& e, size_t i) {
      return i < e.size() ? e[i] : std::numeric_limits<double>::quiet_NaN();
    };
    for (int r = 0; r < h.rows; ++r)
      for (int c = 0; c < h.cols; ++c) {
        const size_t k = static_cast<size_t>(r) * h.cols + c;
        rows.push_back({std::to_string(r), std::to_string(c), number(edge(h.x_edges, c)), number(edge(h.x_edges, c + 1)),
                        number(edge(h.y_edges, r)), number(edge(h.y_edges, r + 1)),
                        number(k < h.values.size() ? h.values[k] : std::numeric_limits<double>::quiet_NaN())});
      }
    out += runs::format_csv({"row", "column", "x_lo", "x_hi", "y_lo", "y_hi", "value"}, rows);
  }
  return out;
}

}  // namespace proteus::figures
