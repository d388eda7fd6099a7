// The ImDrawList painter: each primitive of a figures::Layout in screen pixels (page point *
// scale + origin), text anchored by its cap height like cairo's, turned text by rotating the
// glyphs' vertices; then the hover read-out of the drawn figure.
#include "app/gui/view/plot_view.hpp"

#include "app/gui/view/content_check.hpp"
#include "app/gui/view/ui_scale.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <variant>
#include <vector>

namespace proteus::gui {
namespace {

ImU32 to_u32(const figures::Rgb& c, double alpha = 1) {
  return ImGui::ColorConvertFloat4ToU32(ImVec4(c[0], c[1], c[2], static_cast<float>(alpha)));
}

// The atlas's bold face nearest above `px` for bold text (ui_scale.cpp loads one for the UI and
// one for the presentation view), else the current font: glyphs drawn near the size they were
// rasterised at stay sharp.
const ImFont* figure_font(bool bold, float px) {
  if (!bold) return ImGui::GetFont();
  const ImFont* best = nullptr;
  for (const ImFont* f : ImGui::GetIO().Fonts->Fonts) {
    if (!f->ConfigData || !std::strstr(f->ConfigData->Name, "Bold")) continue;
    const bool fits = f->FontSize >= px * 0.95f, best_fits = best && best->FontSize >= px * 0.95f;
    if (!best || (fits && (!best_fits || f->FontSize < best->FontSize)) || (!fits && !best_fits && f->FontSize > best->FontSize))
      best = f;
  }
  return best ? best : ImGui::GetFont();
}

class ImGuiPainter {
 public:
  ImGuiPainter(ImDrawList* dl, const figures::Layout& L, ImVec2 origin, float scale)
      : dl_(dl), L_(L), origin_(origin), s_(scale) {}

  void paint() {
    dl_->PushClipRect(at({0, 0}), at({L_.width, L_.height}), true);  // nothing leaves the page
    dl_->AddRectFilled(at({0, 0}), at({L_.width, L_.height}), IM_COL32_WHITE);
    bool clipping = false;
    for (const auto& p : L_.primitives) {
      if (p.clipped != clipping) {
        if (p.clipped) dl_->PushClipRect(at({L_.plot.x, L_.plot.y}), at({L_.plot.x + L_.plot.w, L_.plot.y + L_.plot.h}), true);
        else dl_->PopClipRect();
        clipping = p.clipped;
      }
      std::visit([this](const auto& shape) { draw(shape); }, p.shape);
    }
    if (clipping) dl_->PopClipRect();
    dl_->PopClipRect();
  }

 private:
  ImVec2 at(figures::Point p) const { return ImVec2(origin_.x + float(p.x) * s_, origin_.y + float(p.y) * s_); }

  // A polyline cut into dashes; the pattern runs on across its corners.
  void dashed(const std::vector<figures::Point>& path, const std::vector<double>& dash, ImU32 col, float w) {
    const float on = float(dash[0]) * s_, off = float(dash.size() > 1 ? dash[1] : dash[0]) * s_;
    bool drawing = true;
    float done = 0;  // of the current dash or gap
    for (size_t i = 1; i < path.size(); ++i) {
      const ImVec2 a = at(path[i - 1]), b = at(path[i]);
      const float len = std::hypot(b.x - a.x, b.y - a.y);
      if (!(len > 0) || !std::isfinite(len)) continue;
      const ImVec2 d((b.x - a.x) / len, (b.y - a.y) / len);
      // Each pass ends a dash or a gap, or the segment: at most len / min(on, off) + 2 passes.
      for (float t = 0; t < len;) {
        const float stretch = drawing ? on : off;
        const float step = std::min(len - t, stretch - done);
        if (drawing) dl_->AddLine(ImVec2(a.x + d.x * t, a.y + d.y * t), ImVec2(a.x + d.x * (t + step), a.y + d.y * (t + step)), col, w);
        if (step >= stretch - done) {
          drawing = !drawing;
          done = 0;
        } else {
          done += step;
        }
        if (step >= len - t) break;
        t += step;
      }
    }
  }

  void draw(const figures::Lines& l) {
    const ImU32 col = to_u32(l.stroke.color);
    const float w = float(l.stroke.width) * s_;
    for (const auto& b : l.boxes) dl_->AddRect(at({b.x, b.y}), at({b.x + b.w, b.y + b.h}), col, 0, 0, w);
    for (const auto& path : l.paths) {
      if (path.size() < 2) continue;
      if (l.stroke.dash.size() >= 1 && l.stroke.dash[0] > 0 && l.stroke.dash.back() > 0) {
        dashed(path, l.stroke.dash, col, w);
        continue;
      }
      std::vector<ImVec2> pts;
      pts.reserve(path.size());
      for (const auto& p : path) pts.push_back(at(p));
      dl_->AddPolyline(pts.data(), static_cast<int>(pts.size()), col, 0, w);
    }
  }

  void draw(const figures::Fill& f) {
    dl_->AddRectFilled(at({f.box.x, f.box.y}), at({f.box.x + f.box.w, f.box.y + f.box.h}), to_u32(f.color, f.alpha));
  }

  void draw(const figures::Cells&) {
    for (const auto& c : L_.cells) {
      // Cells narrower than a pixel still show: widened by half a pixel each side.
      const ImVec2 a = at({c.box.x, c.box.y}), b = at({c.box.x + c.box.w, c.box.y + c.box.h});
      dl_->AddRectFilled(ImVec2(a.x - 0.5f, a.y), ImVec2(b.x + 0.5f, b.y), to_u32(c.color));
    }
  }

  // Quads between neighbouring points, without antialiased edges (which would seam where they meet).
  void draw(const figures::Band& band) {
    const ImU32 col = to_u32(band.color, band.alpha);
    const ImDrawListFlags flags = dl_->Flags;
    dl_->Flags &= ~ImDrawListFlags_AntiAliasedFill;
    for (size_t i = 1; i < band.upper.size() && i < band.lower.size(); ++i) {
      const ImVec2 q[4] = {at(band.upper[i - 1]), at(band.upper[i]), at(band.lower[i]), at(band.lower[i - 1])};
      dl_->AddConvexPolyFilled(q, 4, col);
    }
    dl_->Flags = flags;
  }

  void draw(const figures::Dots& d) {
    for (const auto& c : d.centres) dl_->AddCircleFilled(at(c), float(d.radius) * s_, to_u32(d.color));
  }

  void draw(const figures::Text& t) {
    const float px = float(t.style.size) * s_;
    const ImFont* font = figure_font(t.style.bold, px);
    const float w = font->CalcTextSizeA(px, FLT_MAX, 0, t.text.c_str()).x;
    const float ascent = font->Ascent * px / font->FontSize;
    const ImVec2 pivot = at(t.at);
    // Anchored by the capitals: the baseline sits (1 - ay) cap heights below the anchor.
    const ImVec2 pos(pivot.x - float(t.ax) * w, pivot.y + float((1 - t.ay) * figures::kCapHeight) * px - ascent);
    if (!t.vertical) {
      dl_->AddText(font, px, pos, to_u32(t.color), t.text.c_str());
      return;
    }
    // ImGui drops glyphs outside the clip rect before they are turned: lift the clip while the
    // text is added, then give its draw command the clip it would have had.
    const ImVec2 cmin = dl_->GetClipRectMin(), cmax = dl_->GetClipRectMax();
    dl_->PushClipRect(ImVec2(-1e6f, -1e6f), ImVec2(1e6f, 1e6f), false);
    const int first = dl_->VtxBuffer.Size;
    dl_->AddText(font, px, pos, to_u32(t.color), t.text.c_str());
    for (int i = first; i < dl_->VtxBuffer.Size; ++i) {  // a quarter turn: reads bottom to top
      ImVec2& v = dl_->VtxBuffer[i].pos;
      const ImVec2 d(v.x - pivot.x, v.y - pivot.y);
      v = ImVec2(pivot.x + d.y, pivot.y - d.x);
    }
    dl_->CmdBuffer.back().ClipRect = ImVec4(cmin.x, cmin.y, cmax.x, cmax.y);
    dl_->PopClipRect();
  }

  void draw(const figures::Gradient& g) {
    const size_t n = g.stops.size();
    for (size_t i = 0; i + 1 < n; ++i) {
      const double y0 = g.box.y + g.box.h - g.box.h * double(i) / double(n - 1);  // lower edge
      const double y1 = g.box.y + g.box.h - g.box.h * double(i + 1) / double(n - 1);
      const ImU32 bottom = to_u32(g.stops[i]), top = to_u32(g.stops[i + 1]);
      dl_->AddRectFilledMultiColor(at({g.box.x, y1}), at({g.box.x + g.box.w, y0}), top, top, bottom, bottom);
    }
  }

  ImDrawList* dl_;
  const figures::Layout& L_;
  ImVec2 origin_;
  float s_;
};

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

// The heatmap cell (row, column) under a page point, or {-1, -1}.
std::pair<int, int> cell_at(const figures::Heatmap& h, const figures::Layout& L, figures::Point p) {
  auto find = [](const std::vector<double>& edges, const figures::AxisMap& m, double page) {
    for (size_t i = 0; i + 1 < edges.size(); ++i) {
      if (!m.usable(edges[i]) || !m.usable(edges[i + 1])) continue;
      const double a = m.to_page(edges[i]), b = m.to_page(edges[i + 1]);
      if (page >= std::min(a, b) && page < std::max(a, b)) return static_cast<int>(i);
    }
    return -1;
  };
  const int c = find(h.x_edges, L.x, p.x), r = find(h.y_edges, L.y, p.y);
  return (r < 0 || c < 0) ? std::pair{-1, -1} : std::pair{r, c};
}

// The read-out under the mouse: the nearest named point within 24 pixels, else the cell.
std::string hover_text(const figures::Figure& f, const DrawnFigure& d, ImVec2 mouse) {
  const auto& L = d.layout;
  const figures::Point page{(mouse.x - d.origin.x) / d.scale, (mouse.y - d.origin.y) / d.scale};
  std::string text;
  if (const auto& h = f.heatmap; h && h->values.size() == size_t(h->rows) * h->cols) {
    const auto [r, c] = cell_at(*h, L, page);
    if (r >= 0 && c < h->cols && r < h->rows) {
      const double v = h->values[size_t(r) * h->cols + c];
      const std::string col = c < int(h->x_tick_labels.size()) ? h->x_tick_labels[c] : cell_range_text(h->x_edges[c], h->x_edges[c + 1]);
      const std::string row = r < int(h->y_tick_labels.size()) ? h->y_tick_labels[r] : cell_range_text(h->y_edges[r], h->y_edges[r + 1]);
      text = f.x.label + " " + col + ", " + f.y.label + " " + row + ": " + (std::isfinite(v) ? number_text(v) : "no value");
    }
  }
  double best = 24;
  for (const auto& s : f.series) {
    if (s.name.empty()) continue;
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!L.x.usable(s.x[i]) || !L.y.usable(s.y[i])) continue;
      const ImVec2 p = d.to_screen({L.x.to_page(s.x[i]), L.y.to_page(s.y[i])});
      const double dist = std::hypot(p.x - mouse.x, p.y - mouse.y);
      if (dist >= best) continue;
      best = dist;
      text = s.name + ": " + (f.x.label.empty() ? "x" : f.x.label) + " " + number_text(s.x[i]) + ", " +
             (f.y.label.empty() ? "y" : f.y.label) + " " + number_text(s.y[i]);
      if (i < s.lo.size() && i < s.hi.size()) text += " [" + number_text(s.lo[i]) + ", " + number_text(s.hi[i]) + "]";
    }
  }
  return text;
}

}  // namespace

float figure_scale() { return ImGui::GetFontSize() / float(figures::kLabelSize); }

figures::MeasureText window_text_measure(float scale) {
  return [scale](const std::string& text, const figures::TextStyle& style) {
    const float px = float(style.size) * scale;
    return double(figure_font(style.bold, px)->CalcTextSizeA(px, FLT_MAX, 0, text.c_str()).x) / scale;
  };
}

void paint_layout(ImDrawList* dl, const figures::Layout& layout, ImVec2 origin, float scale) {
  ImGuiPainter(dl, layout, origin, scale).paint();
}

ImVec2 plot_area_size(const figures::Figure& f, ImVec2 size) {
  const float scale = figure_scale();
  const auto l = figures::layout_figure(f, size.x / scale, size.y / scale, window_text_measure(scale));
  return ImVec2(float(l.plot.w) * scale, float(l.plot.h) * scale);
}

float readable_figure_height(const figures::Figure& f, float width, float height) {
  const float readable = ReadableSizes{}.plot_px;
  for (int tries = 0; tries < 4; ++tries) {  // the labels' room hardly changes as the figure grows
    const float plot_h = plot_area_size(f, ImVec2(width, height)).y;
    if (plot_h >= readable) break;
    height += readable - plot_h + 1;
  }
  return height;
}

namespace {

// The figure's plot area (read at its shorter side) and colour bar (at its length), for the
// content check.
void register_drawn_figure(const char* id, const DrawnFigure& d) {
  const ImVec2 p0 = d.plot_min(), p1 = d.plot_max();
  register_content(ContentKind::plot, id, p0, p1, std::min(p1.x - p0.x, p1.y - p0.y));
  if (!d.layout.colorbar) return;
  const figures::Box& bar = d.layout.colorbar->bar;
  const ImVec2 b0 = d.to_screen({bar.x, bar.y}), b1 = d.to_screen({bar.x + bar.w, bar.y + bar.h});
  register_content(ContentKind::colour_bar, std::string(id) + " colour bar", b0, b1, std::max(b1.x - b0.x, b1.y - b0.y));
}

}  // namespace

DrawnFigure draw_figure(const char* id, const figures::Figure& f, ImVec2 size) {
  ImGui::PushID(id);
  size.x = std::max(size.x, ui_px(120));
  size.y = std::max(size.y, ui_px(100));
  DrawnFigure d;
  d.origin = ImGui::GetCursorScreenPos();
  d.scale = figure_scale();
  ImGui::InvisibleButton("##plot", size);
  const bool box_hovered = ImGui::IsItemHovered();
  d.layout = figures::layout_figure(f, size.x / d.scale, size.y / d.scale, window_text_measure(d.scale));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  paint_layout(dl, d.layout, d.origin, d.scale);
  register_drawn_figure(id, d);

  const ImVec2 mouse = ImGui::GetIO().MousePos, p0 = d.plot_min(), p1 = d.plot_max();
  d.hovered = box_hovered && mouse.x >= p0.x && mouse.x <= p1.x && mouse.y >= p0.y && mouse.y <= p1.y;
  if (d.hovered) {
    dl->AddLine(ImVec2(mouse.x, p0.y), ImVec2(mouse.x, p1.y), IM_COL32(0, 0, 0, 64));
    if (const auto text = hover_text(f, d, mouse); !text.empty()) ImGui::SetTooltip("%s", text.c_str());
  }
  ImGui::PopID();
  return d;
}

}  // namespace proteus::gui
