// The export loop: checked settings, the folder, then every figure in every format.
#include "core/figures/figure_export.hpp"

#include <algorithm>

#include "core/figures/painter.hpp"
#include "core/common/input_error.hpp"
#include "core/common/atomic_file.hpp"
#include "core/common/json_fields.hpp"

namespace proteus::figures {

const std::vector<std::string>& export_formats() {
  static const std::vector<std::string> formats = {"png", "svg", "pdf", "csv"};
  return formats;
}

namespace {

// "png, svg, pdf or csv"
std::string formats_or(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return out;
}

}  // namespace

void check_export_settings(const ExportSettings& s) {
  const auto& known = export_formats();
  for (const auto& f : s.formats)
    if (std::find(known.begin(), known.end(), f) == known.end())
      throw InputError("formats", "unknown format " + common::quoted(f) + " (expected " + formats_or(known) + ")");
  check_figure_size(s.width_pt, s.height_pt, s.dpi);
}

int export_file_count(const std::vector<NamedFigure>& figs, const ExportSettings& s) {
  const bool csv = std::find(s.formats.begin(), s.formats.end(), "csv") != s.formats.end();
  size_t n = figs.size() * s.formats.size();
  for (const auto& nf : figs) n += csv ? nf.figure.extra_csv.size() : 0;
  return static_cast<int>(n);
}

std::vector<std::string> export_figures(const std::vector<NamedFigure>& figs, const std::filesystem::path& dir,
                                        const ExportSettings& s, const std::function<bool(const std::string&)>& each) {
  check_export_settings(s);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (!std::filesystem::is_directory(dir))
    throw std::runtime_error("cannot make the folder " + dir.string() + (ec ? ": " + ec.message() : ""));
  std::vector<std::string> files;
  const auto wrote = [&](const std::filesystem::path& file) {
    files.push_back(file.string());
    return !each || each(file.string());
  };
  for (const auto& nf : figs)
    for (const auto& format : s.formats) {
      const auto file = dir / (file_name_part(nf.name) + "." + format);
      if (format == "csv") common::write_file_atomically(file, figure_csv(nf.figure));
      else save_figure(nf.figure, file, s.width_pt, s.height_pt, s.dpi);
      if (!wrote(file)) return files;
      if (format != "csv") continue;
      for (const auto& [suffix, text] : nf.figure.extra_csv) {
        const auto extra = dir / (file_name_part(nf.name + "_" + suffix) + ".csv");
        common::write_file_atomically(extra, text);
        if (!wrote(extra)) return files;
      }
    }
  return files;
}

}  // namespace proteus::figures
