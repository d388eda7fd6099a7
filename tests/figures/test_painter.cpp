// The cairo file painter: PNG (signature, IHDR size = pt * dpi / 72), SVG and PDF headers, a
// refused extension, no temporaries left behind, and figures with every part drawn.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <tuple>

#include "core/figures/painter.hpp"
#include "core/figures/run_figures.hpp"
#include "core/common/input_error.hpp"

namespace {

using namespace proteus;
using namespace proteus::figures;
namespace fs = std::filesystem;

fs::path temp_dir() {
  auto d = fs::temp_directory_path() / ("proteus-painter-" + std::to_string(std::random_device{}()));
  fs::create_directories(d);
  return d;
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

uint32_t be32(const std::string& b, size_t at) {
  return (uint32_t(uint8_t(b[at])) << 24) | (uint32_t(uint8_t(b[at + 1])) << 16) | (uint32_t(uint8_t(b[at + 2])) << 8) |
         uint32_t(uint8_t(b[at + 3]));
}

// A line figure with everything: two runs, a dashed series with markers, a NaN gap, log x.
Figure lines() {
  Figure f;
  f.title = "Perplexity by position";
  f.notes = {"mean over 8 held-out sequences"};
  f.x.label = "position";
  f.x.scale = Scale::log;
  f.y.label = "perplexity";
  for (int r = 0; r < 2; ++r) {
    Series s;
    s.name = r ? "proteus" : "baseline";
    s.color = palette(r);
    s.dashed = r == 1;
    s.markers = r == 1;
    for (int t = 1; t <= 512; t *= 2) {
      s.x.push_back(t);
      s.y.push_back(t == 8 && r == 0 ? std::numeric_limits<double>::quiet_NaN() : 10.0 / std::sqrt(t) + r);
    }
    f.series.push_back(s);
  }
  return f;
}

Figure grid() {
  eval::NiahTaskGrid g;
  g.task = "s-niah-1";
  g.lengths = {128, 256, 512};
  g.depths = {0, 25, 50, 75, 100};
  for (int i = 0; i < 15; ++i) g.score.push_back(i == 7 ? std::numeric_limits<double>::quiet_NaN() : i * 7.0);
  return niah_heatmap_figure(g, "proteus");
}

TEST(SaveFigure, PngHasTheSignatureAndThePixelSize) {
  const auto dir = temp_dir();
  for (const auto& [w, h, dpi] : std::vector<std::tuple<double, double, double>>{{480, 320, 300}, {240, 180, 72}, {300, 200, 150}}) {
    const auto file = dir / "lines.png";
    save_figure(lines(), file, w, h, dpi);
    const auto b = read(file);
    ASSERT_GT(b.size(), 33u);
    EXPECT_EQ(b.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
    EXPECT_EQ(b.substr(12, 4), "IHDR");
    EXPECT_EQ(be32(b, 16), static_cast<uint32_t>(std::lround(w * dpi / 72)));
    EXPECT_EQ(be32(b, 20), static_cast<uint32_t>(std::lround(h * dpi / 72)));
  }
  fs::remove_all(dir);
}

TEST(SaveFigure, SvgAndPdf) {
  const auto dir = temp_dir();
  for (const auto& f : {lines(), grid()}) {
    save_figure(f, dir / "f.svg");
    const auto svg = read(dir / "f.svg");
    EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
    EXPECT_NE(svg.find("<svg"), std::string::npos);
    EXPECT_NE(svg.find("</svg>"), std::string::npos) << "the document is complete";
    save_figure(f, dir / "f.PDF");  // the extension in any case
    const auto pdf = read(dir / "f.PDF");
    EXPECT_EQ(pdf.rfind("%PDF", 0), 0u);
    EXPECT_NE(pdf.find("%%EOF"), std::string::npos);
  }
  fs::remove_all(dir);
}

TEST(SaveFigure, EveryBuilderPaints) {
  const auto dir = temp_dir();
  eval::OccupancyResult o;
  o.layers = o.heads = 1;
  o.seq_len = 64;
  o.blocks = 4;
  for (int t = 0; t < 64; ++t)
    for (int b = 0; b < 4; ++b) o.norms.push_back(static_cast<float>(b <= t / 16 ? 1.0 + t * 0.01 : 0.0));
  const std::vector<Figure> figs = {
      lines(), grid(), occupancy_figure(o, 0, 0, "p", true),
      activation_map_figure(memory::Schedule::uniform(1024, 16, 256), 512, "p"),
      e_ablation_figure({{"delta", 1, 2.5}, {"delta", 2, 2.45}, {"delta", 32, 2.4}}), Figure{}};
  for (size_t i = 0; i < figs.size(); ++i)
    for (const char* ext : {".png", ".svg", ".pdf"}) {
      const auto file = dir / (std::to_string(i) + ext);
      EXPECT_NO_THROW(save_figure(figs[i], file, 400, 300, 100)) << file;
      EXPECT_GT(fs::file_size(file), 100u) << file;
    }
  fs::remove_all(dir);
}

TEST(SaveFigure, RefusesAnUnknownExtensionNamingTheFile) {
  const auto dir = temp_dir();
  try {
    save_figure(lines(), dir / "plot.gif");
    FAIL() << "a .gif was written";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("plot.gif"), std::string::npos) << e.what();
  }
  EXPECT_THROW(save_figure(lines(), dir / "plot"), InputError);
  EXPECT_THROW(save_figure(lines(), dir / "a.png", 0, 320), InputError);
  EXPECT_THROW(save_figure(lines(), dir / "a.png", 4000, 4000, 2400), InputError) << "over cairo's pixel limit";
  EXPECT_TRUE(fs::is_empty(dir)) << "nothing written for a refused figure";
  fs::remove_all(dir);
}

TEST(SaveFigure, LeavesNoTemporaries) {
  const auto dir = temp_dir();
  save_figure(grid(), dir / "a.png", 200, 150, 72);
  save_figure(grid(), dir / "a.png", 200, 150, 72);  // replaces it
  save_figure(grid(), dir / "a.svg");
  save_figure(grid(), dir / "a.pdf");
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"a.pdf", "a.png", "a.svg"}));
  fs::remove_all(dir);
}

TEST(RenderFigure, PngIsDeterministic) {
  EXPECT_EQ(render_figure(lines(), FileFormat::png, 200, 150, 72), render_figure(lines(), FileFormat::png, 200, 150, 72));
  EXPECT_EQ(format_for("x.Svg"), FileFormat::svg);
}

}  // namespace
