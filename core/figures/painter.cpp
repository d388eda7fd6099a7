// The cairo file painter: lays a Figure out in points (title and notes on top, framed plot area,
// ticks outward, axis labels, colour bar at the right, legend in the emptiest corner) and paints
// it on an image (PNG), SVG or PDF surface.
#include "core/figures/painter.hpp"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>
#include <fontconfig/fontconfig.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <numbers>
#include <tuple>
#include <stdexcept>

#include "core/common/input_error.hpp"
#include "core/common/atomic_file.hpp"

namespace proteus::figures {
namespace {

constexpr const char* kFont = "sans-serif";
constexpr double kPad = 6;          // outer padding
constexpr double kTick = 3.5;       // major tick length, outward
constexpr double kMinorTick = 2.0;
constexpr double kTitleSize = 10.5;
constexpr double kNoteSize = 7.5;
constexpr double kLabelSize = 9;
constexpr double kTickSize = 8;
constexpr double kLegendSize = 8;
constexpr double kCap = 0.73;       // DejaVu Sans cap height per em: aligns text by its visible top
constexpr double kBarWidth = 10;    // colour bar

struct Rect {
  double x = 0, y = 0, w = 0, h = 0;
  bool contains(double px, double py) const { return px >= x && px <= x + w && py >= y && py <= y + h; }
};

// A tick: its data position and label.
struct Tick {
  double v;
  std::string label;
};

cairo_status_t append_bytes(void* closure, const unsigned char* data, unsigned int length) {
  static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
  return CAIRO_STATUS_SUCCESS;
}

class Painter {
 public:
  Painter(cairo_t* cr, const Figure& f, double w, double h) : cr_(cr), f_(f), W_(w), H_(h) {
    // Unhinted metrics: the same layout on the image and the vector surfaces.
    cairo_font_options_t* o = cairo_font_options_create();
    cairo_font_options_set_hint_metrics(o, CAIRO_HINT_METRICS_OFF);
    cairo_font_options_set_hint_style(o, CAIRO_HINT_STYLE_NONE);
    cairo_font_options_set_antialias(o, CAIRO_ANTIALIAS_GRAY);
    cairo_set_font_options(cr_, o);
    cairo_font_options_destroy(o);
  }

  void paint() {
    cairo_set_source_rgb(cr_, 1, 1, 1);
    cairo_paint(cr_);
    std::tie(xlo_, xhi_) = x_range(f_);
    std::tie(ylo_, yhi_) = y_range(f_);
    xlog_ = f_.x.scale == Scale::log;
    ylog_ = f_.y.scale == Scale::log;
    layout();
    if (f_.heatmap) draw_cells();
    else draw_grid();
    draw_series();
    draw_frame_and_ticks();
    draw_labels();
    if (f_.heatmap) draw_colorbar();
    if (f_.legend) draw_legend();
  }

 private:
  // --- text ---------------------------------------------------------------------------------
  void font(double size, bool bold = false) {
    cairo_select_font_face(cr_, kFont, CAIRO_FONT_SLANT_NORMAL, bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr_, size);
    size_ = size;
  }
  double width(const std::string& s) {
    cairo_text_extents_t e;
    cairo_text_extents(cr_, s.c_str(), &e);
    return e.x_advance;
  }
  // ax: 0 left, 0.5 centre, 1 right; ay: 0 top of capitals, 0.5 middle, 1 baseline.
  void text(const std::string& s, double x, double y, double ax, double ay) {
    cairo_move_to(cr_, x - ax * width(s), y + (1 - ay) * kCap * size_);
    cairo_show_text(cr_, s.c_str());
  }
  // Reads bottom to top, centred on (x, y), the capitals' top towards -x.
  void vertical_text(const std::string& s, double x, double y) {
    cairo_save(cr_);
    cairo_translate(cr_, x, y);
    cairo_rotate(cr_, -std::numbers::pi / 2);
    text(s, 0, 0, 0.5, 0.5);
    cairo_restore(cr_);
  }
  void rgb(const Rgb& c, double alpha = 1) { cairo_set_source_rgba(cr_, c[0], c[1], c[2], alpha); }
  void grey(double g) { cairo_set_source_rgb(cr_, g, g, g); }

  // --- coordinates --------------------------------------------------------------------------
  static double t(double v, bool log) { return log ? (v > 0 ? std::log10(v) : -std::numeric_limits<double>::infinity()) : v; }
  double X(double v) const {
    const double a = t(xlo_, xlog_), b = t(xhi_, xlog_);
    return plot_.x + (t(v, xlog_) - a) / (b - a) * plot_.w;
  }
  double Y(double v) const {
    const double a = t(ylo_, ylog_), b = t(yhi_, ylog_);
    return plot_.y + plot_.h - (t(v, ylog_) - a) / (b - a) * plot_.h;
  }
  bool usable(double v, bool log) const { return std::isfinite(v) && (!log || v > 0); }

  // --- ticks --------------------------------------------------------------------------------
  // Cell-centre labels of a heatmap when given one per cell; else the axis's explicit ticks;
  // else nice ticks.
  std::vector<Tick> axis_ticks(const Axis& axis, double lo, double hi, int target,
                               const std::vector<std::string>* cell_labels, const std::vector<double>* edges) {
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
    if (vs.empty()) vs = ticks(lo, hi, axis.scale, target);
    const double eps = (hi - lo) * 1e-9;
    for (double v : vs)
      if (v >= std::min(lo, hi) - eps && v <= std::max(lo, hi) + eps && usable(v, axis.scale == Scale::log))
        out.push_back({v, tick_label(v)});
    return out;
  }

  // Minor ticks of a log axis: 2..9 times each decade, where they are not labelled already.
  static std::vector<double> minor_log_ticks(double lo, double hi, const std::vector<Tick>& major) {
    std::vector<double> out;
    if (!(lo > 0) || !(hi > lo)) return out;
    if (std::log10(hi) - std::log10(lo) > 12) return out;
    for (int d = static_cast<int>(std::floor(std::log10(lo))); d <= static_cast<int>(std::ceil(std::log10(hi))); ++d)
      for (int m = 1; m <= 9; ++m) {
        const double v = m * std::pow(10.0, d);
        if (v < lo || v > hi) continue;
        bool is_major = false;
        for (const auto& t : major) is_major |= std::abs(t.v - v) <= 1e-9 * v;
        if (!is_major) out.push_back(v);
      }
    return out;
  }

  // --- layout -------------------------------------------------------------------------------
  void layout() {
    const auto& hm = f_.heatmap;
    const int xtarget = std::clamp(static_cast<int>((W_ - 100) / 70), 3, 10);
    const int ytarget = std::clamp(static_cast<int>((H_ - 80) / 45), 3, 8);
    xticks_ = axis_ticks(f_.x, xlo_, xhi_, xtarget, hm ? &hm->x_tick_labels : nullptr, hm ? &hm->x_edges : nullptr);
    yticks_ = axis_ticks(f_.y, ylo_, yhi_, ytarget, hm ? &hm->y_tick_labels : nullptr, hm ? &hm->y_edges : nullptr);

    double top = kPad;
    if (!f_.title.empty()) top += kTitleSize * 1.25;
    top += f_.notes.size() * kNoteSize * 1.35;
    top += 6;

    font(kTickSize);
    double ylabel_w = 0;
    for (const auto& t : yticks_) ylabel_w = std::max(ylabel_w, width(t.label));
    double left = kPad + (f_.y.label.empty() ? 0 : kLabelSize + 5) + ylabel_w + 2 + kTick;
    double bottom = kPad + (f_.x.label.empty() ? 0 : kLabelSize * kCap + 6) + kTickSize * kCap + 3 + kTick;

    double right = kPad;
    double last_x_half = xticks_.empty() ? 0 : width(xticks_.back().label) / 2;
    if (hm) {
      cbar_ticks_.clear();
      for (double v : ticks(hm->vmin, hm->vmax, Scale::linear, 5)) cbar_ticks_.push_back({v, tick_label(v)});
      double w = 0;
      for (const auto& t : cbar_ticks_) w = std::max(w, width(t.label));
      right += 8 + kBarWidth + 3 + 2 + w + (hm->colorbar_label.empty() ? 0 : 5 + kLabelSize);
    } else {
      right += std::max(0.0, last_x_half - kPad + 2);
    }
    plot_ = {left, top, std::max(10.0, W_ - left - right), std::max(10.0, H_ - top - bottom)};
  }

  // --- parts --------------------------------------------------------------------------------
  void clip_to_plot() {
    cairo_rectangle(cr_, plot_.x, plot_.y, plot_.w, plot_.h);
    cairo_clip(cr_);
  }

  void draw_grid() {
    cairo_save(cr_);
    clip_to_plot();
    grey(0.9);
    cairo_set_line_width(cr_, 0.5);
    for (const auto& t : xticks_) {
      const double x = X(t.v);
      cairo_move_to(cr_, x, plot_.y);
      cairo_line_to(cr_, x, plot_.y + plot_.h);
    }
    for (const auto& t : yticks_) {
      const double y = Y(t.v);
      cairo_move_to(cr_, plot_.x, y);
      cairo_line_to(cr_, plot_.x + plot_.w, y);
    }
    cairo_stroke(cr_);
    cairo_restore(cr_);
  }

  Rgb cell_colour(const Heatmap& h, double v) const {
    const double span = h.vmax - h.vmin;
    return colormap(h.colormap, span != 0 ? (v - h.vmin) / span : 0.5);
  }

  void draw_cells() {
    const auto& h = *f_.heatmap;
    if (h.rows <= 0 || h.cols <= 0 || h.x_edges.size() != static_cast<size_t>(h.cols) + 1 ||
        h.y_edges.size() != static_cast<size_t>(h.rows) + 1 || h.values.size() != static_cast<size_t>(h.rows) * h.cols)
      return;
    cairo_save(cr_);
    clip_to_plot();
    // Crisp cell edges on the image; vector surfaces ignore it.
    cairo_set_antialias(cr_, CAIRO_ANTIALIAS_NONE);
    for (int r = 0; r < h.rows; ++r) {
      if (!usable(h.y_edges[r], ylog_) || !usable(h.y_edges[r + 1], ylog_)) continue;
      const double y0 = Y(h.y_edges[r]), y1 = Y(h.y_edges[r + 1]);
      for (int c = 0; c < h.cols;) {
        const double v = h.values[static_cast<size_t>(r) * h.cols + c];
        int end = c + 1;
        // Equal neighbours in a row become one rectangle: an activation map is a few runs.
        while (end < h.cols && h.values[static_cast<size_t>(r) * h.cols + end] == v) ++end;
        if (std::isfinite(v) && usable(h.x_edges[c], xlog_) && usable(h.x_edges[end], xlog_)) {
          const double x0 = X(h.x_edges[c]), x1 = X(h.x_edges[end]);
          rgb(cell_colour(h, v));
          cairo_rectangle(cr_, std::min(x0, x1), std::min(y0, y1), std::abs(x1 - x0), std::abs(y1 - y0));
          cairo_fill(cr_);
        }
        c = end;
      }
    }
    cairo_set_antialias(cr_, CAIRO_ANTIALIAS_DEFAULT);
    if (h.annotate) annotate_cells(h);
    cairo_restore(cr_);
  }

  void annotate_cells(const Heatmap& h) {
    char buf[32];
    for (int r = 0; r < h.rows; ++r)
      for (int c = 0; c < h.cols; ++c) {
        const double v = h.values[static_cast<size_t>(r) * h.cols + c];
        if (!std::isfinite(v)) continue;
        if (!usable(h.x_edges[c], xlog_) || !usable(h.x_edges[c + 1], xlog_) || !usable(h.y_edges[r], ylog_) ||
            !usable(h.y_edges[r + 1], ylog_))
          continue;
        const double x0 = X(h.x_edges[c]), x1 = X(h.x_edges[c + 1]), y0 = Y(h.y_edges[r]), y1 = Y(h.y_edges[r + 1]);
        const double cw = std::abs(x1 - x0), ch = std::abs(y1 - y0);
        const bool whole = std::abs(v - std::round(v)) < 1e-9 || std::abs(v) >= 10;
        std::snprintf(buf, sizeof buf, whole ? "%.0f" : "%.2g", v);
        font(std::min(7.5, ch * 0.5));
        if (size_ < 4 || width(buf) > cw - 2) continue;  // too small to read: the colour says it
        const Rgb col = cell_colour(h, v);
        const double lum = 0.2126 * col[0] + 0.7152 * col[1] + 0.0722 * col[2];
        grey(lum < 0.45 ? 1.0 : 0.0);
        text(buf, (x0 + x1) / 2, (y0 + y1) / 2, 0.5, 0.5);
      }
  }

  void draw_series() {
    cairo_save(cr_);
    clip_to_plot();
    cairo_set_line_join(cr_, CAIRO_LINE_JOIN_ROUND);
    cairo_set_line_cap(cr_, CAIRO_LINE_CAP_BUTT);
    for (const auto& s : f_.series) {
      const size_t n = std::min(s.x.size(), s.y.size());
      rgb(s.color);
      cairo_set_line_width(cr_, s.width);
      if (s.dashed) {
        const double d[] = {3.5 + s.width, 2.0 + s.width};
        cairo_set_dash(cr_, d, 2, 0);
      } else {
        cairo_set_dash(cr_, nullptr, 0, 0);
      }
      bool pen = false;
      for (size_t i = 0; i < n; ++i) {
        if (!usable(s.x[i], xlog_) || !usable(s.y[i], ylog_)) {
          pen = false;  // a gap in the data is a gap in the line
          continue;
        }
        if (pen) cairo_line_to(cr_, X(s.x[i]), Y(s.y[i]));
        else cairo_move_to(cr_, X(s.x[i]), Y(s.y[i]));
        pen = true;
      }
      cairo_stroke(cr_);
      cairo_set_dash(cr_, nullptr, 0, 0);
      if (s.markers || n == 1) {
        for (size_t i = 0; i < n; ++i) {
          if (!usable(s.x[i], xlog_) || !usable(s.y[i], ylog_)) continue;
          cairo_new_sub_path(cr_);
          cairo_arc(cr_, X(s.x[i]), Y(s.y[i]), 1.6 + 0.4 * s.width, 0, 2 * std::numbers::pi);
        }
        cairo_fill(cr_);
      }
    }
    cairo_restore(cr_);
  }

  void draw_frame_and_ticks() {
    grey(0);
    cairo_set_line_width(cr_, 0.8);
    cairo_rectangle(cr_, plot_.x, plot_.y, plot_.w, plot_.h);
    cairo_stroke(cr_);

    cairo_set_line_width(cr_, 0.6);
    const double xb = plot_.y + plot_.h;
    for (const auto& t : xticks_) {
      cairo_move_to(cr_, X(t.v), xb);
      cairo_line_to(cr_, X(t.v), xb + kTick);
    }
    for (const auto& t : yticks_) {
      cairo_move_to(cr_, plot_.x, Y(t.v));
      cairo_line_to(cr_, plot_.x - kTick, Y(t.v));
    }
    const auto& hm = f_.heatmap;
    if (xlog_ && !(hm && !hm->x_tick_labels.empty()) && f_.x.tick_values.empty())
      for (double v : minor_log_ticks(xlo_, xhi_, xticks_)) {
        cairo_move_to(cr_, X(v), xb);
        cairo_line_to(cr_, X(v), xb + kMinorTick);
      }
    if (ylog_ && !(hm && !hm->y_tick_labels.empty()) && f_.y.tick_values.empty())
      for (double v : minor_log_ticks(ylo_, yhi_, yticks_)) {
        cairo_move_to(cr_, plot_.x, Y(v));
        cairo_line_to(cr_, plot_.x - kMinorTick, Y(v));
      }
    cairo_stroke(cr_);

    font(kTickSize);
    // Labels that would touch their neighbour are thinned to every k-th.
    int every = 1;
    for (; every < static_cast<int>(xticks_.size()); ++every) {
      bool fits = true;
      for (size_t i = every; i < xticks_.size() && fits; i += every) {
        const double gap = std::abs(X(xticks_[i].v) - X(xticks_[i - every].v));
        fits = gap > (width(xticks_[i].label) + width(xticks_[i - every].label)) / 2 + 4;
      }
      if (fits) break;
    }
    for (size_t i = 0; i < xticks_.size(); i += every) text(xticks_[i].label, X(xticks_[i].v), xb + kTick + 3, 0.5, 0);
    int yevery = 1;
    for (; yevery < static_cast<int>(yticks_.size()); ++yevery) {
      bool fits = true;
      for (size_t i = yevery; i < yticks_.size() && fits; i += yevery)
        fits = std::abs(Y(yticks_[i].v) - Y(yticks_[i - yevery].v)) > kTickSize * kCap + 3;
      if (fits) break;
    }
    for (size_t i = 0; i < yticks_.size(); i += yevery)
      text(yticks_[i].label, plot_.x - kTick - 2, Y(yticks_[i].v), 1, 0.5);
  }

  void draw_labels() {
    grey(0);
    if (!f_.x.label.empty()) {
      font(kLabelSize);
      text(f_.x.label, plot_.x + plot_.w / 2, H_ - kPad, 0.5, 1);
    }
    if (!f_.y.label.empty()) {
      font(kLabelSize);
      vertical_text(f_.y.label, kPad + kLabelSize * kCap / 2, plot_.y + plot_.h / 2);
    }
    double y = kPad;
    if (!f_.title.empty()) {
      font(kTitleSize, true);
      text(f_.title, plot_.x + plot_.w / 2, y, 0.5, 0);
      y += kTitleSize * 1.25;
    }
    font(kNoteSize);
    grey(0.35);
    for (const auto& n : f_.notes) {
      text(n, plot_.x + plot_.w / 2, y, 0.5, 0);
      y += kNoteSize * 1.35;
    }
  }

  void draw_colorbar() {
    const auto& h = *f_.heatmap;
    const Rect bar{plot_.x + plot_.w + 8, plot_.y, kBarWidth, plot_.h};
    cairo_pattern_t* p = cairo_pattern_create_linear(0, bar.y + bar.h, 0, bar.y);
    constexpr int stops = 48;
    for (int i = 0; i <= stops; ++i) {
      const Rgb c = colormap(h.colormap, static_cast<double>(i) / stops);
      cairo_pattern_add_color_stop_rgb(p, static_cast<double>(i) / stops, c[0], c[1], c[2]);
    }
    cairo_rectangle(cr_, bar.x, bar.y, bar.w, bar.h);
    cairo_set_source(cr_, p);
    cairo_fill(cr_);
    cairo_pattern_destroy(p);
    grey(0);
    cairo_set_line_width(cr_, 0.6);
    cairo_rectangle(cr_, bar.x, bar.y, bar.w, bar.h);
    const double span = h.vmax - h.vmin;
    auto at = [&](double v) { return bar.y + bar.h - (span != 0 ? (v - h.vmin) / span : 0.5) * bar.h; };
    for (const auto& t : cbar_ticks_) {
      cairo_move_to(cr_, bar.x + bar.w, at(t.v));
      cairo_line_to(cr_, bar.x + bar.w + 3, at(t.v));
    }
    cairo_stroke(cr_);
    font(kTickSize);
    double w = 0;
    for (const auto& t : cbar_ticks_) {
      text(t.label, bar.x + bar.w + 5, at(t.v), 0, 0.5);
      w = std::max(w, width(t.label));
    }
    if (!h.colorbar_label.empty()) {
      font(kLabelSize);
      vertical_text(h.colorbar_label, bar.x + bar.w + 5 + w + 5 + kLabelSize * kCap / 2, bar.y + bar.h / 2);
    }
  }

  // How much of the data a legend box at r would hide: points and segment midpoints inside it.
  int covered(const Rect& r) const {
    int n = 0;
    for (const auto& s : f_.series) {
      const size_t m = std::min(s.x.size(), s.y.size());
      for (size_t i = 0; i < m; ++i) {
        if (!usable(s.x[i], xlog_) || !usable(s.y[i], ylog_)) continue;
        const double px = X(s.x[i]), py = Y(s.y[i]);
        n += r.contains(px, py);
        if (i + 1 < m && usable(s.x[i + 1], xlog_) && usable(s.y[i + 1], ylog_))
          for (double k : {0.25, 0.5, 0.75})
            n += r.contains(px + k * (X(s.x[i + 1]) - px), py + k * (Y(s.y[i + 1]) - py));
      }
    }
    return n;
  }

  void draw_legend() {
    std::vector<const Series*> entries;
    for (const auto& s : f_.series)
      if (!s.name.empty()) entries.push_back(&s);
    if (entries.empty()) return;
    font(kLegendSize);
    constexpr double row = 11, sample = 18, inset = 5, pad = 5;
    double tw = 0;
    for (const auto* s : entries) tw = std::max(tw, width(s->name));
    const double bw = pad + sample + 4 + tw + pad, bh = entries.size() * row + 2 * 3;
    const Rect candidates[] = {
        {plot_.x + plot_.w - inset - bw, plot_.y + inset, bw, bh},               // upper right
        {plot_.x + inset, plot_.y + inset, bw, bh},                              // upper left
        {plot_.x + plot_.w - inset - bw, plot_.y + plot_.h - inset - bh, bw, bh},  // lower right
        {plot_.x + inset, plot_.y + plot_.h - inset - bh, bw, bh},               // lower left
    };
    Rect best = candidates[0];
    int best_n = std::numeric_limits<int>::max();
    for (const auto& c : candidates)
      if (const int n = covered(c); n < best_n) {
        best = c;
        best_n = n;
      }
    cairo_set_source_rgba(cr_, 1, 1, 1, 0.88);
    cairo_rectangle(cr_, best.x, best.y, best.w, best.h);
    cairo_fill_preserve(cr_);
    grey(0.75);
    cairo_set_line_width(cr_, 0.5);
    cairo_stroke(cr_);
    for (size_t i = 0; i < entries.size(); ++i) {
      const Series& s = *entries[i];
      const double cy = best.y + 3 + row * (i + 0.5);
      const double x0 = best.x + pad;
      rgb(s.color);
      cairo_set_line_width(cr_, s.width);
      if (s.dashed) {
        const double d[] = {3.5 + s.width, 2.0 + s.width};
        cairo_set_dash(cr_, d, 2, 0);
      }
      cairo_move_to(cr_, x0, cy);
      cairo_line_to(cr_, x0 + sample, cy);
      cairo_stroke(cr_);
      cairo_set_dash(cr_, nullptr, 0, 0);
      if (s.markers) {
        cairo_arc(cr_, x0 + sample / 2, cy, 1.6 + 0.4 * s.width, 0, 2 * std::numbers::pi);
        cairo_fill(cr_);
      }
      grey(0);
      text(s.name, x0 + sample + 4, cy, 0, 0.5);
    }
  }

  cairo_t* cr_;
  const Figure& f_;
  double W_, H_;
  double size_ = 10;
  double xlo_ = 0, xhi_ = 1, ylo_ = 0, yhi_ = 1;
  bool xlog_ = false, ylog_ = false;
  Rect plot_;
  std::vector<Tick> xticks_, yticks_, cbar_ticks_;
};

void check(cairo_status_t s, const char* what) {
  if (s != CAIRO_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cairo: ") + what + ": " + cairo_status_to_string(s));
}

#if defined(__SANITIZE_ADDRESS__)
#define PROTEUS_LEAK_CHECKED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PROTEUS_LEAK_CHECKED 1
#endif
#endif

// Under a leak checker, cairo's and fontconfig's process-wide caches (font faces, the font
// configuration) are freed at exit, so that only real leaks are reported; it runs before the
// checker's own exit hook, which was registered first. Only the painter uses cairo here.
void release_font_caches_at_exit() {
#if defined(PROTEUS_LEAK_CHECKED)
  static std::once_flag once;
  std::call_once(once, [] {
    std::atexit([] {
      cairo_debug_reset_static_data();
      FcFini();
    });
  });
#endif
}

using SurfacePtr = std::unique_ptr<cairo_surface_t, decltype(&cairo_surface_destroy)>;
using ContextPtr = std::unique_ptr<cairo_t, decltype(&cairo_destroy)>;

}  // namespace

FileFormat format_for(const std::filesystem::path& file) {
  std::string ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == ".png") return FileFormat::png;
  if (ext == ".svg") return FileFormat::svg;
  if (ext == ".pdf") return FileFormat::pdf;
  throw InputError(file.string(), "unknown figure format '" + file.extension().string() +
                                      "' (expected .png, .svg or .pdf)");
}

void check_figure_size(double width_pt, double height_pt, double png_dpi) {
  auto in = [](const char* field, double v, double lo, double hi) {
    if (!(v >= lo && v <= hi)) {
      char buf[128];
      std::snprintf(buf, sizeof buf, "must be in [%g, %g], got %g", lo, hi, v);
      throw InputError(field, buf);
    }
  };
  in("width", width_pt, 50, 5000);
  in("height", height_pt, 50, 5000);
  in("dpi", png_dpi, 10, 2400);
  const double w = std::round(width_pt * png_dpi / 72), h = std::round(height_pt * png_dpi / 72);
  // cairo's image surfaces stop at 32767 pixels a side.
  if (w > 32767 || h > 32767) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "the PNG would be %.0f x %.0f pixels (at most 32767 a side)", w, h);
    throw InputError("dpi", buf);
  }
}

std::string render_figure(const Figure& f, FileFormat format, double width_pt, double height_pt, double png_dpi) {
  check_figure_size(width_pt, height_pt, png_dpi);
  release_font_caches_at_exit();
  std::string bytes;
  if (format == FileFormat::png) {
    const double scale = png_dpi / 72;
    const long w = std::lround(width_pt * scale), h = std::lround(height_pt * scale);
    SurfacePtr surface(cairo_image_surface_create(CAIRO_FORMAT_ARGB32, static_cast<int>(w), static_cast<int>(h)),
                       cairo_surface_destroy);
    check(cairo_surface_status(surface.get()), "image surface");
    {
      ContextPtr cr(cairo_create(surface.get()), cairo_destroy);
      cairo_scale(cr.get(), scale, scale);
      Painter(cr.get(), f, width_pt, height_pt).paint();
      check(cairo_status(cr.get()), "painting");
    }
    cairo_surface_flush(surface.get());
    check(cairo_surface_write_to_png_stream(surface.get(), append_bytes, &bytes), "writing PNG");
    return bytes;
  }
  SurfacePtr surface(format == FileFormat::svg
                         ? cairo_svg_surface_create_for_stream(append_bytes, &bytes, width_pt, height_pt)
                         : cairo_pdf_surface_create_for_stream(append_bytes, &bytes, width_pt, height_pt),
                     cairo_surface_destroy);
  check(cairo_surface_status(surface.get()), format == FileFormat::svg ? "SVG surface" : "PDF surface");
  if (format == FileFormat::pdf) {
#if CAIRO_VERSION >= CAIRO_VERSION_ENCODE(1, 16, 0)
    if (!f.title.empty()) cairo_pdf_surface_set_metadata(surface.get(), CAIRO_PDF_METADATA_TITLE, f.title.c_str());
    cairo_pdf_surface_set_metadata(surface.get(), CAIRO_PDF_METADATA_CREATOR, "Proteus Lab");
#endif
  }
  {
    ContextPtr cr(cairo_create(surface.get()), cairo_destroy);
    Painter(cr.get(), f, width_pt, height_pt).paint();
    check(cairo_status(cr.get()), "painting");
  }
  cairo_surface_finish(surface.get());  // flushes the document's tail into `bytes`
  check(cairo_surface_status(surface.get()), "finishing");
  return bytes;
}

void save_figure(const Figure& f, const std::filesystem::path& file, double width_pt, double height_pt,
                 double png_dpi) {
  const FileFormat format = format_for(file);
  common::write_file_atomically(file, render_figure(f, format, width_pt, height_pt, png_dpi));
}

}  // namespace proteus::figures
