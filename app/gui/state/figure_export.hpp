// Export from the window: figures (what is on screen) to PNG, SVG, PDF and CSV in a folder, and a
// whole run as a folder (its files plus its figures). Done on a worker (engine::Handle) so the
// window keeps drawing; the same painter and CSV as `proteus export`.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "core/engine/job.hpp"
#include "core/figures/run_figures.hpp"

namespace proteus::gui {

struct ExportSettings {
  std::vector<std::string> formats = {"png", "svg", "pdf", "csv"};
  double width_pt = 480, height_pt = 320, dpi = 300;  // 6.7 x 4.4 in at 300 dpi: a paper column
};

struct ExportReport {
  int done = 0, total = 0;
  std::vector<std::string> files;  // written so far
  std::string error;               // the first failure; the export stops there
};

// Writes each figure as <dir>/<name>.<format>, atomically. Throws InputError for a bad format
// or size (before anything is written), std::runtime_error when a file cannot be written.
// `each` is called after every file; returning false stops.
std::vector<std::string> export_figures(const std::vector<figures::NamedFigure>& figs, const std::filesystem::path& dir,
                                        const ExportSettings& s,
                                        const std::function<bool(const std::string& file)>& each = {});

// Copies the run directory to <dest>/<run name> (checkpoints included) and writes its standard
// figures into <dest>/<run name>/figures. Returns the new folder. Throws InputError when run_dir is
// not a run, std::runtime_error when dest cannot be written.
std::filesystem::path export_run_folder(const std::filesystem::path& run_dir, const std::filesystem::path& dest,
                                        const ExportSettings& s);

using ExportHandle = engine::Handle<ExportReport>;
// export_figures on a worker; the report is published after each file.
ExportHandle start_figure_export(std::vector<figures::NamedFigure> figs, std::filesystem::path dir, ExportSettings s);

}  // namespace proteus::gui
