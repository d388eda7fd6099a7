// The sizes of one memory's column of the Teach lesson when it must fit a box (the presentation
// view): its state grid (d_k x d_v square cells), the recall bars and the recall history (the
// step triangle, T x T square cells), stacked or with the grid and the triangle side by side,
// whichever gives the larger cells. Pure: the view measures its text and draws what this says.
#pragma once
#include <array>

namespace proteus::gui {

struct LessonColumnSpace {
  float width = 0, height = 0;  // the column's box, in pixels
  int d_k = 1, d_v = 1, T = 1;  // the state's rows and columns; the associations
  // Everything in the column that does not grow with the cells or the bars (titles, headings,
  // tick labels), stacked and with grid and triangle side by side.
  float stacked_text_px = 0, side_text_px = 0;
  float history_label_px = 0;  // the triangle's row labels, left of its cells
  float gap_px = 0;            // between grid and triangle side by side
  float min_bars_px = 120;     // the recall bars' plot height: at least this, at most three times it
  float max_cell_px = 64;      // no cell larger (a few cells should not fill a wall)
};

struct LessonColumnLayout {
  bool side_by_side = false;
  float grid_cell = 0, history_cell = 0, bars_px = 0;  // whole pixels
  float height = 0;                                   // what it takes, text included
  float smallest_cell() const { return grid_cell < history_cell ? grid_cell : history_cell; }
};

// The arrangement with the larger smallest cell (stacked on a tie), its cells as large as the box
// allows, the height left over given to the bars. When even that does not fit, the cells are
// what is left (possibly tiny: the content check says so), never under 1 px.
LessonColumnLayout fit_lesson_column(const LessonColumnSpace& space);

// The presented lesson's text scale (of the presentation font). The lesson's row of controls is
// drawn before the lesson is fitted under it, at the scale fitted last frame; so that the two
// settle in a few frames instead of flickering, the scale only steps down while the room (the
// window's size, the UI scale, the lesson's shape) stays the same, and starts again at 1 when
// it changes.
class LessonTextScale {
 public:
  using Room = std::array<float, 7>;  // width, height, UI scale, d_k, d_v, T, E
  // The scale to draw this frame's row at, in `room`.
  float for_room(const Room& room);
  // The lesson fitted at `scale` this frame.
  void fitted(float scale) { scale_ = scale < scale_ ? scale : scale_; }
  float scale() const { return scale_; }

 private:
  Room room_{};
  float scale_ = 1;
};

}  // namespace proteus::gui
