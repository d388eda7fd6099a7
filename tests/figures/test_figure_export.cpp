// The export loop `proteus export` and the window share: settings refused before anything is
// written, every format of every figure under a safe file name, and a stop after any file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/figures/figure_export.hpp"
#include "core/common/input_error.hpp"
#include "tests/support/input_error_field.hpp"
#include "tests/train/tiny_run.hpp"

namespace {

using namespace proteus;
namespace fs = std::filesystem;

std::vector<figures::NamedFigure> two_figures() {
  std::vector<figures::NamedFigure> figs(2);
  figs[0].name = "a b/c";
  figs[1].name = "loss";
  for (auto& f : figs) f.figure.series.push_back({"s", {1, 2, 3}, {3, 1, 2}});
  return figs;
}

TEST(FigureExport, BadSettingsAreRefusedBeforeAnythingIsWritten) {
  const auto dir = test_support::fresh_dir("export-bad");
  std::vector<figures::NamedFigure> figs(1);
  figs[0].name = "x";
  figs[0].figure.series.push_back({"s", {1, 2}, {3, 4}});
  figures::ExportSettings s;
  s.formats = {"png", "gif"};
  EXPECT_THROW(figures::export_figures(figs, dir / "out", s), InputError);
  s.formats = {"png"};
  s.dpi = 5;
  EXPECT_THROW(figures::export_figures(figs, dir / "out", s), InputError);
  EXPECT_FALSE(std::filesystem::exists(dir / "out" / "x.png"));
}

TEST(FigureExport, EveryFormatOfEveryFigureUnderASafeName) {
  const auto dir = test_support::fresh_dir("export-all");
  figures::ExportSettings s;
  s.dpi = 50;
  const auto files = figures::export_figures(two_figures(), dir / "new" / "folder", s);
  ASSERT_EQ(files.size(), 8u);
  for (const char* ext : {"png", "svg", "pdf", "csv"}) {
    EXPECT_TRUE(fs::exists(dir / "new" / "folder" / (std::string("a_b_c.") + ext))) << ext;
    EXPECT_TRUE(fs::exists(dir / "new" / "folder" / (std::string("loss.") + ext))) << ext;
  }
  std::ifstream csv(dir / "new" / "folder" / "loss.csv");
  std::string header, first;
  std::getline(csv, header);
  std::getline(csv, first);
  EXPECT_EQ(header, "series,x,y");
  EXPECT_EQ(first, "s,1,3");
  fs::remove_all(dir);
}

TEST(FigureExport, StopsWhenAskedAfterAnyFile) {
  const auto dir = test_support::fresh_dir("export-stop");
  figures::ExportSettings s;
  s.formats = {"csv", "svg"};
  int seen = 0;
  const auto files = figures::export_figures(two_figures(), dir, s, [&](const std::string&) { return ++seen < 3; });
  EXPECT_EQ(seen, 3);
  EXPECT_EQ(files.size(), 3u);
  EXPECT_FALSE(fs::exists(dir / "loss.svg")) << "the fourth file was not written";
  fs::remove_all(dir);
}

TEST(FigureExport, SettingsNameTheField) {
  figures::ExportSettings s;
  s.formats = {"svg", "tiff"};
  EXPECT_EQ(test_support::field_of([&] { figures::check_export_settings(s); }), "formats");
  s.formats = {"svg"};
  s.width_pt = 10;
  EXPECT_EQ(test_support::field_of([&] { figures::check_export_settings(s); }), "width");
}

}  // namespace
