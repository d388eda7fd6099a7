// The Teach lesson's column fitted to a box (app/gui/state/lesson_layout.hpp): it fits, its cells
// are square whole pixels as large as the box allows, and the arrangement is the one with the
// larger cells.
#include <gtest/gtest.h>

#include <cmath>

#include "app/gui/state/lesson_layout.hpp"

namespace proteus::gui {
namespace {

// The default lesson (8 x 8 state, 16 associations) in a column of the presentation view.
LessonColumnSpace default_lesson(float width, float height) {
  LessonColumnSpace s;
  s.width = width, s.height = height;
  s.d_k = 8, s.d_v = 8, s.T = 16;
  s.stacked_text_px = 300, s.side_text_px = 220;
  s.history_label_px = 40, s.gap_px = 20;
  s.min_bars_px = 120, s.max_cell_px = 100;
  return s;
}

void expect_fits(const LessonColumnSpace& s, const LessonColumnLayout& l) {
  EXPECT_LE(l.height, s.height + 0.01f);
  EXPECT_EQ(l.grid_cell, std::floor(l.grid_cell));
  EXPECT_EQ(l.history_cell, std::floor(l.history_cell));
  EXPECT_GE(l.bars_px, s.min_bars_px);
  if (l.side_by_side) {
    EXPECT_LE(s.d_v * l.grid_cell + s.gap_px + s.history_label_px + s.T * l.history_cell, s.width + 0.01f);
  } else {
    EXPECT_LE(s.d_v * l.grid_cell, s.width + 0.01f);
    EXPECT_LE(s.history_label_px + s.T * l.history_cell, s.width + 0.01f);
  }
}

TEST(LessonLayoutTest, AWideShortColumnPutsGridAndTriangleSideBySide) {
  // Half of 1920 x 1080 less the lesson's header: wide and short.
  const auto s = default_lesson(930, 700);
  const auto l = fit_lesson_column(s);
  expect_fits(s, l);
  EXPECT_TRUE(l.side_by_side);
  // Side by side, the text and the bars leave 700 - 220 - 120 = 360 px for 16 triangle rows.
  EXPECT_EQ(l.history_cell, 22);
  EXPECT_EQ(l.grid_cell, 45);  // the grid's 8 rows take the same height
  EXPECT_EQ(l.bars_px, 120);
}

TEST(LessonLayoutTest, ANarrowTallColumnStacksThem) {
  const auto s = default_lesson(400, 1400);
  const auto l = fit_lesson_column(s);
  expect_fits(s, l);
  EXPECT_FALSE(l.side_by_side);
  EXPECT_EQ(l.grid_cell, 50);     // 8 columns across 400 px: the width decides
  EXPECT_EQ(l.history_cell, 22);  // 16 columns across 400 - 40 px
}

TEST(LessonLayoutTest, ABigScreenGrowsTheCellsUpToTheLargestAndGivesTheBarsTheRest) {
  const auto s = default_lesson(3800, 1900);
  const auto l = fit_lesson_column(s);
  expect_fits(s, l);
  EXPECT_TRUE(l.side_by_side);
  EXPECT_EQ(l.grid_cell, 100);
  EXPECT_EQ(l.history_cell, 82);  // (1900 - 220 - 360 bars) / 16
  EXPECT_GT(l.bars_px, s.min_bars_px);
  EXPECT_LE(l.bars_px, 3 * s.min_bars_px);
}

TEST(LessonLayoutTest, TheCellsShrinkWithTheBoxButStayWholeAndAtLeastOnePixel) {
  float last = 1e9f;
  for (float h : {1400.0f, 1000.0f, 800.0f, 600.0f, 400.0f, 200.0f}) {
    const auto l = fit_lesson_column(default_lesson(930, h));
    EXPECT_LE(l.smallest_cell(), last) << h;
    EXPECT_GE(l.smallest_cell(), 1) << h;
    last = l.smallest_cell();
  }
  EXPECT_EQ(last, 1);  // 200 px is less than the text: 1 px cells (the content check says so)
}

TEST(LessonLayoutTest, DegenerateSizesAreClampedNotDividedByZero) {
  auto s = default_lesson(930, 700);
  s.d_k = 0, s.d_v = 0, s.T = 0;
  const auto l = fit_lesson_column(s);
  EXPECT_GT(l.grid_cell, 0);
  EXPECT_GT(l.history_cell, 0);
}

TEST(LessonTextScaleTest, StepsDownInOneRoomAndStartsAgainInAnother) {
  LessonTextScale text;
  const LessonTextScale::Room room{1280, 720, 2, 8, 8, 16, 4};
  EXPECT_EQ(text.for_room(room), 1.0f);
  text.fitted(0.6f);
  EXPECT_EQ(text.for_room(room), 0.6f);
  text.fitted(0.85f);  // fitted larger under a smaller row: kept, or the two would flicker
  EXPECT_EQ(text.for_room(room), 0.6f);
  text.fitted(0.5f);
  EXPECT_EQ(text.for_room(room), 0.5f);
  auto bigger = room;
  bigger[0] = 1920, bigger[1] = 1080;
  EXPECT_EQ(text.for_room(bigger), 1.0f);
}

}  // namespace
}  // namespace proteus::gui
