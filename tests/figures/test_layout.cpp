// The figure layout both painters draw: ranges and the data <-> page map, ticks inside the range
// with thinned labels, the plot box inside the page with room for its text, heatmap runs and
// their label contrast, interval bands, gaps in lines, and the legend in the emptiest corner.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <variant>

#include "core/figures/layout.hpp"
#include "core/figures/painter.hpp"
#include "core/figures/run_figures.hpp"

namespace {

using namespace proteus;
using namespace proteus::figures;

// A fixed-pitch font: every character half an em wide.
double fixed_pitch(const std::string& s, const TextStyle& style) { return 0.5 * style.size * double(s.size()); }

Layout lay_out(const Figure& f, double w = 480, double h = 320) { return layout_figure(f, w, h, fixed_pitch); }

template <class Shape>
std::vector<std::pair<Shape, bool>> all_of(const Layout& L) {
  std::vector<std::pair<Shape, bool>> out;
  for (const auto& p : L.primitives)
    if (const auto* s = std::get_if<Shape>(&p.shape)) out.emplace_back(*s, p.clipped);
  return out;
}

Figure line_figure() {
  Figure f;
  f.title = "t";
  f.x.label = "step";
  f.y.label = "loss";
  Series s;
  s.name = "run";
  s.x = {0, 10, 20, 30};
  s.y = {5, 4, 3.5, 3};
  f.series.push_back(s);
  return f;
}

TEST(Layout, RangesAndTheMapFollowTheFigure) {
  const auto f = line_figure();
  const auto L = lay_out(f);
  EXPECT_EQ(std::pair(L.x.lo, L.x.hi), x_range(f));
  EXPECT_EQ(std::pair(L.y.lo, L.y.hi), y_range(f));
  // The data range fills the plot box: lo at its left (bottom), hi at its right (top).
  EXPECT_DOUBLE_EQ(L.x.to_page(L.x.lo), L.plot.x);
  EXPECT_DOUBLE_EQ(L.x.to_page(L.x.hi), L.plot.x + L.plot.w);
  EXPECT_DOUBLE_EQ(L.y.to_page(L.y.lo), L.plot.y + L.plot.h);
  EXPECT_DOUBLE_EQ(L.y.to_page(L.y.hi), L.plot.y);
  for (double v : {0.0, 7.5, 30.0}) EXPECT_NEAR(L.x.to_data(L.x.to_page(v)), v, 1e-9);
  // Inside the page, with room for the title above and the labels at the left and below.
  EXPECT_GT(L.plot.x, 10);
  EXPECT_GT(L.plot.y, kTitleSize);
  EXPECT_LT(L.plot.x + L.plot.w, 480);
  EXPECT_LT(L.plot.y + L.plot.h, 320 - kLabelSize);
}

TEST(Layout, ALongTitleAndNoteWrapInsideThePageAboveThePlot) {
  Figure f = line_figure();
  f.title = "a title long enough to need two lines on a narrow page";
  f.notes = {"per-position loss over 2 held-out sequences, log-spaced position buckets; bands: 95% intervals"};
  const double W = 240;
  const auto L = lay_out(f, W, 320);
  int lines = 0;
  double lowest = 0;
  for (const auto& [t, clipped] : all_of<Text>(L)) {
    if (t.style.size != kTitleSize && t.style.size != kNoteSize) continue;
    ++lines;
    const double w = fixed_pitch(t.text, t.style);
    EXPECT_GE(t.at.x - t.ax * w, 0.0) << t.text;  // inside the page on both sides
    EXPECT_LE(t.at.x + (1 - t.ax) * w, W) << t.text;
    lowest = std::max(lowest, t.at.y + t.style.size);
  }
  EXPECT_GE(lines, 4) << "the title and the note each wrapped";
  EXPECT_LE(lowest, L.plot.y + 1e-9) << "the plot box starts below the last heading line";
  // On a wide page the same heading stays on one line each.
  const auto wide = lay_out(f, 2000, 320);
  int wide_lines = 0;
  for (const auto& [t, clipped] : all_of<Text>(wide)) wide_lines += t.style.size == kTitleSize || t.style.size == kNoteSize;
  EXPECT_EQ(wide_lines, 2);
}

TEST(Layout, AnAxisLabelLongerThanItsSideIsSetSmallerAndStaysOnThePage) {
  Figure f = line_figure();
  f.y.label = "perplexity / perplexity of a run with a very long name indeed";
  const double H = 160;
  const auto L = lay_out(f, 480, H);
  bool found = false;
  for (const auto& [t, clipped] : all_of<Text>(L)) {
    if (!t.vertical) continue;
    found = true;
    const double w = fixed_pitch(t.text, t.style);  // along the page's height, turned
    EXPECT_LT(t.style.size, kLabelSize);
    EXPECT_GE(t.at.y - w / 2, 0.0);
    EXPECT_LE(t.at.y + w / 2, H);
  }
  EXPECT_TRUE(found);
  // A label that fits keeps the label size.
  for (const auto& [t, clipped] : all_of<Text>(lay_out(line_figure(), 480, H))) {
    if (t.vertical) {
      EXPECT_EQ(t.style.size, kLabelSize);
    }
  }
}

TEST(Layout, ALogAxisMapsDecadesEvenly) {
  Figure f = line_figure();
  f.x.scale = Scale::log;
  f.series[0].x = {1, 10, 100, 1000};
  const auto L = lay_out(f);
  EXPECT_TRUE(L.x.log);
  EXPECT_NEAR(L.x.to_page(100) - L.x.to_page(10), L.x.to_page(10) - L.x.to_page(1), 1e-9);
  EXPECT_NEAR(L.x.to_data(L.x.to_page(31.6)), 31.6, 1e-9);
  EXPECT_FALSE(L.x_minor.empty()) << "2..9 of each decade";
  for (double v : L.x_minor)
    for (const auto& t : L.x_ticks) EXPECT_GT(std::abs(v - t.value), 1e-9 * v) << "a minor tick under a major one";
}

TEST(Layout, TicksLieInTheRangeAndLabelsDoNotTouch) {
  Figure f = line_figure();
  f.series[0].x = {0, 123456};
  for (double width : {120.0, 480.0, 1600.0}) {
    const auto L = lay_out(f, width, 200);
    ASSERT_GE(L.x_ticks.size(), 2u);
    for (const auto& t : L.x_ticks) {
      EXPECT_GE(t.value, L.x.lo);
      EXPECT_LE(t.value, L.x.hi);
      EXPECT_EQ(t.label, tick_label(t.value));
    }
    EXPECT_TRUE(L.x_ticks.front().labelled);
    // Labelled neighbours keep their half-widths plus 4 pt apart.
    const Tick* prev = nullptr;
    for (const auto& t : L.x_ticks) {
      if (!t.labelled) continue;
      if (prev) {
        const double gap = L.x.to_page(t.value) - L.x.to_page(prev->value);
        EXPECT_GT(gap, (fixed_pitch(t.label, {kTickLabelSize}) + fixed_pitch(prev->label, {kTickLabelSize})) / 2 + 4);
      }
      prev = &t;
    }
    // Only the labelled ticks get text.
    size_t labelled = 0;
    for (const auto& t : L.x_ticks) labelled += t.labelled;
    size_t texts = 0;
    for (const auto& [text, clipped] : all_of<Text>(L))
      for (const auto& t : L.x_ticks) texts += t.labelled && text.text == t.label && text.ay == 0;
    EXPECT_EQ(texts, labelled) << "width " << width;
  }
}

TEST(Layout, LongTickLabelsWidenTheLeftMargin) {
  Figure a = line_figure(), b = line_figure();
  b.series[0].y = {5e-7, 4e-7, 3e-7, 2.5e-7};  // labels like 2.5e-7
  EXPECT_GT(lay_out(b).plot.x, lay_out(a).plot.x);
}

TEST(Layout, AGapInTheDataIsAGapInTheLine) {
  Figure f = line_figure();
  f.series[0].y[1] = std::numeric_limits<double>::quiet_NaN();
  const auto lines = all_of<Lines>(lay_out(f));
  const auto it = std::find_if(lines.begin(), lines.end(), [&](const auto& l) { return l.first.stroke.round_join; });
  ASSERT_NE(it, lines.end());
  ASSERT_EQ(it->first.paths.size(), 2u);
  EXPECT_EQ(it->first.paths[0].size(), 1u);
  EXPECT_EQ(it->first.paths[1].size(), 2u);
  EXPECT_TRUE(it->second) << "series are clipped to the plot";
}

TEST(Layout, AnIntervalBandIsShadedUnderItsLine) {
  Figure f = line_figure();
  f.series[0].lo = {4.5, 3.8, 3.2, 2.0};
  f.series[0].hi = {5.5, 4.2, 3.8, 3.1};
  const auto L = lay_out(f);
  EXPECT_LE(L.y.lo, 2.0) << "the band is in the range";
  const auto bands = all_of<Band>(L);
  ASSERT_EQ(bands.size(), 1u);
  const auto& b = bands[0].first;
  ASSERT_EQ(b.upper.size(), 4u);
  ASSERT_EQ(b.lower.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_DOUBLE_EQ(b.upper[i].x, b.lower[i].x);
    EXPECT_DOUBLE_EQ(b.upper[i].y, L.y.to_page(f.series[0].hi[i]));
    EXPECT_DOUBLE_EQ(b.lower[i].y, L.y.to_page(f.series[0].lo[i]));
    EXPECT_LT(b.upper[i].y, b.lower[i].y) << "hi above lo";
  }
  EXPECT_EQ(b.color, f.series[0].color);
  EXPECT_LT(b.alpha, 1.0);
  // Drawn before the line, so the line stays on top.
  size_t band_at = 0, line_at = 0;
  for (size_t i = 0; i < L.primitives.size(); ++i) {
    if (std::holds_alternative<Band>(L.primitives[i].shape)) band_at = i;
    if (const auto* l = std::get_if<Lines>(&L.primitives[i].shape); l && l->stroke.round_join) line_at = i;
  }
  EXPECT_LT(band_at, line_at);
  // The legend shows the band behind the entry's line.
  bool swatch = false;
  for (const auto& [fill, clipped] : all_of<Fill>(L)) swatch |= fill.color == f.series[0].color && fill.alpha < 1;
  EXPECT_TRUE(swatch);
}

TEST(Layout, TheLegendTakesTheCornerWithTheLeastData) {
  Figure f;
  for (int k = 0; k < 2; ++k) {
    Series s;
    s.name = k ? "b" : "a";
    for (int i = 0; i <= 20; ++i) {
      s.x.push_back(i);
      s.y.push_back(i + k);  // rising: the upper left and the lower right are empty
    }
    f.series.push_back(s);
  }
  const auto L = lay_out(f);
  ASSERT_TRUE(L.legend);
  EXPECT_EQ(L.legend->series, (std::vector<int>{0, 1}));
  const double cx = L.legend->box.x + L.legend->box.w / 2, cy = L.legend->box.y + L.legend->box.h / 2;
  EXPECT_LT(cx, L.plot.x + L.plot.w / 2) << "upper left";
  EXPECT_LT(cy, L.plot.y + L.plot.h / 2) << "upper left";
  f.legend = false;
  EXPECT_FALSE(lay_out(f).legend);
}

TEST(Layout, HeatmapRunsOfEqualCellsWithTheirColours) {
  const auto f = activation_map_figure(memory::Schedule::uniform(64, 4, 16), 32);
  const auto L = lay_out(f);
  const auto& h = *f.heatmap;
  // Row b is locked (0) until 4 b + 1, then active (1): at most two runs a row, covering every column.
  std::vector<int> covered(h.rows, 0);
  for (const auto& c : L.cells) {
    EXPECT_EQ(c.color, colormap("greys", c.value));
    for (int k = c.col_begin; k < c.col_end; ++k) EXPECT_EQ(h.values[size_t(c.row) * h.cols + k], c.value);
    covered[c.row] += c.col_end - c.col_begin;
  }
  EXPECT_LE(L.cells.size(), size_t(2 * h.rows));
  for (int r = 0; r < h.rows; ++r) EXPECT_EQ(covered[r], h.cols) << "row " << r;
  ASSERT_TRUE(L.colorbar);
  EXPECT_EQ(L.colorbar->ticks.front().value, 0);
  EXPECT_EQ(L.colorbar->ticks.back().value, 1);
  EXPECT_GT(L.colorbar->bar.x, L.plot.x + L.plot.w) << "beside the plot";
}

TEST(Layout, AMapOfOneBlockIsLabelledByWholeBlocks) {
  // E = 1: one row from -0.5 to 0.5, which nice ticks would label -0.5, 0 and 0.5.
  const auto L = lay_out(activation_map_figure(memory::Schedule::uniform(64, 1, 16), 32));
  ASSERT_EQ(L.y_ticks.size(), 1u);
  EXPECT_EQ(L.y_ticks[0].value, 0);
  for (const auto& t : lay_out(activation_map_figure(memory::Schedule::uniform(64, 2, 16), 32)).y_ticks)
    EXPECT_EQ(t.value, std::round(t.value)) << t.label;
}

TEST(Layout, AColourBarLabelLongerThanThePageIsSetSmallerAndStaysOnIt) {
  eval::NiahTaskGrid g;
  g.task = "single";
  g.lengths = {128, 256};
  g.depths = {0, 100};
  g.score = {10, 20, 30, 40};
  auto f = niah_heatmap_figure(g, "r");
  f.heatmap->colorbar_label = "accuracy (greedy answer token, % of the prompts of the cell)";
  const double H = 120;  // a short figure, as Explore's map strip
  const auto L = lay_out(f, 480, H);
  bool found = false;
  for (const auto& [t, clipped] : all_of<Text>(L)) {
    if (t.text != f.heatmap->colorbar_label) continue;
    found = true;
    EXPECT_TRUE(t.vertical);
    EXPECT_LT(t.style.size, kLabelSize);
    const double w = fixed_pitch(t.text, t.style);
    EXPECT_GE(t.at.y - w / 2, 0.0);
    EXPECT_LE(t.at.y + w / 2, H);
  }
  EXPECT_TRUE(found);
}

TEST(Layout, CellLabelsReadOnTheirCell) {
  EXPECT_EQ(label_color_on(colormap("viridis", 0)), (Rgb{1, 1, 1})) << "white on dark purple";
  EXPECT_EQ(label_color_on(colormap("viridis", 1)), (Rgb{0, 0, 0})) << "black on yellow";
  eval::NiahTaskGrid g;
  g.task = "s-niah-1";
  g.lengths = {128, 256};
  g.depths = {0, 100};
  g.score = {0, 100, 50, std::numeric_limits<double>::quiet_NaN()};
  const auto f = niah_heatmap_figure(g, "r");
  const auto L = lay_out(f);
  int labels = 0;
  for (const auto& [t, clipped] : all_of<Text>(L)) {
    if (t.text != "0" && t.text != "100" && t.text != "50") continue;
    if (!clipped) continue;  // tick and colour-bar labels are outside the plot
    ++labels;
    const double v = std::stod(t.text);
    EXPECT_EQ(t.color, label_color_on(heatmap_color(*f.heatmap, v))) << t.text;
  }
  EXPECT_EQ(labels, 3) << "every cell with a value, none for NaN";
  EXPECT_EQ(cell_label(37.5), "38");
  EXPECT_EQ(cell_label(0.25), "0.25");
}

// --- the rules that keep a figure inside its panel (issue 22) ------------------------------------

// Every Text of `size` (the title's, the notes') with its left and right ends.
std::vector<std::pair<Text, std::pair<double, double>>> heading_lines(const Layout& L, double size) {
  std::vector<std::pair<Text, std::pair<double, double>>> out;
  for (const auto& [t, clipped] : all_of<Text>(L))
    if (t.style.size == size && !t.vertical) {
      const double w = fixed_pitch(t.text, t.style);
      out.push_back({t, {t.at.x - t.ax * w, t.at.x + (1 - t.ax) * w}});
    }
  return out;
}

TEST(Layout, ATitleWiderThanItsPanelIsWrappedWithinThePanelAndKeptToThreeLines) {
  Figure f = line_figure();
  f.title = "Block occupancy: paper-per-position-cpu-proteus-e16-s1-with-a-long-tail, layer 0, head 0";
  for (double W : {140.0, 220.0, 480.0}) {
    const auto L = lay_out(f, W, 320);
    const auto lines = heading_lines(L, kTitleSize);
    ASSERT_FALSE(lines.empty());
    EXPECT_LE(lines.size(), 3u) << "width " << W;
    for (const auto& [t, ends] : lines) {
      EXPECT_GE(ends.first, 0.0) << t.text << " at width " << W;
      EXPECT_LE(ends.second, W) << t.text << " at width " << W;
    }
  }
  // Too long for three lines of a narrow panel: the third ends with "...".
  const auto narrow = heading_lines(lay_out(f, 140, 320), kTitleSize);
  ASSERT_EQ(narrow.size(), 3u);
  EXPECT_TRUE(narrow.back().first.text.ends_with("...")) << narrow.back().first.text;
}

TEST(Layout, ALongYLabelKeepsBesideThePlotBelowTheHeading) {
  Figure f = line_figure();
  f.y.label = "perplexity / perplexity of quickstart-baseline";
  f.notes = {"below 1: lower perplexity than quickstart-baseline; bands: 95% paired intervals (same sequences)",
             "dashed line: training length 256"};
  const auto L = lay_out(f, 200, 194);  // a figure of the window's grid at 1000 pixels
  double heading_bottom = 0;
  for (const auto& [t, clipped] : all_of<Text>(L))
    if (!t.vertical && (t.style.size == kTitleSize || t.style.size == kNoteSize))
      heading_bottom = std::max(heading_bottom, t.at.y + t.style.size);
  int vertical = 0;
  for (const auto& [t, clipped] : all_of<Text>(L)) {
    if (!t.vertical) continue;
    ++vertical;
    const double w = fixed_pitch(t.text, t.style);
    EXPECT_GE(t.at.y - w / 2, heading_bottom - 1e-9) << t.text << ": beside the heading";
    EXPECT_LE(t.at.y + w / 2, 194.0) << t.text;
    EXPECT_GE(t.style.size, 6.0) << t.text << ": two lines, still readable";
    EXPECT_LT(t.at.x + t.style.size, L.plot.x) << t.text << ": left of the plot";
  }
  EXPECT_EQ(vertical, 2) << "the label in two lines";
}

// Explore's activation strip: a heatmap 150 pixels tall with a two-line heading.
Figure activation_strip() { return activation_map_figure(memory::Schedule::uniform(1024, 16, 1024), 2048, "N = 1024"); }

TEST(Layout, AColourBarIsNeverShorterThanTheMinimumAndItsLabelsDoNotTouch) {
  const auto f = activation_strip();
  for (double H : {104.0, 150.0, 320.0}) {
    const auto L = lay_out(f, 600, H);
    ASSERT_TRUE(L.colorbar);
    const Box& bar = L.colorbar->bar;
    EXPECT_GE(bar.h, std::min(kMinColorBarHeight, L.plot.y + L.plot.h - 6) - 1e-9) << "height " << H;
    EXPECT_GE(bar.h, L.plot.h - 1e-9);
    EXPECT_NEAR(bar.y + bar.h, L.plot.y + L.plot.h, 1e-9) << "its foot at the plot's";
    EXPECT_GE(bar.y, 0.0);
    // Labelled ticks keep a label's height apart.
    const auto at = [&](double v) { return bar.y + bar.h - v * bar.h; };
    const Tick* prev = nullptr;
    for (const auto& t : L.colorbar->ticks) {
      if (!t.labelled) continue;
      if (prev) {
        EXPECT_GT(std::abs(at(t.value) - at(prev->value)), kTickLabelSize * kCapHeight) << t.label;
      }
      prev = &t;
    }
    // The heading keeps left of a bar that rises beside it.
    for (double size : {kTitleSize, kNoteSize})
      for (const auto& [t, ends] : heading_lines(L, size)) {
        if (t.at.y + size > bar.y) {
          EXPECT_LT(ends.second, bar.x) << t.text << " at height " << H;
        }
      }
  }
  EXPECT_LT(lay_out(f, 600, 104).plot.h, kMinColorBarHeight) << "the strip is thinner than the bar";
}

// Whether any stroke of `bars` (the error bars, with their caps) meets box r.
bool meets(const Lines& bars, const Box& r) {
  for (const auto& path : bars.paths)
    for (size_t i = 1; i < path.size(); ++i) {
      const double x0 = std::min(path[i - 1].x, path[i].x), x1 = std::max(path[i - 1].x, path[i].x);
      const double y0 = std::min(path[i - 1].y, path[i].y), y1 = std::max(path[i - 1].y, path[i].y);
      if (x1 >= r.x && x0 <= r.x + r.w && y1 >= r.y && y0 <= r.y + r.h) return true;
    }
  return false;
}

TEST(Layout, TheLegendHidesNoErrorBarOfAnEAblation) {
  // The quickstart's: the rightmost bar reaches the top right corner.
  const auto f = e_ablation_figure({{"delta", 1, 4.507, 4.449, 4.566}, {"delta", 16, 4.578, 4.522, 4.633}});
  for (const auto& [W, H] : {std::pair{480.0, 320.0}, std::pair{300.0, 200.0}}) {
    const auto L = lay_out(f, W, H);
    ASSERT_TRUE(L.legend);
    const Box& box = L.legend->box;
    int bars = 0;
    for (const auto& [l, clipped] : all_of<Lines>(L))
      if (clipped && !l.stroke.round_join && l.stroke.color == f.series[0].color) {
        ++bars;
        EXPECT_FALSE(meets(l, box)) << "the legend over an error bar at " << W << " x " << H;
      }
    EXPECT_EQ(bars, 1);
    for (const auto& [d, clipped] : all_of<Dots>(L))
      for (const auto& c : d.centres) {
        if (d.centres.size() > 1) {
          EXPECT_FALSE(box.contains(c)) << "the legend over a point";
        }
      }
  }
}

TEST(Layout, BetweenCornersFreeOfDataTheLegendTakesTheOneWithTheLeastBand) {
  // A flat line low in the plot; its band reaches the top at the right only.
  Figure f = line_figure();
  f.series[0].x = {0, 10, 20, 30};
  f.series[0].y = {1, 1, 1, 1};
  f.series[0].lo = {0.5, 0.5, 0.5, 0.5};
  f.series[0].hi = {1.5, 1.5, 1.5, 10};
  const auto L = lay_out(f);
  ASSERT_TRUE(L.legend);
  EXPECT_FALSE(L.legend->above);
  EXPECT_LT(L.legend->box.x + L.legend->box.w / 2, L.plot.x + L.plot.w / 2) << "upper left, off the band";
  EXPECT_LT(L.legend->box.y + L.legend->box.h / 2, L.plot.y + L.plot.h / 2) << "upper left, off the band";
}

TEST(Layout, AGuideLineThroughEveryCornerDoesNotPushTheLegendOutOfThePlot) {
  Figure f;
  Series rising;
  rising.name = "run";
  for (int i = 0; i <= 20; ++i) {
    rising.x.push_back(i);
    rising.y.push_back(i);  // the upper left and the lower right are empty of data
  }
  f.series.push_back(rising);
  for (double y : {20.5, -0.5}) {  // unnamed guides along the top and the bottom: through every corner
    Series guide;
    guide.x = {0, 20};
    guide.y = {y, y};
    guide.dashed = true;
    f.series.push_back(guide);
  }
  const auto L = lay_out(f);
  ASSERT_TRUE(L.legend);
  EXPECT_FALSE(L.legend->above) << "a reference line is not data";
}

TEST(Layout, WhereEveryCornerHoldsDataTheLegendGoesAboveThePlot) {
  Figure f = line_figure();
  f.series[0].x.clear();
  f.series[0].y.clear();
  for (int i = 0; i <= 40; ++i) {  // a zigzag through all four corners
    f.series[0].x.push_back(i);
    f.series[0].y.push_back(i % 2 ? 10 : 0);
  }
  const auto L = lay_out(f);
  ASSERT_TRUE(L.legend);
  EXPECT_TRUE(L.legend->above);
  EXPECT_LE(L.legend->box.y + L.legend->box.h, L.plot.y) << "above the plot box";
  EXPECT_GE(L.legend->box.x, L.plot.x);
  EXPECT_LE(L.legend->box.x + L.legend->box.w, L.plot.x + L.plot.w);
  double heading_bottom = 0;
  for (const auto& [t, ends] : heading_lines(L, kTitleSize)) heading_bottom = std::max(heading_bottom, t.at.y + kTitleSize);
  EXPECT_GE(L.legend->box.y, heading_bottom) << "below the title";
  EXPECT_FALSE(lay_out(line_figure()).legend->above) << "an empty corner keeps it inside";
}

TEST(Layout, EveryMarkerAndErrorBarCapLiesInsideThePlot) {
  // Points on the axis bounds (block use: entropy 0 and 1 on a fixed 0..1 axis, the positions at
  // the ends of an explicit x range), each with an interval reaching the bound.
  Figure f;
  f.x.min = 64;
  f.x.max = 512;
  f.x.scale = Scale::log;
  f.y.min = 0;
  f.y.max = 1;
  Series s;
  s.name = "run";
  s.markers = true;
  s.error_bars = true;
  s.x = {64, 128, 256, 512};
  s.y = {0, 0.5, 0.8, 1};
  s.lo = {0, 0.4, 0.7, 0.9};
  s.hi = {0.1, 0.6, 0.9, 1};
  f.series.push_back(s);
  const auto L = lay_out(f);
  const Box inside{L.plot.x, L.plot.y, L.plot.w, L.plot.h};
  int dots = 0;
  for (const auto& [d, clipped] : all_of<Dots>(L))
    for (const auto& c : d.centres) {
      if (d.centres.size() == 1) continue;  // the legend's sample
      ++dots;
      for (const Point edge : {Point{c.x - d.radius, c.y - d.radius}, Point{c.x + d.radius, c.y + d.radius}})
        EXPECT_TRUE(inside.contains(edge)) << "a marker at " << c.x << ", " << c.y << " is cut";
    }
  EXPECT_EQ(dots, 4);
  for (const auto& [l, clipped] : all_of<Lines>(L)) {
    if (!clipped || l.stroke.round_join) continue;
    for (const auto& path : l.paths)
      for (const auto& p : path) EXPECT_TRUE(inside.contains(p)) << "an error bar's cap is cut at " << p.x << ", " << p.y;
  }
  // Away from the edges nothing moves: the data range still fills a box with room around its data.
  const auto plain = lay_out(line_figure());
  EXPECT_DOUBLE_EQ(plain.x.to_page(plain.x.lo), plain.plot.x);
}

TEST(Layout, ALongNoteWrapsInsideANarrowPanel) {
  Figure f = line_figure();
  f.notes = {"mean over 2 held-out sequences, log-spaced position buckets; bands: 95% intervals (bootstrap over "
             "sequences, t over a group's seeds)"};
  for (double W : {150.0, 200.0, 300.0}) {
    const auto lines = heading_lines(lay_out(f, W, 240), kNoteSize);
    EXPECT_GE(lines.size(), 2u);
    for (const auto& [t, ends] : lines) {
      EXPECT_GE(ends.first, 0.0) << t.text;
      EXPECT_LE(ends.second, W) << t.text;
    }
  }
}

TEST(Layout, CairoMeasuresTheSameLayoutButTheText) {
  // The file painter's own layout: ranges, ticks and colours do not depend on the font.
  const auto f = line_figure();
  const auto a = lay_out(f), b = file_layout(f);
  EXPECT_EQ(a.x.lo, b.x.lo);
  EXPECT_EQ(a.y.hi, b.y.hi);
  ASSERT_EQ(a.x_ticks.size(), b.x_ticks.size());
  for (size_t i = 0; i < a.x_ticks.size(); ++i) EXPECT_EQ(a.x_ticks[i].value, b.x_ticks[i].value);
}

}  // namespace
