// The file painter (ARCHITECTURE seam 5): draws a Figure's Layout (layout.hpp: a paper figure in
// points) with cairo to PNG, SVG or PDF. The window paints the same Layout with ImDrawList.
#pragma once
#include <filesystem>
#include <string>

#include "core/figures/layout.hpp"

namespace proteus::figures {

enum class FileFormat { png, svg, pdf };

// The format a file name asks for by its extension (.png, .svg, .pdf; any case). Throws
// InputError(file, "unknown figure format ...") for anything else.
FileFormat format_for(const std::filesystem::path& file);

// Throws InputError("width" / "height" / "dpi", ...) unless 50 <= width_pt, height_pt <= 5000,
// 10 <= png_dpi <= 2400 and a PNG would stay within cairo's 32767 pixels a side.
void check_figure_size(double width_pt, double height_pt, double png_dpi);

// The layout render_figure paints: f on a width_pt x height_pt page, text measured by cairo.
Layout file_layout(const Figure& f, double width_pt = 480, double height_pt = 320);

// The figure's bytes in `format`, width_pt x height_pt points; a PNG has width_pt * png_dpi / 72
// pixels across. Throws InputError("width" / "height" / "dpi", ...) for sizes out of range and
// std::runtime_error when cairo fails.
std::string render_figure(const Figure& f, FileFormat format, double width_pt = 480, double height_pt = 320,
                          double png_dpi = 300);

// Renders to `file` in the format its extension names, atomically (a temporary beside it, then a
// rename), so a reader never sees half a figure. Throws as format_for and render_figure, and
// std::runtime_error when the file cannot be written.
void save_figure(const Figure& f, const std::filesystem::path& file, double width_pt = 480, double height_pt = 320,
                 double png_dpi = 300);

}  // namespace proteus::figures
