// The figure's layout in points, as a paper figure: title and notes on top, a framed plot box
// with outward ticks, axis labels (y turned), a colour bar at the right of a heatmap, and the
// legend in the corner that hides the least data (else above the plot). Rules that keep it all on
// its page: heading lines wrapped (a word too long broken), the title kept to three lines; the y
// label in the column below the heading; a colour bar never shorter than kMinColorBarHeight; data
// marks at an edge inset whole (edge_insets.hpp); the legend where it hides the least
// (legend_placement.hpp). Every number a painter needs is decided here.
#include "core/figures/layout.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <tuple>
#include <type_traits>
#include <utility>

#include "core/figures/edge_insets.hpp"
#include "core/figures/legend_placement.hpp"
#include "core/figures/mark_sizes.hpp"
#include "core/figures/text_fit.hpp"

namespace proteus::figures {
namespace {

constexpr double kPad = 6;        // outer padding
constexpr double kTick = 3.5;     // major tick length, outward
constexpr double kMinorTick = 2.0;
constexpr double kBarWidth = 10;  // colour bar
constexpr int kBarStops = 48;
constexpr size_t kTitleLines = 3;  // a longer title is shortened with "..."
constexpr double kMaxYTickShare = 0.4;  // of the page's width, for the y tick labels
// The legend: a row per entry, the series' sample line, the box's inner padding, its distance from
// the plot's frame, and the gap between entries set side by side.
constexpr double kLegendRow = 11, kLegendSample = 18, kLegendPad = 5, kLegendInset = 5, kLegendGap = 10;
constexpr Rgb kBlack{0, 0, 0};
constexpr Rgb kWhite{1, 1, 1};

Rgb grey(double g) {
  const float v = static_cast<float>(g);
  return {v, v, v};
}

// Dash lengths for a series line `width` points wide.
std::vector<double> series_dash(float width) { return {3.5 + width, 2.0 + width}; }

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
  const bool named = !axis.tick_labels.empty() && axis.tick_labels.size() == vs.size();
  const double eps = (m.hi - m.lo) * 1e-9;
  for (size_t i = 0; i < vs.size(); ++i)
    if (vs[i] >= std::min(m.lo, m.hi) - eps && vs[i] <= std::max(m.lo, m.hi) + eps && m.usable(vs[i]))
      out.push_back({vs[i], named ? axis.tick_labels[i] : tick_label(vs[i])});
  return out;
}

// On cells one unit wide centred on whole numbers (blocks, positions), only whole-number ticks:
// a map of one block is labelled 0, not -0.5, 0 and 0.5.
void keep_whole_cell_ticks(std::vector<Tick>& ticks, const std::vector<double>& edges) {
  if (edges.size() < 2) return;
  const auto halfway = [](double e) { return std::abs(e - std::floor(e) - 0.5) <= 1e-9; };
  for (size_t i = 0; i < edges.size(); ++i)
    if (std::abs(edges[i] - edges[0] - double(i)) > 1e-9 || !halfway(edges[i])) return;
  std::vector<Tick> whole;
  for (const auto& t : ticks)
    if (std::abs(t.value - std::round(t.value)) <= 1e-9) whole.push_back(t);
  if (!whole.empty()) ticks = std::move(whole);
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
    heading_right_ = w - kPad;
  }

  Layout build() {
    choose_ticks();
    wrap_heading();
    place_plot();
    if (colorbar_rises()) {
      // The bar rises beside the heading: the heading keeps left of its column.
      heading_right_ = L_.plot.x + L_.plot.w + 4;
      wrap_heading();
      place_plot();
    }
    map_axes();
    if (f_.legend) place_legend();
    if (f_.heatmap && well_formed(*f_.heatmap)) cells();
    if (!f_.heatmap) grid();
    bands();
    series();
    frame_and_ticks();
    labels();
    if (f_.heatmap) colorbar();
    if (L_.legend) draw_legend();
    return std::move(L_);
  }

 private:
  double width(const std::string& s, double size, bool bold = false) const { return measure_(s, {size, bold}); }
  TextWidth width_in(double size, bool bold = false) const {
    return [this, size, bold](const std::string& s) { return width(s, size, bold); };
  }
  template <class Shape>
  void add(Shape&& shape, bool clipped = false) {
    auto& p = L_.primitives.emplace_back();
    p.shape.emplace<std::decay_t<Shape>>(std::forward<Shape>(shape));
    p.clipped = clipped;
  }
  void text(std::string s, double x, double y, double ax, double ay, double size, Rgb color, bool bold = false) {
    add(Text{std::move(s), {x, y}, ax, ay, {size, bold}, color, false});
  }
  // The title's and the notes' lines, wrapped to the heading's width (words too long for a line
  // broken); the title keeps to kTitleLines lines, shortened with "..." past them.
  void wrap_heading() {
    const double max_w = std::max(1.0, heading_right_ - kPad);
    title_lines_.clear();
    note_lines_.clear();
    if (!f_.title.empty())
      title_lines_ = keep_lines(wrap_text(f_.title, max_w, width_in(kTitleSize, true)), kTitleLines, max_w,
                                width_in(kTitleSize, true));
    for (const auto& n : f_.notes)
      for (auto& line : wrap_text(n, max_w, width_in(kNoteSize))) note_lines_.push_back(std::move(line));
  }
  // A heading line centred over the plot, moved in where it would leave the heading's width.
  double heading_x(const std::string& line, double size, bool bold) const {
    const double w = width(line, size, bold), centre = L_.plot.x + L_.plot.w / 2;
    return std::clamp(centre, kPad + w / 2, std::max(kPad + w / 2, heading_right_ - w / 2));
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

  // Ranges and ticks (of the axes and the colour bar): independent of the page.
  void choose_ticks() {
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
    // Named ticks (a forest plot's rows) never take more than their share of a narrow page.
    for (auto& t : L_.y_ticks) t.label = shorten_text(t.label, std::max(30.0, kMaxYTickShare * W), width_in(kTickLabelSize));
    if (hm) {
      keep_whole_cell_ticks(L_.x_ticks, hm->x_edges);
      keep_whole_cell_ticks(L_.y_ticks, hm->y_edges);
    }
    if (hm) {
      L_.colorbar.emplace();
      for (double v : ticks(hm->vmin, hm->vmax, Scale::linear, 5)) L_.colorbar->ticks.push_back({v, tick_label(v)});
    }
  }

  // The y label in one line, or two (split at the space nearest its middle) set smaller where one
  // line would not fit beside the plot: never beside the heading.
  void fit_y_label(double room) {
    y_label_lines_.clear();
    y_label_size_ = kLabelSize;
    if (f_.y.label.empty()) return;
    y_label_lines_ = {f_.y.label};
    if (width(f_.y.label, kLabelSize) > room) {
      const std::string& s = f_.y.label;
      size_t best = std::string::npos;
      for (size_t i = s.find(' '); i != std::string::npos; i = s.find(' ', i + 1))
        if (best == std::string::npos || std::abs(double(i) - s.size() / 2.0) < std::abs(double(best) - s.size() / 2.0))
          best = i;
      if (best != std::string::npos) y_label_lines_ = {s.substr(0, best), s.substr(best + 1)};
    }
    double widest = 0;
    for (const auto& line : y_label_lines_) widest = std::max(widest, width(line, kLabelSize));
    if (widest > room) y_label_size_ = std::max(4.0, kLabelSize * room / widest);
  }

  // The plot box: margins make room for the heading, tick labels, axis labels and colour bar.
  void place_plot() {
    const auto& hm = f_.heatmap;
    const double W = L_.width, H = L_.height;
    const double top = kPad + title_lines_.size() * kTitleSize * 1.25 + note_lines_.size() * kNoteSize * 1.35 + 6;
    const double x_label_h = f_.x.label.empty() ? 0 : kLabelSize * kCapHeight + 6;
    fit_y_label(H - top - kPad - x_label_h);
    y_label_top_ = top;
    y_label_room_ = H - top - kPad - x_label_h;
    double ylabel_w = 0;
    for (const auto& t : L_.y_ticks) ylabel_w = std::max(ylabel_w, width(t.label, kTickLabelSize));
    const double y_label_w = y_label_lines_.empty() ? 0 : kLabelSize + 5 + (y_label_lines_.size() - 1) * y_label_size_ * 1.2;
    const double left = kPad + y_label_w + ylabel_w + 2 + kTick;
    const double bottom = kPad + x_label_h + kTickLabelSize * kCapHeight + 3 + kTick;
    double right = kPad;
    if (hm) {
      double w = 0;
      for (const auto& t : L_.colorbar->ticks) w = std::max(w, width(t.label, kTickLabelSize));
      right += 8 + kBarWidth + 3 + 2 + w + (hm->colorbar_label.empty() ? 0 : 5 + kLabelSize);
    } else {
      const double last_x_half = L_.x_ticks.empty() ? 0 : width(L_.x_ticks.back().label, kTickLabelSize) / 2;
      right += std::max(0.0, last_x_half - kPad + 2);
    }
    L_.plot = {left, top, std::max(10.0, W - left - right), std::max(10.0, H - top - bottom)};
  }

  // A colour bar needs kMinColorBarHeight: beside a shorter plot it rises above the plot's top.
  bool colorbar_rises() const { return f_.heatmap && L_.plot.h < kMinColorBarHeight && heading_right_ >= L_.width - kPad; }

  // The data <-> page maps: the data range fills the plot box less the edge insets; then the
  // ticks that fit get labels.
  void map_axes() {
    set_maps({});
    if (!f_.heatmap) {
      // Twice: the first inset shrinks the map, which moves points near an edge a little.
      Insets in = edge_insets(f_, L_.x, L_.y, L_.plot, {});
      set_maps(in);
      const Insets more = edge_insets(f_, L_.x, L_.y, L_.plot, in);
      in = {in.left + more.left, in.right + more.right, in.top + more.top, in.bottom + more.bottom};
      set_maps(in);
    }
    const auto& hm = f_.heatmap;
    const bool x_cells = hm && !hm->x_tick_labels.empty(), y_cells = hm && !hm->y_tick_labels.empty();
    L_.x_minor.clear();
    L_.y_minor.clear();
    if (L_.x.log && !x_cells && f_.x.tick_values.empty()) L_.x_minor = minor_log_ticks(L_.x.lo, L_.x.hi, L_.x_ticks);
    if (L_.y.log && !y_cells && f_.y.tick_values.empty()) L_.y_minor = minor_log_ticks(L_.y.lo, L_.y.hi, L_.y_ticks);
    thin_labels(L_.x_ticks, [&](const Tick& a, const Tick& b) {
      return std::abs(X(b.value) - X(a.value)) > (width(b.label, kTickLabelSize) + width(a.label, kTickLabelSize)) / 2 + 4;
    });
    thin_labels(L_.y_ticks, [&](const Tick& a, const Tick& b) {
      return std::abs(Y(b.value) - Y(a.value)) > kTickLabelSize * kCapHeight + 3;
    });
  }

  void set_maps(const Insets& in) {
    L_.x.origin = L_.plot.x + in.left;
    L_.x.length = L_.plot.w - in.left - in.right;
    L_.y.origin = L_.plot.y + L_.plot.h - in.bottom;
    L_.y.length = -(L_.plot.h - in.top - in.bottom);
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
        Lines bars{{}, {}, {s.color, error_bar_width(s.width), {}, false}};
        const double cap = error_bar_cap(s.width);
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
    y_label();
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

  // The y label's lines turned, centred on the plot, kept in the column below the heading.
  void y_label() {
    const double size = y_label_size_, room = y_label_room_;
    for (size_t i = 0; i < y_label_lines_.size(); ++i) {
      const double half = std::min(width(y_label_lines_[i], size), room) / 2;
      const double centre = L_.plot.y + L_.plot.h / 2;
      const double y = std::clamp(centre, y_label_top_ + half, std::max(y_label_top_ + half, y_label_top_ + room - half));
      add(Text{y_label_lines_[i], {kPad + size * kCapHeight / 2 + i * size * 1.2, y}, 0.5, 0.5, {size, false}, kBlack, true});
    }
  }

  // The bar beside the plot, kMinColorBarHeight at the least (rising above a thin plot's top), its
  // ticks labelled where the labels do not touch, and its label turned beside them.
  void colorbar() {
    const auto& h = *f_.heatmap;
    auto& cb = *L_.colorbar;
    const double bottom = L_.plot.y + L_.plot.h;
    const double bar_h = std::max(L_.plot.h, std::min(kMinColorBarHeight, bottom - kPad - kTickLabelSize * kCapHeight / 2));
    cb.bar = {L_.plot.x + L_.plot.w + 8, bottom - bar_h, kBarWidth, bar_h};
    const Box& bar = cb.bar;
    Gradient g{bar, {}};
    for (int i = 0; i <= kBarStops; ++i) g.stops.push_back(colormap(h.colormap, static_cast<double>(i) / kBarStops));
    add(std::move(g));
    const double span = h.vmax - h.vmin;
    auto at = [&](double v) { return bar.y + bar.h - (span != 0 ? (v - h.vmin) / span : 0.5) * bar.h; };
    thin_labels(cb.ticks, [&](const Tick& a, const Tick& b) { return std::abs(at(b.value) - at(a.value)) > kTickLabelSize * kCapHeight + 3; });
    Lines outline{{}, {bar}, {kBlack, 0.6, {}, false}};
    for (const auto& t : cb.ticks) outline.paths.push_back({{bar.x + bar.w, at(t.value)}, {bar.x + bar.w + 3, at(t.value)}});
    add(std::move(outline));
    double w = 0;
    for (const auto& t : cb.ticks) {
      if (t.labelled) text(t.label, bar.x + bar.w + 5, at(t.value), 0, 0.5, kTickLabelSize, kBlack);
      w = std::max(w, width(t.label, kTickLabelSize));
    }
    if (!h.colorbar_label.empty()) {
      double size = kLabelSize;
      const double y = fit_label(h.colorbar_label, L_.height - 2 * kPad, bar.y + bar.h / 2, size);
      add(Text{h.colorbar_label, {bar.x + bar.w + 5 + w + 5 + kLabelSize * kCapHeight / 2, y}, 0.5, 0.5, {size, false},
               kBlack, true});
    }
  }

  // The legend in the plot's corner that hides the least data (then the least band or guide);
  // where every corner hides some, in rows above the plot (which gives up that height), unless the
  // plot would keep under half of it.
  void place_legend() {
    std::vector<int> entries;
    for (size_t i = 0; i < f_.series.size(); ++i)
      if (!f_.series[i].name.empty()) entries.push_back(static_cast<int>(i));
    if (entries.empty()) return;
    double tw = 0;
    for (int i : entries) tw = std::max(tw, width(f_.series[i].name, kLegendSize));
    const double bw = kLegendPad + kLegendSample + 4 + tw + kLegendPad, bh = entries.size() * kLegendRow + 2 * 3;
    const Box& p = L_.plot;
    const Box candidates[] = {
        {p.x + p.w - kLegendInset - bw, p.y + kLegendInset, bw, bh},              // upper right
        {p.x + kLegendInset, p.y + kLegendInset, bw, bh},                         // upper left
        {p.x + p.w - kLegendInset - bw, p.y + p.h - kLegendInset - bh, bw, bh},  // lower right
        {p.x + kLegendInset, p.y + p.h - kLegendInset - bh, bw, bh},              // lower left
    };
    Box best = candidates[0];
    int best_n = std::numeric_limits<int>::max(), best_bands = best_n;
    for (const auto& c : candidates)
      if (const auto [n, b] = hidden_by(f_, L_.x, L_.y, c); n < best_n || (n == best_n && b < best_bands)) {
        best = c;
        best_n = n;
        best_bands = b;
      }
    if (best_n > 0 && legend_above(entries)) return;
    L_.legend = Legend{best, entries, false};
    legend_slots_.clear();
    for (size_t k = 0; k < entries.size(); ++k) legend_slots_.push_back({best.x + kLegendPad, best.y + 3 + kLegendRow * (k + 0.5)});
  }

  // The entries side by side in rows as wide as the plot, above it; false (nothing changed) where
  // the plot would keep less than half its height.
  bool legend_above(const std::vector<int>& entries) {
    const double max_row = std::max(1.0, L_.plot.w - 2 * kLegendPad);
    std::vector<Point> slots;  // relative to the box's top-left corner
    double x = 0, widest = 0;
    int row = 0;
    for (int i : entries) {
      const double w = kLegendSample + 4 + width(f_.series[i].name, kLegendSize);
      if (x > 0 && x + w > max_row) {
        ++row;
        x = 0;
      }
      slots.push_back({kLegendPad + x, 3 + kLegendRow * (row + 0.5)});
      widest = std::max(widest, x + w);
      x += w + kLegendGap;
    }
    const double bw = widest + 2 * kLegendPad, bh = (row + 1) * kLegendRow + 2 * 3;
    if (L_.plot.h - bh - 4 < L_.plot.h / 2) return false;
    const Box box{L_.plot.x + std::max(0.0, (L_.plot.w - bw) / 2), L_.plot.y, bw, bh};
    L_.plot.y += bh + 4;
    L_.plot.h -= bh + 4;
    map_axes();
    L_.legend = Legend{box, entries, true};
    legend_slots_.clear();
    for (const auto& s : slots) legend_slots_.push_back({box.x + s.x, box.y + s.y});
    return true;
  }

  void draw_legend() {
    const Box& box = L_.legend->box;
    add(Fill{box, kWhite, 0.88});
    add(Lines{{}, {box}, {grey(0.75), 0.5, {}, false}});
    for (size_t k = 0; k < L_.legend->series.size(); ++k) {
      const Series& s = f_.series[L_.legend->series[k]];
      const double x0 = legend_slots_[k].x, cy = legend_slots_[k].y;
      if (!s.lo.empty() && !s.hi.empty()) add(Fill{{x0, cy - 3.5, kLegendSample, 7}, s.color, 0.2});
      add(Lines{{{{x0, cy}, {x0 + kLegendSample, cy}}}, {}, {s.color, s.width, s.dashed ? series_dash(s.width) : std::vector<double>{}, false}});
      if (s.markers) add(Dots{{{x0 + kLegendSample / 2, cy}}, marker_radius(s.width), s.color});
      text(s.name, x0 + kLegendSample + 4, cy, 0, 0.5, kLegendSize, kBlack);
    }
  }

  const Figure& f_;
  const MeasureText& measure_;
  double heading_right_ = 0;                           // the heading's lines end left of this
  std::vector<std::string> title_lines_, note_lines_;  // wrap_heading's
  std::vector<std::string> y_label_lines_;             // fit_y_label's
  double y_label_size_ = kLabelSize, y_label_top_ = 0, y_label_room_ = 0;
  std::vector<Point> legend_slots_;                    // each entry's sample: left end, centre height
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
