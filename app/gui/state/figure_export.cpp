#include "app/gui/state/figure_export.hpp"

#include "core/figures/figure_set.hpp"
#include "core/common/input_error.hpp"
#include "core/common/atomic_file.hpp"
#include "core/common/folder_walk.hpp"
#include "core/runs/run_dir.hpp"

namespace proteus::gui {

std::filesystem::path export_run_folder(const std::filesystem::path& run_dir, const std::filesystem::path& dest,
                                        const figures::ExportSettings& s, std::vector<std::string>* unreadable) {
  const auto reader = runs::RunReader::open(run_dir);
  const auto target = dest / reader.name();
  if (std::filesystem::weakly_canonical(target) == std::filesystem::weakly_canonical(run_dir))
    throw InputError("dest", "is the run's own folder");
  std::error_code ec;
  std::filesystem::create_directories(target, ec);
  if (ec) throw std::runtime_error("cannot make " + target.string() + ": " + ec.message());
  // The run's own files only: a link, a loop or an unreadable entry is not copied (nor followed).
  for (const auto& file : common::list_regular_files(run_dir, unreadable)) {
    if (common::is_temporary_name(file.filename().string())) continue;
    common::copy_file_atomically(file, target / file.filename());
  }
  figures::export_figures(figures::standard_figures({reader}), target / "figures", s);
  return target;
}

ExportHandle start_figure_export(std::vector<figures::NamedFigure> figs, std::filesystem::path dir,
                                 figures::ExportSettings s) {
  return ExportHandle::start([figs = std::move(figs), dir = std::move(dir), s](engine::JobContext<ExportReport>& ctx) {
    ExportReport r;
    r.total = figures::export_file_count(figs, s);
    ctx.publish(std::make_shared<const ExportReport>(r));
    try {
      figures::export_figures(figs, dir, s, [&](const std::string& file) {
        r.files.push_back(file);
        ++r.done;
        ctx.publish(std::make_shared<const ExportReport>(r));
        ctx.set_progress({r.total ? double(r.done) / r.total : 1.0, "exporting", -1});
        return !ctx.cancelled();
      });
    } catch (const std::exception& e) {
      r.error = e.what();
      ctx.publish(std::make_shared<const ExportReport>(r));
    }
  });
}

}  // namespace proteus::gui
