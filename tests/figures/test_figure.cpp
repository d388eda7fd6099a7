// The figure-as-data helpers: ticks on linear and log ranges, tick labels, the drawn ranges
// (explicit bounds, margins, NaN and non-positive data on log axes), colour maps, the palette
// and the figure's CSV.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>

#include "core/figures/figure.hpp"

namespace {

using namespace proteus::figures;
constexpr double nan = std::numeric_limits<double>::quiet_NaN();

void expect_monotone_inside(const std::vector<double>& t, double lo, double hi) {
  ASSERT_FALSE(t.empty()) << lo << ".." << hi;
  for (size_t i = 0; i < t.size(); ++i) {
    EXPECT_GE(t[i], lo - 1e-12 * std::abs(lo)) << i;
    EXPECT_LE(t[i], hi + 1e-12 * std::abs(hi)) << i;
    if (i) {
      EXPECT_GT(t[i], t[i - 1]) << i;
    }
  }
}

TEST(Ticks, LinearNiceNumbers) {
  EXPECT_EQ(ticks(0, 10, Scale::linear, 5), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  EXPECT_EQ(ticks(0, 1, Scale::linear, 3), (std::vector<double>{0, 0.5, 1}));
  EXPECT_EQ(ticks(0, 1, Scale::linear, 6), (std::vector<double>{0, 0.2, 0.4, 0.6, 0.8, 1}));
  EXPECT_EQ(ticks(0, 100, Scale::linear, 5), (std::vector<double>{0, 20, 40, 60, 80, 100}));
  EXPECT_EQ(ticks(-0.35, 0.35, Scale::linear, 6), (std::vector<double>{-0.3, -0.2, -0.1, 0, 0.1, 0.2, 0.3}));
  EXPECT_EQ(ticks(0.5, 512.5, Scale::linear, 5), (std::vector<double>{100, 200, 300, 400, 500}));
  const auto t = ticks(-0.3, 0.7, Scale::linear, 5);
  expect_monotone_inside(t, -0.3, 0.7);
  EXPECT_NE(std::find(t.begin(), t.end(), 0.0), t.end()) << "zero is exactly a tick";
  for (double v : t) EXPECT_NEAR(v * 10, std::round(v * 10), 1e-9) << "multiples of 0.1 or 0.2";
  EXPECT_EQ(ticks(1.5, 3.2, Scale::linear, 6).front(), 1.5);
}

TEST(Ticks, NeverEmptyForAValidRange) {
  for (double lo : {-1e6, -3.0, 0.0, 1e-9, 0.37, 2.0, 999.0})
    for (double w : {1e-7, 0.01, 0.3, 1.0, 7.0, 1234.0, 1e9})
      for (int target : {1, 2, 5, 10}) {
        expect_monotone_inside(ticks(lo, lo + w, Scale::linear, target), lo, lo + w);
        if (lo > 0) expect_monotone_inside(ticks(lo, lo + w, Scale::log, target), lo, lo + w);
      }
  EXPECT_EQ(ticks(3, 3, Scale::linear), (std::vector<double>{3}));
  EXPECT_TRUE(ticks(nan, 1, Scale::linear).empty());
  EXPECT_TRUE(ticks(-5, -1, Scale::log).empty()) << "nothing of a negative range is on a log axis";
}

TEST(Ticks, LogDecadesAndTwoFiveOnShortRanges) {
  EXPECT_EQ(ticks(1, 1000, Scale::log), (std::vector<double>{1, 10, 100, 1000}));
  const auto t = ticks(1, 512, Scale::log);
  expect_monotone_inside(t, 1, 512);
  EXPECT_EQ(t.front(), 1);
  // Under 2 decades the 2s and 5s join in.
  const auto s = ticks(3, 250, Scale::log);
  std::set<double> want{5, 10, 20, 50, 100, 200};
  for (double v : want) EXPECT_TRUE(std::any_of(s.begin(), s.end(), [&](double x) { return std::abs(x - v) < 1e-9 * v; })) << v;
  // Many decades are thinned to about `target` labels.
  const auto many = ticks(1e-12, 1e12, Scale::log, 6);
  expect_monotone_inside(many, 1e-12, 1e12);
  EXPECT_LE(many.size(), 9u);
  // Inside one decade between 5 and 10: linear ticks, still something.
  expect_monotone_inside(ticks(6, 9, Scale::log), 6, 9);
}

TEST(TickLabel, Compact) {
  EXPECT_EQ(tick_label(0), "0");
  EXPECT_EQ(tick_label(1), "1");
  EXPECT_EQ(tick_label(2.5), "2.5");
  EXPECT_EQ(tick_label(0.001), "0.001");
  EXPECT_EQ(tick_label(0.1 + 0.2), "0.3");
  EXPECT_EQ(tick_label(1000), "1000");
  EXPECT_EQ(tick_label(-40), "-40");
  EXPECT_EQ(tick_label(10000), "10k");
  EXPECT_EQ(tick_label(12500), "12.5k");
  EXPECT_EQ(tick_label(2.5e-5), "2.5e-5");
}

TEST(TickLabel, LargeValuesTakeAPrefixNotAnExponent) {
  EXPECT_EQ(tick_label(1e6), "1M");
  EXPECT_EQ(tick_label(1.025e7), "10.25M") << "a nice tick, exact to four digits";
  // The reference run's 2621440 training bytes, 4x and 16x: three digits, as the e-notation had.
  EXPECT_EQ(tick_label(2621440), "2.62M");
  EXPECT_EQ(tick_label(10485760), "10.5M");
  EXPECT_EQ(tick_label(41943040), "41.9M");
  EXPECT_EQ(tick_label(-3e9), "-3G");
  EXPECT_EQ(tick_label(12345), "12.3k");
  // Rounding that reaches the next prefix takes it.
  EXPECT_EQ(tick_label(999999), "1M");
  EXPECT_EQ(tick_label(9.9999e6), "10M");
  // Past G: e-notation, including what rounds up to 10^12.
  EXPECT_EQ(tick_label(2.5e12), "2.5e12");
  EXPECT_EQ(tick_label(999.96e9), "1e12");
}

TEST(Ranges, DataBoundsWithAMarginOnLinearAxes) {
  Figure f;
  Series s;
  s.x = {0, 10};
  s.y = {1, 3};
  f.series = {s};
  const auto [x0, x1] = x_range(f);
  EXPECT_DOUBLE_EQ(x0, -0.5);
  EXPECT_DOUBLE_EQ(x1, 10.5);
  const auto [y0, y1] = y_range(f);
  EXPECT_DOUBLE_EQ(y0, 0.9);
  EXPECT_DOUBLE_EQ(y1, 3.1);
}

TEST(Ranges, ExplicitBoundsWin) {
  Figure f;
  Series s;
  s.x = {0, 10};
  s.y = {1, 3};
  f.series = {s};
  f.x.min = 2;
  f.x.max = 4;
  EXPECT_EQ(x_range(f), (std::pair<double, double>{2, 4}));
  f.y.min = 0;  // one bound set: the other still follows the data
  const auto [y0, y1] = y_range(f);
  EXPECT_EQ(y0, 0);
  EXPECT_DOUBLE_EQ(y1, 3.1);
}

TEST(Ranges, LogAxesIgnoreNonPositiveAndNaN) {
  Figure f;
  f.x.scale = Scale::log;
  Series s;
  s.x = {-1, 0, nan, 10, 1000};
  s.y = {nan, 2, 4, nan, std::numeric_limits<double>::infinity()};
  f.series = {s};
  const auto [x0, x1] = x_range(f);
  // 5% of two decades on each side, in log space.
  EXPECT_NEAR(std::log10(x0), 0.9, 1e-12);
  EXPECT_NEAR(std::log10(x1), 3.1, 1e-12);
  const auto [y0, y1] = y_range(f);
  EXPECT_DOUBLE_EQ(y0, 1.9);
  EXPECT_DOUBLE_EQ(y1, 4.1);
  f.x.min = -5;  // not a bound a log axis can have: the data decide
  EXPECT_NEAR(std::log10(x_range(f).first), 0.9, 1e-12);
}

TEST(Ranges, DegenerateAndEmpty) {
  Figure f;
  EXPECT_EQ(x_range(f), (std::pair<double, double>{0, 1}));
  f.y.scale = Scale::log;
  EXPECT_EQ(y_range(f), (std::pair<double, double>{1, 10}));
  Series s;
  s.x = {5, 5};
  s.y = {0, 0};
  f.series = {s};
  const auto [x0, x1] = x_range(f);
  EXPECT_LT(x0, 5);
  EXPECT_GT(x1, 5);
  f.y.scale = Scale::linear;
  const auto [y0, y1] = y_range(f);
  EXPECT_LT(y0, 0);
  EXPECT_GT(y1, 0);
}

TEST(Ranges, HeatmapEdgesWithoutMargin) {
  Figure f;
  Heatmap h;
  h.rows = 2;
  h.cols = 3;
  h.values.assign(6, 0.5);
  h.x_edges = {0.5, 1.5, 2.5, 3.5};
  h.y_edges = {2, 1, 0};  // downwards: row 0 at the top
  f.heatmap = h;
  EXPECT_EQ(x_range(f), (std::pair<double, double>{0.5, 3.5}));
  EXPECT_EQ(y_range(f), (std::pair<double, double>{0, 2}));
}

TEST(Colormap, PublishedEndpoints) {
  const Rgb v0 = colormap("viridis", 0), v1 = colormap("viridis", 1);
  EXPECT_NEAR(v0[0], 0.267, 2e-3);
  EXPECT_NEAR(v0[1], 0.005, 2e-3);
  EXPECT_NEAR(v0[2], 0.329, 2e-3);
  EXPECT_NEAR(v1[0], 0.993, 2e-3);
  EXPECT_NEAR(v1[1], 0.906, 2e-3);
  EXPECT_NEAR(v1[2], 0.144, 2e-3);
  // viridis at 0.5 is matplotlib's entry 128, (0.128, 0.567, 0.551).
  const Rgb mid = colormap("viridis", 0.5);
  EXPECT_NEAR(mid[0], 0.128, 0.01);
  EXPECT_NEAR(mid[1], 0.567, 0.01);
  EXPECT_NEAR(mid[2], 0.551, 0.01);
  EXPECT_NEAR(colormap("magma", 0)[0], 0.001, 2e-3);
  EXPECT_NEAR(colormap("magma", 1)[2], 0.750, 2e-3);
  EXPECT_EQ(colormap("greys", 0), (Rgb{1, 1, 1}));
  EXPECT_EQ(colormap("greys", 1), (Rgb{0, 0, 0}));
  EXPECT_EQ(colormap("no-such-map", 0.3), colormap("viridis", 0.3));
  EXPECT_EQ(colormap("viridis", -4), v0) << "clamped";
  EXPECT_EQ(colormap("viridis", 7), v1);
  // Viridis rises in lightness: green grows monotonically.
  for (int i = 1; i <= 100; ++i) EXPECT_GE(colormap("viridis", i / 100.0)[1], colormap("viridis", (i - 1) / 100.0)[1]);
}

TEST(Palette, DistinctAndCycling) {
  std::set<Rgb> seen;
  for (int i = 0; i < 8; ++i) seen.insert(palette(i));
  EXPECT_EQ(seen.size(), 8u);
  EXPECT_EQ(palette(8), palette(0));
  EXPECT_EQ(palette(-1), palette(7));
}

TEST(FigureCsv, SeriesRowsAndHeatmapCells) {
  Figure f;
  Series a;
  a.name = "base, line";  // a comma is quoted
  a.x = {1, 2};
  a.y = {0.5, nan};
  Series guide;  // unnamed: a reference line, not data
  guide.x = {3, 3};
  guide.y = {0, 1};
  f.series = {a, guide};
  EXPECT_EQ(figure_csv(f), "series,x,y\n\"base, line\",1,0.5\n\"base, line\",2,\n");

  Figure g;
  Heatmap h;
  h.rows = 1;
  h.cols = 2;
  h.values = {0.25, 75};
  h.x_edges = {0, 1, 2};
  h.y_edges = {0, 1};
  g.heatmap = h;
  g.series = {guide};
  EXPECT_EQ(figure_csv(g), "row,column,x_lo,x_hi,y_lo,y_hi,value\n0,0,0,1,0,1,0.25\n0,1,1,2,0,1,75\n");
  g.series[0].name = "marker";  // named series and cells: two tables, a blank line between
  EXPECT_EQ(figure_csv(g), "series,x,y\nmarker,3,0\nmarker,3,1\n\nrow,column,x_lo,x_hi,y_lo,y_hi,value\n"
                           "0,0,0,1,0,1,0.25\n0,1,1,2,0,1,75\n");
}

}  // namespace
