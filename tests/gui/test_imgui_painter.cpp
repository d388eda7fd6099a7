// The window's figure painter without a window (Dear ImGui runs headless: a context, a built font
// atlas, one frame): the layout it draws agrees with the file painter's on ranges, ticks, cells and
// colours, and its draw list holds the layout's primitives where the layout puts them.
#include <gtest/gtest.h>
#include <imgui.h>

#include <cmath>
#include <variant>

#include "app/gui/view/plot_view.hpp"
#include "core/figures/painter.hpp"
#include "core/figures/run_figures.hpp"
#include "tests/figures/sample_figures.hpp"
#include "tests/support/headless_imgui.hpp"

namespace {

using namespace proteus;
using namespace proteus::figures;
using gui::DrawnFigure;

// One ImGui frame with a full-screen window to draw into.
class ImGuiFrame : public ::testing::Test {
 protected:
  void SetUp() override {
    context_ = test_support::create_headless_imgui();
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImGui::GetIO().DisplaySize);
    ImGui::Begin("figures", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoSavedSettings);
  }
  void TearDown() override {
    ImGui::End();
    ImGui::Render();
    ImGui::DestroyContext(context_);
  }
  // Draws f as a page of width x height points; returns what the window laid out.
  DrawnFigure draw(const Figure& f, double width = 480, double height = 320) {
    const float s = gui::figure_scale();
    return gui::draw_figure("f", f, ImVec2(float(width) * s, float(height) * s));
  }
  ImGuiContext* context_ = nullptr;
};

Figure lines() { return test_support::sample_lines(/*bands=*/true); }
Figure grid() { return test_support::sample_grid(); }

void expect_same_ticks(const std::vector<Tick>& a, const std::vector<Tick>& b, const char* axis) {
  ASSERT_EQ(a.size(), b.size()) << axis;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].value, b[i].value) << axis << " tick " << i;
    EXPECT_EQ(a[i].label, b[i].label) << axis << " tick " << i;
  }
}

// What a primitive is and the colour it is drawn in; text left out (its count follows the font).
std::vector<std::pair<size_t, Rgb>> marks(const Layout& L) {
  std::vector<std::pair<size_t, Rgb>> out;
  for (const auto& p : L.primitives) {
    if (std::holds_alternative<Text>(p.shape)) continue;
    const Rgb c = std::visit(
        [](const auto& s) -> Rgb {
          using S = std::decay_t<decltype(s)>;
          if constexpr (std::is_same_v<S, Lines>) return s.stroke.color;
          else if constexpr (std::is_same_v<S, Gradient>) return s.stops.empty() ? Rgb{} : s.stops.back();
          else if constexpr (std::is_same_v<S, Cells>) return Rgb{};  // the cells are compared one by one
          else return s.color;
        },
        p.shape);
    out.emplace_back(p.shape.index(), c);
  }
  return out;
}

TEST_F(ImGuiFrame, TheWindowAndTheFileLayTheFigureOutAlike) {
  for (const auto& f : {lines(), grid(), activation_map_figure(memory::Schedule::uniform(1024, 16, 256), 512, "p")}) {
    SCOPED_TRACE(f.title);
    const auto window = draw(f).layout;
    const auto file = file_layout(f, 480, 320);
    EXPECT_NEAR(window.width, 480, 1e-3);
    EXPECT_NEAR(window.height, 320, 1e-3);
    EXPECT_EQ(window.x.lo, file.x.lo);
    EXPECT_EQ(window.x.hi, file.x.hi);
    EXPECT_EQ(window.y.lo, file.y.lo);
    EXPECT_EQ(window.y.hi, file.y.hi);
    EXPECT_EQ(window.x.log, file.x.log);
    expect_same_ticks(window.x_ticks, file.x_ticks, "x");
    expect_same_ticks(window.y_ticks, file.y_ticks, "y");
    EXPECT_EQ(window.x_minor, file.x_minor);
    ASSERT_EQ(window.colorbar.has_value(), file.colorbar.has_value());
    if (file.colorbar) {
      expect_same_ticks(window.colorbar->ticks, file.colorbar->ticks, "colour bar");
    }
    ASSERT_EQ(window.cells.size(), file.cells.size());
    for (size_t i = 0; i < file.cells.size(); ++i) {
      EXPECT_EQ(window.cells[i].row, file.cells[i].row);
      EXPECT_EQ(window.cells[i].col_begin, file.cells[i].col_begin);
      EXPECT_EQ(window.cells[i].col_end, file.cells[i].col_end);
      EXPECT_EQ(window.cells[i].color, file.cells[i].color);
    }
    ASSERT_EQ(window.legend.has_value(), file.legend.has_value());
    if (file.legend) {
      EXPECT_EQ(window.legend->series, file.legend->series);
    }
    EXPECT_EQ(marks(window), marks(file)) << "the same shapes in the same colours, in the same order";
    // Only the text's size moves the plot box, by a few points.
    EXPECT_NEAR(window.plot.x, file.plot.x, 12);
    EXPECT_NEAR(window.plot.w, file.plot.w, 24);
  }
}

ImU32 u32(const Rgb& c, double alpha = 1) {
  return ImGui::ColorConvertFloat4ToU32(ImVec4(c[0], c[1], c[2], static_cast<float>(alpha)));
}

// Whether the draw list has a vertex of colour `col` within `tol` pixels of p.
bool has_vertex(const ImDrawList* dl, ImVec2 p, ImU32 col, float tol = 1.0f) {
  for (const auto& v : dl->VtxBuffer)
    if (v.col == col && std::abs(v.pos.x - p.x) <= tol && std::abs(v.pos.y - p.y) <= tol) return true;
  return false;
}

TEST_F(ImGuiFrame, TheDrawListHoldsTheLayoutsCellsLinesAndBands) {
  const ImDrawList* dl = ImGui::GetWindowDrawList();
  const auto heat = draw(grid());
  ASSERT_FALSE(heat.layout.cells.empty());
  for (const auto& c : heat.layout.cells) {
    // A cell is a rectangle in its colour at the layout's corners (widened half a pixel).
    const ImVec2 a = heat.to_screen(Point{c.box.x, c.box.y});
    const ImVec2 b = heat.to_screen(Point{c.box.x + c.box.w, c.box.y + c.box.h});
    EXPECT_TRUE(has_vertex(dl, ImVec2(a.x - 0.5f, a.y), u32(c.color))) << "row " << c.row << " col " << c.col_begin;
    EXPECT_TRUE(has_vertex(dl, ImVec2(b.x + 0.5f, b.y), u32(c.color))) << "row " << c.row << " col " << c.col_begin;
  }
  ImGui::NewLine();
  const auto line = draw(lines());
  const auto& f = lines();
  for (size_t k = 0; k < f.series.size(); ++k) {
    const auto& s = f.series[k];
    // The band's corner at the first point, translucent; the line through the last point.
    const auto lo = line.to_screen({line.layout.x.to_page(s.x[0]), line.layout.y.to_page(s.lo[0])});
    EXPECT_TRUE(has_vertex(dl, lo, u32(s.color, 0.2))) << s.name;
    const auto last = line.to_screen({line.layout.x.to_page(s.x.back()), line.layout.y.to_page(s.y.back())});
    EXPECT_TRUE(has_vertex(dl, last, u32(s.color), 4.0f)) << s.name;
  }
}

TEST_F(ImGuiFrame, TurnedTextReadsBottomToTopAboutItsAnchor) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  Layout L;
  L.width = L.height = 200;
  L.plot = {0, 0, 200, 200};
  Text label;
  label.text = "perplexity of the baseline";
  label.at = {100, 100};
  label.ax = label.ay = 0.5;
  label.style = {kLabelSize, false};
  for (bool vertical : {false, true}) {
    label.vertical = vertical;
    L.primitives = {{label, false}};
    const int first = dl->VtxBuffer.Size + 4;  // after the white page
    gui::paint_layout(dl, L, ImVec2(100, 100), 1.5f);
    ImVec2 lo(1e9f, 1e9f), hi(-1e9f, -1e9f);
    for (int i = first; i < dl->VtxBuffer.Size; ++i) {
      const ImVec2 p = dl->VtxBuffer[i].pos;
      lo = ImVec2(std::min(lo.x, p.x), std::min(lo.y, p.y));
      hi = ImVec2(std::max(hi.x, p.x), std::max(hi.y, p.y));
    }
    ASSERT_LT(lo.x, hi.x);
    const float w = hi.x - lo.x, h = hi.y - lo.y;
    if (vertical) EXPECT_GT(h, 3 * w) << "turned: taller than wide";
    else EXPECT_GT(w, 3 * h);
    // Centred on the anchor (100 + 100 * 1.5 = 250 on both axes) along the text.
    const float mid = vertical ? (lo.y + hi.y) / 2 : (lo.x + hi.x) / 2;
    EXPECT_NEAR(mid, 250, 2);
  }
}

}  // namespace
