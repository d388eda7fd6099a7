// Whether what a frame drew can be seen and read: each grid, plot area and colour bar a view drew
// is registered with the part of the screen its window shows; one that a window's edge cuts (and
// that the window cannot scroll to), or that is squeezed below a readable size, is a problem.
// Pure: the views fill DrawnContent in (app/gui/view/content_check.hpp), the tests by hand.
#pragma once
#include <string>
#include <vector>

namespace proteus::gui {

struct ScreenRect {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // pixels, top-left inclusive
  float width() const { return x1 - x0; }
  float height() const { return y1 - y0; }
};

enum class ContentKind { grid, plot, colour_bar };
const char* content_kind_name(ContentKind kind);

struct DrawnContent {
  std::string window;          // the window it was drawn in
  std::string name;            // what it is ("ungated state", "per_position")
  ContentKind kind = ContentKind::grid;
  ScreenRect rect;             // where it was drawn
  float readable_px = 0;       // its reading size: a grid's cell side, a plot's shorter side, a bar's length; 0: none
  ScreenRect visible;          // the part of the screen its window shows
  bool scrolls_x = false;      // the window (or one it sits in) scrolls sideways to show more
  bool scrolls_y = false;      // ... or down
};

// The smallest sizes that read, in screen pixels.
struct ReadableSizes {
  float cell_px = 12;        // a grid's cell
  float plot_px = 120;       // a plot area's shorter side
  float colour_bar_px = 60;  // a colour bar's length
};

// One line per problem: "gated state (grid) is cut by the window's bottom edge: its rows reach
// y = 1210, the window shows to y = 1080", "... cells are 8 px, under the readable 12 px".
std::vector<std::string> find_content_problems(const std::vector<DrawnContent>& drawn, const ReadableSizes& sizes = {});

}  // namespace proteus::gui
