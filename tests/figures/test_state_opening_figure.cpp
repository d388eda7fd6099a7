// The block-axis picture (which elements of the state open when): worked by hand on small shapes
// for each axis, and checked against the model's own gating table (open_widths_table), so the
// picture cannot drift from what the model masks.
#include <gtest/gtest.h>

#include <cmath>
#include <variant>

#include "core/common/input_error.hpp"
#include "core/figures/layout.hpp"
#include "core/figures/painter.hpp"
#include "core/figures/state_opening_figure.hpp"
#include "tests/support/input_error_field.hpp"

namespace {

using namespace proteus;
using memory::BlockAxis;
using memory::Schedule;

// H = 2 heads of 4 x 4, N = 16.
constexpr int64_t kH = 2, kD = 4, kN = 16;

TEST(StateOpening, KeyRowsOpenTheSameRowsInEveryHead) {
  const auto s = Schedule::uniform(kD * kD, 4, kN);  // unlock 1, 5, 9, 13: one key row a block
  for (int64_t h = 0; h < kH; ++h)
    for (int64_t i = 0; i < kD; ++i)
      for (int64_t j = 0; j < kD; ++j)
        EXPECT_EQ(figures::element_opens_at(s, BlockAxis::key_rows, kH, kD, kD, h, i, j), 1 + 4 * i) << h << i << j;
}

TEST(StateOpening, ValueRowsOpenTheSameColumnsInEveryHead) {
  const auto s = Schedule::uniform(kD * kD, 4, kN);
  for (int64_t h = 0; h < kH; ++h)
    for (int64_t i = 0; i < kD; ++i)
      for (int64_t j = 0; j < kD; ++j)
        EXPECT_EQ(figures::element_opens_at(s, BlockAxis::value_rows, kH, kD, kD, h, i, j), 1 + 4 * j) << h << i << j;
}

TEST(StateOpening, LayerOpensWholeHeadsWhenThereAreNoMoreBlocksThanHeads) {
  const auto s = Schedule::uniform(kD * kD, 2, kN);  // unlock 1, 9
  for (int64_t i = 0; i < kD; ++i)
    for (int64_t j = 0; j < kD; ++j) {
      EXPECT_EQ(figures::element_opens_at(s, BlockAxis::layer, kH, kD, kD, 0, i, j), 1);
      EXPECT_EQ(figures::element_opens_at(s, BlockAxis::layer, kH, kD, kD, 1, i, j), 9);
    }
}

TEST(StateOpening, LayerFillsAHeadRowByRowBeforeTheNextWhenThereAreMoreBlocksThanHeads) {
  const auto s = Schedule::uniform(kD * kD, 8, kN);  // unlock 1, 3, ..., 15: one key row of the layer a block
  for (int64_t h = 0; h < kH; ++h)
    for (int64_t i = 0; i < kD; ++i)
      EXPECT_EQ(figures::element_opens_at(s, BlockAxis::layer, kH, kD, kD, h, i, 2), 1 + 2 * (h * kD + i)) << h << i;
}

// At every position, an element is open in the picture exactly when the model's gating table
// (the widths prefix_mask takes: value columns under value_rows, key rows under layer) opens it.
TEST(StateOpening, AgreesWithTheModelsGatingTableAtEveryPosition) {
  for (auto [axis, E] : {std::pair{BlockAxis::value_rows, int64_t{4}}, {BlockAxis::value_rows, int64_t{2}},
                         {BlockAxis::layer, int64_t{2}}, {BlockAxis::layer, int64_t{8}}}) {
    const auto s = Schedule::uniform(kD * kD, E, kN);
    const int64_t T = 2 * kN;
    const auto widths = memory::open_widths_table(axis, s, T, kH, kD, kD);  // (T, H)
    for (int64_t t = 1; t <= T; ++t)
      for (int64_t h = 0; h < kH; ++h)
        for (int64_t i = 0; i < kD; ++i)
          for (int64_t j = 0; j < kD; ++j) {
            const int64_t w = widths[static_cast<size_t>((t - 1) * kH + h)];
            const bool model_open = axis == BlockAxis::value_rows ? j < w : i < w;
            const bool drawn_open = figures::element_opens_at(s, axis, kH, kD, kD, h, i, j) <= t;
            ASSERT_EQ(drawn_open, model_open) << memory::block_axis_name(axis) << " E " << E << " t " << t << " h "
                                              << h << " i " << i << " j " << j;
          }
  }
}

TEST(StateOpening, TheFigureIsOneLayersGridColouredByTheOpeningPosition) {
  const auto s = Schedule::uniform(kD * kD, 4, kN);
  const auto f = figures::state_opening_figure(s, BlockAxis::value_rows, kH, kD, kD, "run");
  ASSERT_TRUE(f.heatmap);
  EXPECT_EQ(f.heatmap->rows, kD);
  EXPECT_EQ(f.heatmap->cols, kH * kD);
  EXPECT_DOUBLE_EQ(f.heatmap->vmax, 16.0);  // N
  // Row 2, head 1, value column 3 opens at 13.
  EXPECT_DOUBLE_EQ(f.heatmap->values[2 * f.heatmap->cols + kD + 3], 13.0);
  EXPECT_EQ(f.series.size(), static_cast<size_t>(kH - 1)) << "a line between heads";
  EXPECT_NE(f.title.find("value_rows"), std::string::npos);
}

TEST(StateOpening, RefusesABadShapeOrMoreBlocksThanElementsByName) {
  const auto s = Schedule::uniform(64, 64, 64);
  EXPECT_EQ(test_support::field_of([&] { figures::state_opening_figure(s, BlockAxis::key_rows, 1, 4, 4); }), "E");
  EXPECT_EQ(test_support::field_of([&] { figures::state_opening_figure(s, BlockAxis::key_rows, 0, 8, 8); }), "H");
  EXPECT_EQ(test_support::field_of([&] { figures::state_opening_figure(s, BlockAxis::layer, 1, 8, 0); }), "d_v");
}

TEST(StateOpening, AReferenceSizedLayerFitsAPaperColumn) {
  // The regime's shape at 4 heads: 128 key rows, 4 x 128 value columns.
  const auto f = figures::state_opening_figure(Schedule::uniform(128 * 128, 16, 4096), BlockAxis::layer, 4, 128, 128);
  const auto L = figures::file_layout(f, 480, 320);
  EXPECT_GE(L.plot.w, 0.4 * 480);
  EXPECT_GE(L.plot.h, 0.3 * 320);
  for (const auto& p : L.primitives)
    if (const auto* t = std::get_if<figures::Text>(&p.shape)) {
      EXPECT_GE(t->at.x, 0.0) << t->text;
      EXPECT_LE(t->at.x, L.width) << t->text;
    }
}

}  // namespace
