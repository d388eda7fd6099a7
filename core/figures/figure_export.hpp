// Writing a set of figures to a folder, the one export loop `proteus export` and the window
// share: each figure in every asked format (PNG, SVG, PDF through the file painter; CSV of its
// data) as <dir>/<name>.<format>, atomically, so a reader never sees half a file.
#pragma once
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/figures/run_figures.hpp"

namespace proteus::figures {

// The formats an export knows, in the order they are offered: png, svg, pdf, csv. The one list:
// the CLI's --formats, its help, the window's check boxes and the messages read it.
const std::vector<std::string>& export_formats();

struct ExportSettings {
  std::vector<std::string> formats = export_formats();  // every format unless asked otherwise
  double width_pt = 480, height_pt = 320, dpi = 300;  // 6.7 x 4.4 in at 300 dpi: a paper column
};

// Throws InputError("formats", ...) for an unknown format and InputError("width" / "height" /
// "dpi", ...) for a size out of range (check_figure_size).
void check_export_settings(const ExportSettings& s);

// How many files export_figures writes: one per figure and format, and with csv each figure's extra_csv.
int export_file_count(const std::vector<NamedFigure>& figs, const ExportSettings& s);

// Writes each figure as <dir>/<file_name_part(name)>.<format> (and with csv its extra_csv tables
// as <dir>/<file_name_part(name + "_" + suffix)>.csv), making dir first. Settings are
// checked before anything is written (InputError); std::runtime_error when the folder or a file
// cannot be written. `each` is called after every file; returning false stops. Returns the files.
std::vector<std::string> export_figures(const std::vector<NamedFigure>& figs, const std::filesystem::path& dir,
                                        const ExportSettings& s,
                                        const std::function<bool(const std::string& file)>& each = {});

}  // namespace proteus::figures
