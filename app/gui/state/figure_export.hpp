// Export from the window: figures (what is on screen) through the export loop `proteus export`
// uses (core/figures/figure_export.hpp), done on a worker (engine::Handle) so the window keeps
// drawing; and a whole run as a folder (its files plus its figures).
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "core/engine/job.hpp"
#include "core/figures/figure_export.hpp"

namespace proteus::gui {

struct ExportReport {
  int done = 0, total = 0;
  std::vector<std::string> files;  // written so far
  std::string error;               // the first failure; the export stops there
};

// Copies the run directory to <dest>/<run name> (checkpoints included) and writes its standard
// figures into <dest>/<run name>/figures. Returns the new folder. Throws InputError when run_dir is
// not a run, std::runtime_error when dest cannot be written. Only the run's regular files are
// copied: an entry it cannot read, or a link, is left out and named in `unreadable` when given.
std::filesystem::path export_run_folder(const std::filesystem::path& run_dir, const std::filesystem::path& dest,
                                        const figures::ExportSettings& s, std::vector<std::string>* unreadable = nullptr);

using ExportHandle = engine::Handle<ExportReport>;
// figures::export_figures on a worker; the report is published after each file.
ExportHandle start_figure_export(std::vector<figures::NamedFigure> figs, std::filesystem::path dir,
                                 figures::ExportSettings s);

}  // namespace proteus::gui
