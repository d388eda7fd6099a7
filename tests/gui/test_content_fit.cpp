// The content check's judgement (app/gui/state/content_fit.hpp): a grid, plot or colour bar cut
// by its window's edge, where the window cannot scroll, or squeezed below a readable size.
#include <gtest/gtest.h>

#include "app/gui/state/content_fit.hpp"

namespace proteus::gui {
namespace {

DrawnContent grid_in_window(ScreenRect rect, float cell) {
  DrawnContent c;
  c.window = "presentation";
  c.name = "gated state";
  c.kind = ContentKind::grid;
  c.rect = rect;
  c.readable_px = cell;
  c.visible = {0, 0, 1920, 1080};
  return c;
}

TEST(ContentFitTest, AGridInsideTheWindowAtReadableCellsPasses) {
  EXPECT_TRUE(find_content_problems({grid_in_window({100, 600, 420, 920}, 40)}).empty());
}

TEST(ContentFitTest, AGridPastTheBottomEdgeIsCutAndTheMessageSaysWhere) {
  // Today's Teach presentation at 1920 x 1080, scale 2: 8 rows of 40 px from y = 900.
  const auto problems = find_content_problems({grid_in_window({100, 900, 420, 1220}, 40)});
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0],
            "gated state (grid, in presentation) is cut by the window's bottom edge: it reaches y = 1220, the window "
            "shows to y = 1080");
}

TEST(ContentFitTest, EachEdgeCuts) {
  EXPECT_NE(find_content_problems({grid_in_window({100, -20, 420, 300}, 40)})[0].find("top edge"), std::string::npos);
  EXPECT_NE(find_content_problems({grid_in_window({1800, 100, 2000, 300}, 40)})[0].find("right edge"), std::string::npos);
  EXPECT_NE(find_content_problems({grid_in_window({-5, 100, 300, 300}, 40)})[0].find("left edge"), std::string::npos);
}

TEST(ContentFitTest, ASubPixelOverhangIsNotACut) {
  EXPECT_TRUE(find_content_problems({grid_in_window({0, 0, 1920.5f, 1080.5f}, 40)}).empty());
}

TEST(ContentFitTest, PastAnEdgeTheWindowScrollsOnIsScrolledNotCut) {
  auto below = grid_in_window({100, 900, 420, 1220}, 40);
  below.scrolls_y = true;
  EXPECT_TRUE(find_content_problems({below}).empty());
  // Scrolling down does not reach what is cut sideways.
  below.rect = {1800, 900, 2100, 1220};
  const auto problems = find_content_problems({below});
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("right edge"), std::string::npos);
}

TEST(ContentFitTest, SqueezedCellsPlotsAndColourBarsFail) {
  const auto cells = find_content_problems({grid_in_window({100, 100, 180, 180}, 10)});
  ASSERT_EQ(cells.size(), 1u);
  EXPECT_EQ(cells[0], "gated state (grid, in presentation) is squeezed: its cells are 10 px, under the readable 12 px");

  DrawnContent plot = grid_in_window({100, 100, 700, 200}, 100);
  plot.kind = ContentKind::plot;
  plot.name = "per_position";
  ASSERT_EQ(find_content_problems({plot}).size(), 1u);
  EXPECT_NE(find_content_problems({plot})[0].find("its plot area is 100 px, under the readable 120 px"), std::string::npos);
  plot.readable_px = 120;
  EXPECT_TRUE(find_content_problems({plot}).empty());

  DrawnContent bar = grid_in_window({100, 100, 114, 150}, 50);
  bar.kind = ContentKind::colour_bar;
  EXPECT_EQ(find_content_problems({bar}).size(), 1u);
}

TEST(ContentFitTest, NoReadableSizeChecksOnlyTheEdges) {
  EXPECT_TRUE(find_content_problems({grid_in_window({100, 100, 104, 104}, 0)}).empty());
}

TEST(ContentFitTest, TheSizesAreTheCallersToSet) {
  ReadableSizes strict;
  strict.cell_px = 24;
  EXPECT_TRUE(find_content_problems({grid_in_window({100, 100, 420, 420}, 20)}).empty());
  EXPECT_EQ(find_content_problems({grid_in_window({100, 100, 420, 420}, 20)}, strict).size(), 1u);
}

}  // namespace
}  // namespace proteus::gui
