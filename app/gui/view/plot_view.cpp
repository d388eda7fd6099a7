#include "app/gui/view/plot_view.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

namespace proteus::gui {
namespace {

ImU32 to_u32(const figures::Rgb& c, float alpha = 1.0f) {
  return ImGui::ColorConvertFloat4ToU32(ImVec4(c[0], c[1], c[2], alpha));
}

// Data <-> pixels along one axis (log axes map log10 linearly).
struct AxisMap {
  double lo, hi;
  float p0, p1;  // pixel positions of lo and hi
  bool log;
  bool usable(double v) const { return std::isfinite(v) && (!log || v > 0); }
  double t(double v) const {
    const double a = log ? std::log10(lo) : lo, b = log ? std::log10(hi) : hi;
    const double x = log ? std::log10(v) : v;
    return b != a ? (x - a) / (b - a) : 0.5;
  }
  float px(double v) const { return p0 + static_cast<float>(t(v)) * (p1 - p0); }
  double value(float px) const {
    const double s = p1 != p0 ? (px - p0) / double(p1 - p0) : 0.0;
    const double a = log ? std::log10(lo) : lo, b = log ? std::log10(hi) : hi;
    const double x = a + s * (b - a);
    return log ? std::pow(10.0, x) : x;
  }
};

struct Tick {
  double v;
  std::string label;
};

std::vector<Tick> axis_ticks(const figures::Axis& axis, const AxisMap& m, const std::vector<std::string>* cell_labels,
                             const std::vector<double>* edges, int target) {
  std::vector<Tick> out;
  if (cell_labels && edges && !cell_labels->empty() && edges->size() == cell_labels->size() + 1) {
    // Thin out cell labels that would overlap: every k-th.
    const size_t n = cell_labels->size();
    const size_t every = std::max<size_t>(1, n / std::max(target * 2, 1));
    for (size_t i = 0; i < n; i += every) {
      const double a = (*edges)[i], b = (*edges)[i + 1];
      out.push_back({m.log ? std::sqrt(a * b) : (a + b) / 2, (*cell_labels)[i]});
    }
    return out;
  }
  std::vector<double> vs = axis.tick_values;
  if (vs.empty()) vs = figures::ticks(m.lo, m.hi, axis.scale, target);
  const double eps = std::abs(m.hi - m.lo) * 1e-9;
  for (double v : vs)
    if (v >= std::min(m.lo, m.hi) - eps && v <= std::max(m.lo, m.hi) + eps && m.usable(v))
      out.push_back({v, figures::tick_label(v)});
  return out;
}

void dashed_segment(ImDrawList* dl, ImVec2 a, ImVec2 b, ImU32 col, float w, float& phase) {
  const float dash = 6.0f, gap = 4.0f;
  const float len = std::hypot(b.x - a.x, b.y - a.y);
  if (len <= 0) return;
  const ImVec2 d((b.x - a.x) / len, (b.y - a.y) / len);
  float s = 0;
  while (s < len) {
    const float cycle = std::fmod(phase, dash + gap);
    if (cycle < dash) {
      const float e = std::min(len, s + (dash - cycle));
      dl->AddLine(ImVec2(a.x + d.x * s, a.y + d.y * s), ImVec2(a.x + d.x * e, a.y + d.y * e), col, w);
      phase += e - s;
      s = e;
    } else {
      const float e = std::min(len, s + (dash + gap - cycle));
      phase += e - s;
      s = e;
    }
  }
}

std::string number_text(double v) {
  char buf[32];
  if (std::abs(v) >= 1e4 || (std::abs(v) < 1e-3 && v != 0)) std::snprintf(buf, sizeof buf, "%.3g", v);
  else std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

// A cell one unit wide around an integer (a position, a block) is that integer; else lo..hi.
std::string cell_range_text(double lo, double hi) {
  const double mid = (lo + hi) / 2;
  if (hi - lo == 1 && mid == std::round(mid)) return number_text(mid);
  return number_text(lo) + ".." + number_text(hi);
}

}  // namespace

bool draw_figure(const char* id, const figures::Figure& f, ImVec2 size) {
  ImGui::PushID(id);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  if (size.x < 120) size.x = 120;
  if (size.y < 100) size.y = 100;
  ImGui::InvisibleButton("##plot", size);
  const bool box_hovered = ImGui::IsItemHovered();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float fh = ImGui::GetFontSize();
  const ImU32 text_col = ImGui::GetColorU32(ImGuiCol_Text);
  const ImU32 dim_col = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  const ImU32 frame_col = ImGui::GetColorU32(ImGuiCol_Border);
  const ImU32 grid_col = ImGui::GetColorU32(ImGuiCol_Border, 0.35f);
  dl->AddRectFilled(origin, ImVec2(origin.x + size.x, origin.y + size.y), ImGui::GetColorU32(ImGuiCol_FrameBg, 0.5f), 4.0f);

  // Layout: title and notes on top, the y label above the axis, tick labels left and below.
  float top = origin.y + 4;
  if (!f.title.empty()) {
    const ImVec2 ts = ImGui::CalcTextSize(f.title.c_str());
    dl->AddText(ImVec2(origin.x + (size.x - ts.x) / 2, top), text_col, f.title.c_str());
    top += fh + 2;
  }
  for (size_t i = 0; i < f.notes.size() && i < 2; ++i) {
    const ImVec2 ts = ImGui::CalcTextSize(f.notes[i].c_str());
    dl->AddText(ImVec2(origin.x + std::max(4.0f, (size.x - ts.x) / 2), top), dim_col, f.notes[i].c_str());
    top += fh + 1;
  }
  if (!f.y.label.empty()) {
    dl->AddText(ImVec2(origin.x + 6, top), dim_col, f.y.label.c_str());
    top += fh + 2;
  }
  const auto& hm = f.heatmap;
  const float colorbar_w = hm ? 56.0f : 0.0f;
  const ImVec2 p0(origin.x + 58, top + 4);
  const ImVec2 p1(origin.x + size.x - 12 - colorbar_w, origin.y + size.y - (f.x.label.empty() ? fh + 8 : 2 * fh + 10));
  if (p1.x - p0.x < 20 || p1.y - p0.y < 20) {
    ImGui::PopID();
    return false;
  }

  const auto [xlo, xhi] = figures::x_range(f);
  const auto [ylo, yhi] = figures::y_range(f);
  const AxisMap X{xlo, xhi, p0.x, p1.x, f.x.scale == figures::Scale::log};
  const AxisMap Y{ylo, yhi, p1.y, p0.y, f.y.scale == figures::Scale::log};

  const auto xt = axis_ticks(f.x, X, hm ? &hm->x_tick_labels : nullptr, hm ? &hm->x_edges : nullptr,
                             std::max(2, static_cast<int>((p1.x - p0.x) / 90)));
  const auto yt = axis_ticks(f.y, Y, hm ? &hm->y_tick_labels : nullptr, hm ? &hm->y_edges : nullptr,
                             std::max(2, static_cast<int>((p1.y - p0.y) / 40)));
  for (const auto& t : xt) {
    const float x = X.px(t.v);
    if (!hm) dl->AddLine(ImVec2(x, p0.y), ImVec2(x, p1.y), grid_col);
    dl->AddLine(ImVec2(x, p1.y), ImVec2(x, p1.y + 4), frame_col);
    const ImVec2 ts = ImGui::CalcTextSize(t.label.c_str());
    dl->AddText(ImVec2(x - ts.x / 2, p1.y + 5), text_col, t.label.c_str());
  }
  for (const auto& t : yt) {
    const float y = Y.px(t.v);
    if (!hm) dl->AddLine(ImVec2(p0.x, y), ImVec2(p1.x, y), grid_col);
    dl->AddLine(ImVec2(p0.x - 4, y), ImVec2(p0.x, y), frame_col);
    const ImVec2 ts = ImGui::CalcTextSize(t.label.c_str());
    dl->AddText(ImVec2(p0.x - 6 - ts.x, y - ts.y / 2), text_col, t.label.c_str());
  }
  if (!f.x.label.empty()) {
    const ImVec2 ts = ImGui::CalcTextSize(f.x.label.c_str());
    dl->AddText(ImVec2((p0.x + p1.x - ts.x) / 2, p1.y + fh + 8), dim_col, f.x.label.c_str());
  }

  dl->PushClipRect(p0, p1, true);
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const bool in_plot = box_hovered && mouse.x >= p0.x && mouse.x <= p1.x && mouse.y >= p0.y && mouse.y <= p1.y;
  std::string hover_text;

  if (hm && hm->rows > 0 && hm->cols > 0 && hm->values.size() == size_t(hm->rows) * hm->cols &&
      hm->x_edges.size() == size_t(hm->cols) + 1 && hm->y_edges.size() == size_t(hm->rows) + 1) {
    const double span = hm->vmax > hm->vmin ? hm->vmax - hm->vmin : 1.0;
    for (int r = 0; r < hm->rows; ++r) {
      if (!Y.usable(hm->y_edges[r]) || !Y.usable(hm->y_edges[r + 1])) continue;
      const float y0 = Y.px(hm->y_edges[r]), y1 = Y.px(hm->y_edges[r + 1]);
      for (int c = 0; c < hm->cols; ++c) {
        const double v = hm->values[size_t(r) * hm->cols + c];
        if (!X.usable(hm->x_edges[c]) || !X.usable(hm->x_edges[c + 1])) continue;
        // A run of equal cells is one rectangle: an activation map of thousands of positions stays
        // a few rectangles per row, so dragging E or N redraws at frame rate.
        int last = c;
        if (!hm->annotate && std::isfinite(v))
          while (last + 1 < hm->cols && hm->values[size_t(r) * hm->cols + last + 1] == v &&
                 X.usable(hm->x_edges[last + 2]))
            ++last;
        const float x0 = X.px(hm->x_edges[c]), x1 = X.px(hm->x_edges[last + 1]);
        const ImVec2 a(std::min(x0, x1), std::min(y0, y1)), b(std::max(x0, x1), std::max(y0, y1));
        if (std::isfinite(v)) {
          const auto col = figures::colormap(hm->colormap, std::clamp((v - hm->vmin) / span, 0.0, 1.0));
          // Cells narrower than a pixel still show: round outwards by half a pixel.
          dl->AddRectFilled(ImVec2(a.x - 0.5f, a.y), ImVec2(b.x + 0.5f, b.y), to_u32(col));
          if (hm->annotate && b.x - a.x > 28 && b.y - a.y > fh) {
            const std::string s = number_text(v);
            const ImVec2 ts = ImGui::CalcTextSize(s.c_str());
            const float lum = 0.3f * col[0] + 0.59f * col[1] + 0.11f * col[2];
            dl->AddText(ImVec2((a.x + b.x - ts.x) / 2, (a.y + b.y - ts.y) / 2),
                        lum > 0.5f ? IM_COL32(0, 0, 0, 255) : IM_COL32(255, 255, 255, 255), s.c_str());
          }
        }
        if (in_plot && mouse.x >= a.x && mouse.x < b.x && mouse.y >= a.y && mouse.y < b.y) {
          // The hovered cell itself, not the run it was drawn in.
          int hc = c;
          while (hc < last && X.px(hm->x_edges[hc + 1]) <= mouse.x) ++hc;
          const std::string col_name = hc < int(hm->x_tick_labels.size())
                                           ? hm->x_tick_labels[hc]
                                           : cell_range_text(hm->x_edges[hc], hm->x_edges[hc + 1]);
          const std::string row_name = r < int(hm->y_tick_labels.size())
                                           ? hm->y_tick_labels[r]
                                           : cell_range_text(hm->y_edges[r], hm->y_edges[r + 1]);
          hover_text = f.x.label + " " + col_name + ", " + f.y.label + " " + row_name + ": " +
                       (std::isfinite(v) ? number_text(v) : std::string("no value"));
        }
        c = last;
      }
    }
  }

  double best = 1e30;
  for (const auto& s : f.series) {
    const ImU32 col = to_u32(s.color);
    const float w = std::max(1.0f, s.width);
    float phase = 0;
    bool have_prev = false;
    ImVec2 prev;
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!X.usable(s.x[i]) || !Y.usable(s.y[i])) {
        have_prev = false;  // a gap, not a jump
        continue;
      }
      const ImVec2 p(X.px(s.x[i]), Y.px(s.y[i]));
      if (have_prev) {
        if (s.dashed) dashed_segment(dl, prev, p, col, w, phase);
        else dl->AddLine(prev, p, col, w);
      }
      if (s.markers) dl->AddCircleFilled(p, w + 1.5f, col);
      if (in_plot && !s.name.empty()) {
        const double d = std::hypot(p.x - mouse.x, p.y - mouse.y);
        if (d < best && d < 24) {
          best = d;
          hover_text = s.name + ": " + (f.x.label.empty() ? "x" : f.x.label) + " " + number_text(s.x[i]) + ", " +
                       (f.y.label.empty() ? "y" : f.y.label) + " " + number_text(s.y[i]);
        }
      }
      prev = p;
      have_prev = true;
    }
  }
  if (in_plot) dl->AddLine(ImVec2(mouse.x, p0.y), ImVec2(mouse.x, p1.y), ImGui::GetColorU32(ImGuiCol_Text, 0.25f));
  dl->PopClipRect();
  dl->AddRect(p0, p1, frame_col);

  // Legend: named series, top right inside the axes.
  if (f.legend) {
    std::vector<const figures::Series*> named;
    float wmax = 0;
    for (const auto& s : f.series)
      if (!s.name.empty()) {
        named.push_back(&s);
        wmax = std::max(wmax, ImGui::CalcTextSize(s.name.c_str()).x);
      }
    if (!named.empty()) {
      const float lh = fh + 2, lw = wmax + 34;
      const ImVec2 a(p1.x - lw - 6, p0.y + 6), b(p1.x - 6, p0.y + 6 + lh * named.size() + 4);
      dl->AddRectFilled(a, b, ImGui::GetColorU32(ImGuiCol_WindowBg, 0.85f), 3.0f);
      dl->AddRect(a, b, grid_col, 3.0f);
      for (size_t i = 0; i < named.size(); ++i) {
        const float y = a.y + 2 + lh * i + lh / 2;
        float phase = 0;
        if (named[i]->dashed) dashed_segment(dl, ImVec2(a.x + 6, y), ImVec2(a.x + 26, y), to_u32(named[i]->color), 2, phase);
        else dl->AddLine(ImVec2(a.x + 6, y), ImVec2(a.x + 26, y), to_u32(named[i]->color), 2.0f);
        dl->AddText(ImVec2(a.x + 30, y - fh / 2), text_col, named[i]->name.c_str());
      }
    }
  }

  // Colour bar beside a heatmap.
  if (hm) {
    const ImVec2 a(p1.x + 12, p0.y), b(p1.x + 24, p1.y);
    const int steps = 48;
    for (int i = 0; i < steps; ++i) {
      const float y0 = b.y - (b.y - a.y) * i / steps, y1 = b.y - (b.y - a.y) * (i + 1) / steps;
      dl->AddRectFilled(ImVec2(a.x, y1), ImVec2(b.x, y0), to_u32(figures::colormap(hm->colormap, (i + 0.5) / steps)));
    }
    dl->AddRect(a, b, frame_col);
    for (double v : figures::ticks(hm->vmin, hm->vmax, figures::Scale::linear, 4)) {
      if (v < hm->vmin || v > hm->vmax || hm->vmax <= hm->vmin) continue;
      const float y = b.y - float((v - hm->vmin) / (hm->vmax - hm->vmin)) * (b.y - a.y);
      dl->AddLine(ImVec2(b.x, y), ImVec2(b.x + 3, y), frame_col);
      dl->AddText(ImVec2(b.x + 4, y - fh / 2), text_col, figures::tick_label(v).c_str());
    }
  }

  if (in_plot && !hover_text.empty()) ImGui::SetTooltip("%s", hover_text.c_str());
  ImGui::PopID();
  return in_plot;
}

}  // namespace proteus::gui
