#include "app/gui/state/content_fit.hpp"

#include <cmath>

namespace proteus::gui {
namespace {

constexpr float kTolerancePx = 1.0f;  // antialiased edges and rounding: not a cut

std::string px(float v) { return std::to_string(static_cast<int>(std::lround(v))); }

// Which edge of `visible` cuts `c.rect` (along an axis the window does not scroll on), or "".
std::string cut_message(const DrawnContent& c) {
  const ScreenRect& r = c.rect;
  const ScreenRect& v = c.visible;
  if (!c.scrolls_y && r.y1 > v.y1 + kTolerancePx)
    return "is cut by the window's bottom edge: it reaches y = " + px(r.y1) + ", the window shows to y = " + px(v.y1);
  if (!c.scrolls_y && r.y0 < v.y0 - kTolerancePx)
    return "is cut by the window's top edge: it starts at y = " + px(r.y0) + ", the window shows from y = " + px(v.y0);
  if (!c.scrolls_x && r.x1 > v.x1 + kTolerancePx)
    return "is cut by the window's right edge: it reaches x = " + px(r.x1) + ", the window shows to x = " + px(v.x1);
  if (!c.scrolls_x && r.x0 < v.x0 - kTolerancePx)
    return "is cut by the window's left edge: it starts at x = " + px(r.x0) + ", the window shows from x = " + px(v.x0);
  return "";
}

float readable_minimum(ContentKind kind, const ReadableSizes& sizes) {
  switch (kind) {
    case ContentKind::grid: return sizes.cell_px;
    case ContentKind::plot: return sizes.plot_px;
    case ContentKind::colour_bar: return sizes.colour_bar_px;
  }
  return 0;
}

const char* readable_what(ContentKind kind) {
  switch (kind) {
    case ContentKind::grid: return "its cells are";
    case ContentKind::plot: return "its plot area is";
    case ContentKind::colour_bar: return "it is";
  }
  return "";
}

}  // namespace

const char* content_kind_name(ContentKind kind) {
  switch (kind) {
    case ContentKind::grid: return "grid";
    case ContentKind::plot: return "plot";
    case ContentKind::colour_bar: return "colour bar";
  }
  return "";
}

std::vector<std::string> find_content_problems(const std::vector<DrawnContent>& drawn, const ReadableSizes& sizes) {
  std::vector<std::string> problems;
  for (const auto& c : drawn) {
    const std::string what = c.name + " (" + content_kind_name(c.kind) + ", in " + c.window + ") ";
    if (const auto cut = cut_message(c); !cut.empty()) problems.push_back(what + cut);
    const float minimum = readable_minimum(c.kind, sizes);
    if (c.readable_px > 0 && c.readable_px < minimum - 0.5f)
      problems.push_back(what + "is squeezed: " + readable_what(c.kind) + " " + px(c.readable_px) + " px, under the readable " +
                         px(minimum) + " px");
  }
  return problems;
}

}  // namespace proteus::gui
