// The cairo file painter: PNG (signature, IHDR size = pt * dpi / 72), SVG and PDF headers, a
// refused extension, no temporaries left behind, figures with every part drawn, and the pixels
// where the layout puts them.
#include <cairo.h>
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
#include "tests/figures/sample_figures.hpp"

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

Figure lines() { return test_support::sample_lines(); }
Figure grid() { return test_support::sample_grid(); }

// A PNG decoded to pixels (0xAARRGGBB), through cairo's own reader.
class Pixels {
 public:
  explicit Pixels(const std::string& png) : bytes_(png) {
    surface_ = cairo_image_surface_create_from_png_stream(
        [](void* closure, unsigned char* data, unsigned int length) {
          auto* self = static_cast<Pixels*>(closure);
          if (self->read_ + length > self->bytes_.size()) return CAIRO_STATUS_READ_ERROR;
          std::copy_n(self->bytes_.data() + self->read_, length, data);
          self->read_ += length;
          return CAIRO_STATUS_SUCCESS;
        },
        this);
  }
  ~Pixels() { cairo_surface_destroy(surface_); }
  bool ok() const { return cairo_surface_status(surface_) == CAIRO_STATUS_SUCCESS; }
  int width() const { return cairo_image_surface_get_width(surface_); }
  int height() const { return cairo_image_surface_get_height(surface_); }
  uint32_t at(double x, double y) const {
    const auto* row = cairo_image_surface_get_data(surface_) + static_cast<int>(y) * cairo_image_surface_get_stride(surface_);
    return reinterpret_cast<const uint32_t*>(row)[static_cast<int>(x)];
  }

 private:
  std::string bytes_;
  size_t read_ = 0;
  cairo_surface_t* surface_ = nullptr;
};

uint32_t argb(const Rgb& c) {
  auto byte = [](float v) { return static_cast<uint32_t>(std::lround(v * 255)); };
  return 0xff000000u | byte(c[0]) << 16 | byte(c[1]) << 8 | byte(c[2]);
}

bool near(uint32_t a, uint32_t b) {
  for (int shift : {0, 8, 16, 24})
    if (std::abs(int((a >> shift) & 0xff) - int((b >> shift) & 0xff)) > 1) return false;
  return true;
}

// Pixels that are not the white page: a painter that drew nothing leaves none.
size_t inked(const Pixels& px) {
  size_t n = 0;
  for (int y = 0; y < px.height(); ++y)
    for (int x = 0; x < px.width(); ++x) n += px.at(x, y) != 0xffffffffu;
  return n;
}

// Pixels in (about) colour c.
size_t in_colour(const Pixels& px, const Rgb& c) {
  size_t n = 0;
  for (int y = 0; y < px.height(); ++y)
    for (int x = 0; x < px.width(); ++x) n += near(px.at(x, y), argb(c));
  return n;
}

// A figure with something drawn: at least 1% of the page inked.
void expect_painted(const std::string& png, const std::string& what) {
  const Pixels px(png);
  ASSERT_TRUE(px.ok()) << what;
  const size_t area = size_t(px.width()) * size_t(px.height());
  EXPECT_GT(inked(px), area / 100) << what << ": the image is (nearly) blank";
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
    // And it shows the figure: ink on the page, each series in its own colour.
    expect_painted(b, file.string());
    const Pixels px(b);
    for (const auto& series : lines().series)
      EXPECT_GT(in_colour(px, series.color), 20u) << series.name << " is not drawn in its colour";
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
  const auto o = test_support::sample_occupancy(64);
  const std::vector<Figure> figs = {
      lines(), grid(), occupancy_figure(o, 0, 0, "p", true),
      activation_map_figure(memory::Schedule::uniform(1024, 16, 256), 512, "p"),
      e_ablation_figure({{"delta", 1, 2.5}, {"delta", 2, 2.45}, {"delta", 32, 2.4}}), Figure{}};
  for (size_t i = 0; i < figs.size(); ++i)
    for (const char* ext : {".png", ".svg", ".pdf"}) {
      const auto file = dir / (std::to_string(i) + ext);
      EXPECT_NO_THROW(save_figure(figs[i], file, 400, 300, 100)) << file;
      EXPECT_GT(fs::file_size(file), 100u) << file;
      const bool empty_figure = i + 1 == figs.size();  // Figure{}: painted without a crash, nothing more
      if (empty_figure) continue;
      if (std::string(ext) == ".png") expect_painted(read(file), file.string());
      if (std::string(ext) == ".svg") {
        const auto svg = read(file);
        size_t paths = 0;
        for (size_t at = svg.find("<path"); at != std::string::npos; at = svg.find("<path", at + 1)) ++paths;
        EXPECT_GT(paths, 5u) << file << ": next to nothing drawn";
      }
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

// At 72 dpi a pixel is a point: every cell run of the layout is in its colour where the layout
// put it, and a cell with no value is left white.
TEST(RenderFigure, PaintsTheCellsWhereTheLayoutPutsThem) {
  for (const auto& f : {occupancy_figure(test_support::sample_occupancy(24), 0, 0, "p"), grid()}) {
    const auto L = file_layout(f, 480, 320);
    const Pixels px(render_figure(f, FileFormat::png, 480, 320, 72));
    ASSERT_TRUE(px.ok());
    ASSERT_FALSE(L.cells.empty());
    for (const auto& c : L.cells) {
      if (c.box.w < 3 || c.box.h < 3) continue;
      // A quarter in from the corner: clear of the edges and of a centred value label.
      EXPECT_TRUE(near(px.at(c.box.x + c.box.w / 4, c.box.y + c.box.h / 4), argb(c.color)))
          << f.title << ": row " << c.row << " cols " << c.col_begin << ".." << c.col_end;
    }
  }
  // NIAH cell (depth 50%, length 256) has no value: white.
  const auto g = grid();
  const auto L = file_layout(g, 480, 320);
  const Pixels px(render_figure(g, FileFormat::png, 480, 320, 72));
  const double x = L.x.to_page(1.25), y = L.y.to_page(2.75);  // a quarter into column 1 of row 2
  EXPECT_EQ(px.at(x, y), 0xffffffffu);
}

TEST(RenderFigure, PngIsDeterministic) {
  const auto png = render_figure(lines(), FileFormat::png, 200, 150, 72);
  expect_painted(png, "lines at 72 dpi");  // two blank images are equal too
  EXPECT_EQ(png, render_figure(lines(), FileFormat::png, 200, 150, 72));
  EXPECT_EQ(format_for("x.Svg"), FileFormat::svg);
}

}  // namespace
