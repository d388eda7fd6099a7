// The figure's layout in points, as a paper figure: title and notes on top, a framed plot box
// with outward ticks, axis labels (y turned), a colour bar at the right of a heatmap, and the
// legend in the corner that hides the least data. Every number a painter needs is decided here.
#include "core/figures/layout.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <tuple>
#include <type_traits>
#include <utility>

namespace proteus::figures {
namespace {

constexpr double kPad = 6;        // outer padding
constexpr double kTick = 3.5;     // major tick length, outward
constexpr double kMinorTick = 2.0;
constexpr double kBarWidth = 10;  // colour bar
constexpr int kBarStops = 48;
constexpr Rgb kBlack{0, 0, 0};
constexpr Rgb kWhite{1, 1, 1};

Rgb grey(double g) {
  const float v = static_cast<float>(g);
  return {v, v, v};
}

// Dash lengths for a series line `width` points wide.
std::vector<double> series_dash(float width) { return {3.5 + width, 2.0 + width}; }
double marker_radius(float width) { return 1.6 + 0.4 * width; }

// Cell-centre labels of a heatmap when given one per cell; else the axis's explicit ticks; else
// nice ticks. Only ticks inside [lo, hi] (and positive on a log axis).
std::vector<Tick> axis_ticks(const Axis& axis, const AxisMap& m, int target, const std::vector<std::string>* cell_labels,
                             const std::vector<double>* edges) {
  std::vector<Tick> out;
  if (cell_labels && edges && !cell_labels->empty() && edges->size() == cell_labels->size() + 1) {
    for (size_t i = 0; i < cell_labels->size(); ++i) {
      const double a = (*edges)[i], b = (*edges)[i + 1];
      const double c = axis.scale == Scale::log ? std::sqrt(a * b) : (a + b) / 2;
      out.push_back({c, (*cell_labels)[i]});
    }
    return out;
  }
  std::vector<double> vs = axis.tick_values;
  if (vs.empty()) vs = ticks(m.lo, m.hi, axis.scale, target);
  const double eps = (m.hi - m.lo) * 1e-9;
  for (double v : vs)
    if (v >= std::min(m.lo, m.hi) - eps && v <= std::max(m.lo, m.hi) + eps && m.usable(v))
      out.push_back({v, tick_label(v)});
  return out;
}

// Minor ticks of a log axis: 2..9 times each decade, where no major tick is.
std::vector<double> minor_log_ticks(double lo, double hi, const std::vector<Tick>& major) {
  std::vector<double> out;
  if (!(lo > 0) || !(hi > lo)) return out;
  if (std::log10(hi) - std::log10(lo) > 12) return out;
  for (int d = static_cast<int>(std::floor(std::log10(lo))); d <= static_cast<int>(std::ceil(std::log10(hi))); ++d)
    for (int m = 1; m <= 9; ++m) {
      const double v = m * std::pow(10.0, d);
      if (v < lo || v > hi) continue;
      bool is_major = false;
      for (const auto& t : major) is_major |= std::abs(t.value - v) <= 1e-9 * v;
      if (!is_major) out.push_back(v);
    }
  return out;
}

// Labels every k-th tick, the smallest k at which neighbouring labels do not touch.
template <class Fits>
void thin_labels(std::vector<Tick>& ticks, Fits fits_between) {
  size_t every = 1;
  for (; every < ticks.size(); ++every) {
    bool fits = true;
    for (size_t i = every; i < ticks.size() && fits; i += every) fits = fits_between(ticks[i - every], ticks[i]);
    if (fits) break;
  }
  for (size_t i = 0; i < ticks.size(); ++i) ticks[i].labelled = i % every == 0;
}

bool well_formed(const Heatmap& h) {
  return h.rows > 0 && h.cols > 0 && h.x_edges.size() == static_cast<size_t>(h.cols) + 1 &&
         h.y_edges.size() == static_cast<size_t>(h.rows) + 1 && h.values.size() == static_cast<size_t>(h.rows) * h.cols;
}

class Builder {
 public:
  Builder(const Figure& f, double w, double h, const MeasureText& measure) : f_(f), measure_(measure) {
    L_.width = w;
    L_.height = h;
  }

  Layout build() {
    axes_and_margins();
    if (f_.heatmap && well_formed(*f_.heatmap)) cells();
    if (!f_.heatmap) grid();
    bands();
    series();
    frame_and_ticks();
    labels();
    if (f_.heatmap) colorbar();
    if (f_.legend) legend();
    return std::move(L_);
  }

 private:
  double width(const std::string& s, double size, bool bold = false) const { return measure_(s, {size, bold}); }
  template <class Shape>
  void add(Shape&& shape, bool clipped = false) {
    auto& p = L_.primitives.emplace_back();
    p.shape.emplace<std::decay_t<Shape>>(std::forward<Shape>(shape));
    p.clipped = clipped;
  }
  void text(std::string s, double x, double y, double ax, double ay, double size, Rgb color, bool bold = false) {
    add(Text{std::move(s), {x, y}, ax, ay, {size, bold}, color, false});
  }
  // `s` broken at spaces into lines no wider than `max_w` (a word wider than that keeps a line).
  std::vector<std::string> wrap(const std::string& s, double size, bool bold, double max_w) const {
    std::vector<std::string> lines;
    std::string line, word;
    std::istringstream words(s);
    while (words >> word) {
      const std::string longer = line.empty() ? word : line + " " + word;
      if (!line.empty() && width(longer, size, bold) > max_w) {
        lines.push_back(line);
        line = word;
      } else {
        line = longer;
      }
    }
    if (!line.empty() || lines.empty()) lines.push_back(line);
    return lines;
  }
  // The title's and the notes' lines, wrapped to the page (a narrow figure keeps them whole).
  void wrap_heading() {
    const double max_w = std::max(1.0, L_.width - 2 * kPad);
    if (!f_.title.empty()) title_lines_ = wrap(f_.title, kTitleSize, true, max_w);
    for (const auto& n : f_.notes)
      for (auto& line : wrap(n, kNoteSize, false, max_w)) note_lines_.push_back(std::move(line));
  }
  // A heading line centred over the plot, moved in where it would leave the page.
  double heading_x(const std::string& line, double size, bool bold) const {
    const double w = width(line, size, bold), centre = L_.plot.x + L_.plot.w / 2;
    return std::clamp(centre, kPad + w / 2, std::max(kPad + w / 2, L_.width - kPad - w / 2));
  }
  // A label longer than the `room` along its side of the page is set smaller (`size`); returns
  // where to centre it: at `centre`, moved in where it would leave the page.
  double fit_label(const std::string& label, double room, double centre, double& size) const {
    const double w = width(label, kLabelSize);
    size = w > room ? std::max(4.0, kLabelSize * room / w) : kLabelSize;
    const double half = std::min(w * size / kLabelSize, room) / 2;
    return std::clamp(centre, kPad + half, std::max(kPad + half, kPad + room - half));
  }
  double X(double v) const { return L_.x.to_page(v); }
  double Y(double v) const { return L_.y.to_page(v); }
  bool usable(double x, double y) const { return L_.x.usable(x) && L_.y.usable(y); }

  // Ranges, ticks and the plot box: margins make room for the text around it.
  void axes_and_margins() {
    const auto& hm = f_.heatmap;
    const double W = L_.width, H = L_.height;
    std::tie(L_.x.lo, L_.x.hi) = x_range(f_);
    std::tie(L_.y.lo, L_.y.hi) = y_range(f_);
    L_.x.log = f_.x.scale == Scale::log;
    L_.y.log = f_.y.scale == Scale::log;
    const int xtarget = std::clamp(static_cast<int>((W - 100) / 70), 3, 10);
    const int ytarget = std::clamp(static_cast<int>((H - 80) / 45), 3, 8);
    L_.x_ticks = axis_ticks(f_.x, L_.x, xtarget, hm ? &hm->x_tick_labels : nullptr, hm ? &hm->x_edges : nullptr);
    L_.y_ticks = axis_ticks(f_.y, L_.y, ytarget, hm ? &hm->y_tick_labels : nullptr, hm ? &hm->y_edges : nullptr);

    wrap_heading();
    double top = kPad;
    top += title_lines_.size() * kTitleSize * 1.25;
    top += note_lines_.size() * kNoteSize * 1.35;
    top += 6;
    double ylabel_w = 0;
    for (const auto& t : L_.y_ticks) ylabel_w = std::max(ylabel_w, width(t.label, kTickLabelSize));
    const double left = kPad + (f_.y.label.empty() ? 0 : kLabelSize + 5) + ylabel_w + 2 + kTick;
    const double bottom =
        kPad + (f_.x.label.empty() ? 0 : kLabelSize * kCapHeight + 6) + kTickLabelSize * kCapHeight + 3 + kTick;
    double right = kPad;
    if (hm) {
      L_.colorbar.emplace();
      for (double v : ticks(hm->vmin, hm->vmax, Scale::linear, 5)) L_.colorbar->ticks.push_back({v, tick_label(v)});
      double w = 0;
      for (const auto& t : L_.colorbar->ticks) w = std::max(w, width(t.label, kTickLabelSize));
      right += 8 + kBarWidth + 3 + 2 + w + (hm->colorbar_label.empty() ? 0 : 5 + kLabelSize);
    } else {
      const double last_x_half = L_.x_ticks.empty() ? 0 : width(L_.x_ticks.back().label, kTickLabelSize) / 2;
      right += std::max(0.0, last_x_half - kPad + 2);
    }
    L_.plot = {left, top, std::max(10.0, W - left - right), std::max(10.0, H - top - bottom)};
    L_.x.origin = L_.plot.x;
    L_.x.length = L_.plot.w;
    L_.y.origin = L_.plot.y + L_.plot.h;
    L_.y.length = -L_.plot.h;

    const bool x_cells = hm && !hm->x_tick_labels.empty(), y_cells = hm && !hm->y_tick_labels.empty();
    if (L_.x.log && !x_cells && f_.x.tick_values.empty()) L_.x_minor = minor_log_ticks(L_.x.lo, L_.x.hi, L_.x_ticks);
    if (L_.y.log && !y_cells && f_.y.tick_values.empty()) L_.y_minor = minor_log_ticks(L_.y.lo, L_.y.hi, L_.y_ticks);
    thin_labels(L_.x_ticks, [&](const Tick& a, const Tick& b) {
      return std::abs(X(b.value) - X(a.value)) > (width(b.label, kTickLabelSize) + width(a.label, kTickLabelSize)) / 2 + 4;
    });
    thin_labels(L_.y_ticks, [&](const Tick& a, const Tick& b) {
      return std::abs(Y(b.value) - Y(a.value)) > kTickLabelSize * kCapHeight + 3;
    });
  }

  // Heatmap cells, equal neighbours in a row merged; then each cell's value where it fits.
  void cells() {
    const auto& h = *f_.heatmap;
    size_t runs = 0;
    for (size_t k = 0; k < h.values.size(); ++k) runs += k % h.cols == 0 || !(h.values[k] == h.values[k - 1]);
    L_.cells.reserve(runs);
    for (int r = 0; r < h.rows; ++r) {
      if (!L_.y.usable(h.y_edges[r]) || !L_.y.usable(h.y_edges[r + 1])) continue;
      const double y0 = Y(h.y_edges[r]), y1 = Y(h.y_edges[r + 1]);
      for (int c = 0; c < h.cols;) {
        const double v = h.values[static_cast<size_t>(r) * h.cols + c];
        int end = c + 1;
        while (end < h.cols && h.values[static_cast<size_t>(r) * h.cols + end] == v) ++end;
        if (std::isfinite(v) && L_.x.usable(h.x_edges[c]) && L_.x.usable(h.x_edges[end])) {
          const double x0 = X(h.x_edges[c]), x1 = X(h.x_edges[end]);
          const Box box{std::min(x0, x1), std::min(y0, y1), std::abs(x1 - x0), std::abs(y1 - y0)};
          L_.cells.push_back({box, r, c, end, v, heatmap_color(h, v)});
        }
        c = end;
      }
    }
    add(Cells{}, true);
    if (h.annotate) annotate_cells(h);
  }

  void annotate_cells(const Heatmap& h) {
    for (int r = 0; r < h.rows; ++r)
      for (int c = 0; c < h.cols; ++c) {
        const double v = h.values[static_cast<size_t>(r) * h.cols + c];
        if (!std::isfinite(v) || !usable(h.x_edges[c], h.y_edges[r]) || !usable(h.x_edges[c + 1], h.y_edges[r + 1]))
          continue;
        const double x0 = X(h.x_edges[c]), x1 = X(h.x_edges[c + 1]), y0 = Y(h.y_edges[r]), y1 = Y(h.y_edges[r + 1]);
        const double cw = std::abs(x1 - x0), ch = std::abs(y1 - y0);
        const std::string label = cell_label(v);
        const double size = std::min(7.5, ch * 0.5);
        if (size < 4 || width(label, size) > cw - 2) continue;  // too small to read: the colour says it
        add(Text{label, {(x0 + x1) / 2, (y0 + y1) / 2}, 0.5, 0.5, {size, false}, label_color_on(heatmap_color(h, v))},
            true);
      }
  }

  void grid() {
    Lines g{{}, {}, {grey(0.9), 0.5, {}, false}};
    for (const auto& t : L_.x_ticks) g.paths.push_back({{X(t.value), L_.plot.y}, {X(t.value), L_.plot.y + L_.plot.h}});
    for (const auto& t : L_.y_ticks) g.paths.push_back({{L_.plot.x, Y(t.value)}, {L_.plot.x + L_.plot.w, Y(t.value)}});
    add(std::move(g), true);
  }

  // Interval bands under every line: one band per stretch of usable points.
  void bands() {
    for (const auto& s : f_.series) {
      const size_t n = std::min({s.x.size(), s.lo.size(), s.hi.size()});
      if (s.error_bars) {
        // A vertical bar from lo to hi with a cap at each end, in the series' colour.
        Lines bars{{}, {}, {s.color, std::max(1.0, s.width * 0.8), {}, false}};
        const double cap = marker_radius(s.width) + 1.5;
        for (size_t i = 0; i < n; ++i) {
          if (!usable(s.x[i], s.lo[i]) || !L_.y.usable(s.hi[i])) continue;
          const double x = X(s.x[i]), lo = Y(s.lo[i]), hi = Y(s.hi[i]);
          bars.paths.push_back({{x, lo}, {x, hi}});
          bars.paths.push_back({{x - cap, lo}, {x + cap, lo}});
          bars.paths.push_back({{x - cap, hi}, {x + cap, hi}});
        }
        if (!bars.paths.empty()) add(std::move(bars), true);
        continue;
      }
      Band b{{}, {}, s.color, 0.2};
      auto flush = [&] {
        if (b.upper.size() >= 2) add(b, true);
        b.upper.clear();
        b.lower.clear();
      };
      for (size_t i = 0; i < n; ++i) {
        if (!usable(s.x[i], s.lo[i]) || !L_.y.usable(s.hi[i])) {
          flush();
          continue;
        }
        b.upper.push_back({X(s.x[i]), Y(s.hi[i])});
        b.lower.push_back({X(s.x[i]), Y(s.lo[i])});
      }
      flush();
    }
  }

  void series() {
    for (const auto& s : f_.series) {
      const size_t n = std::min(s.x.size(), s.y.size());
      Lines line{{}, {}, {s.color, s.width, s.dashed ? series_dash(s.width) : std::vector<double>{}, true}};
      Dots dots{{}, marker_radius(s.width), s.color};
      bool pen = false;
      for (size_t i = 0; i < n; ++i) {
        if (!usable(s.x[i], s.y[i])) {
          pen = false;  // a gap in the data is a gap in the line
          continue;
        }
        const Point p{X(s.x[i]), Y(s.y[i])};
        if (!pen) line.paths.emplace_back();
        line.paths.back().push_back(p);
        dots.centres.push_back(p);
        pen = true;
      }
      add(std::move(line), true);
      if (s.markers || n == 1) add(std::move(dots), true);
    }
  }

  void frame_and_ticks() {
    add(Lines{{}, {L_.plot}, {kBlack, 0.8, {}, false}});
    Lines t{{}, {}, {kBlack, 0.6, {}, false}};
    const double xb = L_.plot.y + L_.plot.h;
    for (const auto& k : L_.x_ticks) t.paths.push_back({{X(k.value), xb}, {X(k.value), xb + kTick}});
    for (const auto& k : L_.y_ticks) t.paths.push_back({{L_.plot.x, Y(k.value)}, {L_.plot.x - kTick, Y(k.value)}});
    for (double v : L_.x_minor) t.paths.push_back({{X(v), xb}, {X(v), xb + kMinorTick}});
    for (double v : L_.y_minor) t.paths.push_back({{L_.plot.x, Y(v)}, {L_.plot.x - kMinorTick, Y(v)}});
    add(std::move(t));
    for (const auto& k : L_.x_ticks)
      if (k.labelled) text(k.label, X(k.value), xb + kTick + 3, 0.5, 0, kTickLabelSize, kBlack);
    for (const auto& k : L_.y_ticks)
      if (k.labelled) text(k.label, L_.plot.x - kTick - 2, Y(k.value), 1, 0.5, kTickLabelSize, kBlack);
  }

  void labels() {
    const Box& p = L_.plot;
    double size = kLabelSize;
    if (!f_.x.label.empty()) {
      const double x = fit_label(f_.x.label, L_.width - 2 * kPad, p.x + p.w / 2, size);
      text(f_.x.label, x, L_.height - kPad, 0.5, 1, size, kBlack);
    }
    if (!f_.y.label.empty()) {
      const double y = fit_label(f_.y.label, L_.height - 2 * kPad, p.y + p.h / 2, size);
      add(Text{f_.y.label, {kPad + kLabelSize * kCapHeight / 2, y}, 0.5, 0.5, {size, false}, kBlack, true});
    }
    double y = kPad;
    for (const auto& line : title_lines_) {
      text(line, heading_x(line, kTitleSize, true), y, 0.5, 0, kTitleSize, kBlack, true);
      y += kTitleSize * 1.25;
    }
    for (const auto& line : note_lines_) {
      text(line, heading_x(line, kNoteSize, false), y, 0.5, 0, kNoteSize, grey(0.35));
      y += kNoteSize * 1.35;
    }
  }

  void colorbar() {
    const auto& h = *f_.heatmap;
    auto& cb = *L_.colorbar;
    cb.bar = {L_.plot.x + L_.plot.w + 8, L_.plot.y, kBarWidth, L_.plot.h};
    const Box& bar = cb.bar;
    Gradient g{bar, {}};
    for (int i = 0; i <= kBarStops; ++i) g.stops.push_back(colormap(h.colormap, static_cast<double>(i) / kBarStops));
    add(std::move(g));
    const double span = h.vmax - h.vmin;
    auto at = [&](double v) { return bar.y + bar.h - (span != 0 ? (v - h.vmin) / span : 0.5) * bar.h; };
    Lines outline{{}, {bar}, {kBlack, 0.6, {}, false}};
    for (const auto& t : cb.ticks) outline.paths.push_back({{bar.x + bar.w, at(t.value)}, {bar.x + bar.w + 3, at(t.value)}});
    add(std::move(outline));
    double w = 0;
    for (const auto& t : cb.ticks) {
      text(t.label, bar.x + bar.w + 5, at(t.value), 0, 0.5, kTickLabelSize, kBlack);
      w = std::max(w, width(t.label, kTickLabelSize));
    }
    if (!h.colorbar_label.empty()) {
      double size = kLabelSize;
      const double y = fit_label(h.colorbar_label, L_.height - 2 * kPad, bar.y + bar.h / 2, size);
      add(Text{h.colorbar_label, {bar.x + bar.w + 5 + w + 5 + kLabelSize * kCapHeight / 2, y}, 0.5, 0.5, {size, false},
               kBlack, true});
    }
  }

  // How much of the data a legend box at r would hide: points and segment midpoints inside it.
  int covered(const Box& r) const {
    int n = 0;
    for (const auto& s : f_.series) {
      const size_t m = std::min(s.x.size(), s.y.size());
      for (size_t i = 0; i < m; ++i) {
        if (!usable(s.x[i], s.y[i])) continue;
        const double px = X(s.x[i]), py = Y(s.y[i]);
        n += r.contains({px, py});
        if (i + 1 < m && usable(s.x[i + 1], s.y[i + 1]))
          for (double k : {0.25, 0.5, 0.75})
            n += r.contains({px + k * (X(s.x[i + 1]) - px), py + k * (Y(s.y[i + 1]) - py)});
      }
    }
    return n;
  }

  void legend() {
    std::vector<int> entries;
    for (size_t i = 0; i < f_.series.size(); ++i)
      if (!f_.series[i].name.empty()) entries.push_back(static_cast<int>(i));
    if (entries.empty()) return;
    constexpr double row = 11, sample = 18, inset = 5, pad = 5;
    double tw = 0;
    for (int i : entries) tw = std::max(tw, width(f_.series[i].name, kLegendSize));
    const double bw = pad + sample + 4 + tw + pad, bh = entries.size() * row + 2 * 3;
    const Box& p = L_.plot;
    const Box candidates[] = {
        {p.x + p.w - inset - bw, p.y + inset, bw, bh},              // upper right
        {p.x + inset, p.y + inset, bw, bh},                         // upper left
        {p.x + p.w - inset - bw, p.y + p.h - inset - bh, bw, bh},  // lower right
        {p.x + inset, p.y + p.h - inset - bh, bw, bh},              // lower left
    };
    Box best = candidates[0];
    int best_n = std::numeric_limits<int>::max();
    for (const auto& c : candidates)
      if (const int n = covered(c); n < best_n) {
        best = c;
        best_n = n;
      }
    L_.legend = Legend{best, entries};
    add(Fill{best, kWhite, 0.88});
    add(Lines{{}, {best}, {grey(0.75), 0.5, {}, false}});
    for (size_t k = 0; k < entries.size(); ++k) {
      const Series& s = f_.series[entries[k]];
      const double cy = best.y + 3 + row * (k + 0.5);
      const double x0 = best.x + pad;
      if (!s.lo.empty() && !s.hi.empty()) add(Fill{{x0, cy - 3.5, sample, 7}, s.color, 0.2});
      add(Lines{{{{x0, cy}, {x0 + sample, cy}}}, {}, {s.color, s.width, s.dashed ? series_dash(s.width) : std::vector<double>{}, false}});
      if (s.markers) add(Dots{{{x0 + sample / 2, cy}}, marker_radius(s.width), s.color});
      text(s.name, x0 + sample + 4, cy, 0, 0.5, kLegendSize, kBlack);
    }
  }

  const Figure& f_;
  const MeasureText& measure_;
  std::vector<std::string> title_lines_, note_lines_;  // wrap_heading's
  Layout L_;
};

}  // namespace

bool AxisMap::usable(double v) const { return std::isfinite(v) && (!log || v > 0); }

double AxisMap::to_page(double v) const {
  auto t = [&](double u) { return log ? (u > 0 ? std::log10(u) : -std::numeric_limits<double>::infinity()) : u; };
  const double a = t(lo), b = t(hi);
  return origin + (t(v) - a) / (b - a) * length;
}

double AxisMap::to_data(double page) const {
  const double a = log ? std::log10(lo) : lo, b = log ? std::log10(hi) : hi;
  const double u = a + (length != 0 ? (page - origin) / length : 0.0) * (b - a);
  return log ? std::pow(10.0, u) : u;
}

Layout layout_figure(const Figure& f, double width, double height, const MeasureText& measure) {
  return Builder(f, width, height, measure).build();
}

Rgb heatmap_color(const Heatmap& h, double v) {
  const double span = h.vmax - h.vmin;
  return colormap(h.colormap, span != 0 ? (v - h.vmin) / span : 0.5);
}

Rgb label_color_on(const Rgb& c) {
  const double luminance = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];  // Rec. 709
  return luminance < 0.45 ? kWhite : kBlack;
}

std::string cell_label(double v) {
  char buf[32];
  const bool whole = std::abs(v - std::round(v)) < 1e-9 || std::abs(v) >= 10;
  std::snprintf(buf, sizeof buf, whole ? "%.0f" : "%.2g", v);
  return buf;
}

}  // namespace proteus::figures
