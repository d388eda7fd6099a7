#include "app/gui/state/lesson_layout.hpp"

#include <algorithm>
#include <cmath>

namespace proteus::gui {
namespace {

// The bars' share of the height that grows (the cells take the rest).
constexpr float kBarsShare = 0.25f;

struct Cells {
  float grid = 0, history = 0;
};

// Grid and triangle one above the other within `rest` pixels of height: one cell size for both
// first, then the grid grows, then the triangle, each up to its width and the largest cell.
Cells stacked_cells(const LessonColumnSpace& s, float rest) {
  const float grid_w = s.width / s.d_v, history_w = (s.width - s.history_label_px) / s.T;
  const float same = std::min({rest / (s.d_k + s.T), grid_w, history_w, s.max_cell_px});
  Cells c;
  c.grid = std::min({grid_w, s.max_cell_px, (rest - s.T * same) / s.d_k});
  c.history = std::min({history_w, s.max_cell_px, (rest - s.d_k * c.grid) / s.T});
  return c;
}

// Grid and triangle side by side within `rest` pixels of height: the width is shared.
Cells side_cells(const LessonColumnSpace& s, float rest) {
  const float row_w = s.width - s.gap_px - s.history_label_px;
  const float same = std::min({rest / std::max(s.d_k, s.T), row_w / (s.d_v + s.T), s.max_cell_px});
  Cells c;
  c.grid = std::min({rest / s.d_k, (row_w - s.T * same) / s.d_v, s.max_cell_px});
  c.history = std::min({rest / s.T, (row_w - s.d_v * c.grid) / s.T, s.max_cell_px});
  return c;
}

LessonColumnLayout arrange(const LessonColumnSpace& s, bool side_by_side) {
  const float text = side_by_side ? s.side_text_px : s.stacked_text_px;
  const float grows = std::max(0.0f, s.height - text);
  const float bars = std::clamp(grows * kBarsShare, s.min_bars_px, 3 * s.min_bars_px);
  const Cells c = side_by_side ? side_cells(s, grows - bars) : stacked_cells(s, grows - bars);
  LessonColumnLayout l;
  l.side_by_side = side_by_side;
  l.grid_cell = std::max(1.0f, std::floor(c.grid));  // a cell is drawn, however small
  l.history_cell = std::max(1.0f, std::floor(c.history));
  const float cells_h = side_by_side ? std::max(s.d_k * l.grid_cell, s.T * l.history_cell)
                                     : s.d_k * l.grid_cell + s.T * l.history_cell;
  // What the cells leave goes to the bars, up to their largest.
  l.bars_px = std::floor(std::clamp(grows - cells_h, bars, 3 * s.min_bars_px));
  l.height = text + cells_h + l.bars_px;
  return l;
}

}  // namespace

LessonColumnLayout fit_lesson_column(const LessonColumnSpace& space) {
  LessonColumnSpace s = space;
  s.d_k = std::max(1, s.d_k), s.d_v = std::max(1, s.d_v), s.T = std::max(1, s.T);
  const LessonColumnLayout stacked = arrange(s, false), side = arrange(s, true);
  return side.smallest_cell() > stacked.smallest_cell() ? side : stacked;
}

float LessonTextScale::for_room(const Room& room) {
  if (room != room_) room_ = room, scale_ = 1;
  return scale_;
}

}  // namespace proteus::gui
