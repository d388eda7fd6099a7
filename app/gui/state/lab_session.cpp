#include "app/gui/state/lab_session.hpp"

#include <algorithm>
#include <cstdio>

#include "app/gui/state/ui_settings.hpp"
#include "core/common/data_root.hpp"
#include "core/config/preset_path.hpp"

namespace proteus::gui {

LabSession::LabSession(std::filesystem::path root, std::filesystem::path runs_dir) : source_root(std::move(root)) {
  runs.dir = std::move(runs_dir);
  editor.presets = find_presets(source_root / "experiments");
  // With no preset named, the window starts on the quickstart (or valid defaults), never on an error.
  if (const auto preset = editor.experiment.open_default(editor.presets)) {
    editor.preset_label = preset->label;
    notify("loaded " + preset->path.string());
  }
  device = probe_device();
  use_runs_dir();
  runs.panel.folder = runs.dir.string();
  teach.stepper.go_to(0);
  runs.browser.start_rescan(runs.dir);  // on a worker: a folder of a thousand runs never holds up the window
  editor_changed();
}

ActionResult LabSession::report(ActionResult r) {
  status_line.post(r.message, r.ok ? Notice::info : Notice::error);
  return r;
}

void LabSession::notify(const std::string& message) { status_line.post(message, Notice::info); }

void LabSession::notify_error(const std::string& message) { status_line.post(message, Notice::error); }

void LabSession::poll_workers() {
  if (training.refresh()) {
    const auto* s = training.snapshot();
    if (s && s->done) runs.browser.start_rescan(runs.dir);
  }
  runs.browser.poll();
  explore.session.refresh();
  if (export_job_.valid() && !export_job_.running() && export_job_.latest()) {
    const auto r = export_job_.latest();
    export_ended_ = report(r->error.empty() ? succeeded("exported " + std::to_string(r->files.size()) + " files to " + exports.dir)
                                            : failed("export failed: " + r->error));
    export_job_ = ExportHandle();
  }
}

void LabSession::use_runs_dir() {
  const std::string dir = runs.dir.string();
  editor.experiment.edit_config([&](config::RunConfig& c) {
    if (c.runs_dir == dir) return false;
    c.runs_dir = dir;
    return true;
  });
}

void LabSession::editor_changed() {
  editor.problem = editor.experiment.problem();
  try {
    editor.activation = editor.experiment.activation_figure();
    activation_figures_ = {{"activation_map", *editor.activation}};
    editor.state_opening = editor.experiment.state_opening_figure();
    if (editor.state_opening) activation_figures_.push_back({"state_opening", *editor.state_opening});
    editor.activation_error.clear();
  } catch (const std::exception& e) {
    editor.activation.reset();
    editor.state_opening.reset();
    activation_figures_.clear();
    editor.activation_error = e.what();
  }
}

ActionResult LabSession::load_experiment(const std::filesystem::path& file) {
  const auto found = config::find_preset(file, common::data_root(), config::user_experiments_dir());
  try {
    editor.experiment.load(found);
  } catch (const std::exception& e) {
    return report(failed(e.what(), found));
  }
  use_runs_dir();
  editor_changed();
  editor.preset_label.clear();
  std::error_code ec;
  for (const auto& p : editor.presets)
    if (std::filesystem::equivalent(p.path, found, ec)) editor.preset_label = p.label;
  const auto loaded = report(succeeded("loaded " + found.string(), found));
  for (const auto& n : editor.experiment.notes) notify(n);
  return loaded;
}

std::filesystem::path LabSession::save_target(const std::string& field) const {
  try {
    return config::save_path(field, common::data_root(), common::runs_installed(), config::user_experiments_dir());
  } catch (const std::exception&) {
    return field;  // a shipped preset with no home folder: save_experiment says why it cannot
  }
}

bool LabSession::save_asks_first(const std::filesystem::path& target) const {
  std::error_code ec;
  return std::filesystem::exists(target, ec) && target.string() != editor.controls.last_saved;
}

ActionResult LabSession::save_experiment(const std::string& field) {
  std::filesystem::path target;
  try {
    const auto user = config::user_experiments_dir();
    target = config::save_path(field, common::data_root(), common::runs_installed(), user);
    const auto folder = target.parent_path();
    if (!user.empty() && !folder.empty() && folder.lexically_relative(user).native().rfind("..", 0) != 0)
      std::filesystem::create_directories(folder);  // the user's experiments folder, on the first save
    editor.experiment.save(target);
  } catch (const std::exception& e) {
    return report(failed(std::string("cannot save: ") + e.what()));
  }
  editor.controls.experiment_file = editor.controls.last_saved = target.string();
  return report(succeeded(
      "saved " + target.string() + " (runs with: proteus " + editor.experiment.cli_command() + " " + target.string() + ")",
      target));
}

ActionResult LabSession::start_training() {
  if (training.active()) return report(failed("a training job is running: stop it first"));
  try {
    use_runs_dir();
    auto r = editor.experiment.valid_runs();
    // Side by side only for one pair: more runs at once would share the cores too thinly.
    const bool side_by_side = editor.experiment.mode() == RunMode::compare && editor.experiment.seeds() == 1;
    const size_t count = r.size();
    training.start(std::move(r), {.side_by_side = side_by_side});
    show(Tab::training);
    return report(succeeded(side_by_side ? "training baseline and Proteus side by side"
                            : count > 1  ? "training " + std::to_string(count) + " runs one after another"
                                         : "training started"));
  } catch (const std::exception& e) {
    return report(failed(e.what()));
  }
}

ActionResult LabSession::open_explore(const std::string& run_dir) {
  if (const auto err = explore.session.open(run_dir); !err.empty()) return report(failed(err, run_dir));
  show(Tab::explore);
  return report(succeeded("exploring " + run_dir + ": edit the schedule, the curves follow", run_dir));
}

ActionResult LabSession::start_export(const std::vector<figures::NamedFigure>& figs, const std::filesystem::path& dir) {
  if (export_busy()) return failed("an export is running", dir);  // the button is hidden meanwhile: nothing to say
  if (figs.empty()) return report(failed("nothing to export yet", dir));
  export_job_ = start_figure_export(figs, dir, exports.settings);
  export_ended_.reset();
  return report(succeeded("exporting " + std::to_string(figs.size()) + " figures to " + dir.string(), dir));
}

double LabSession::export_fraction() const { return export_busy() ? export_job_.progress().fraction : 0.0; }

void LabSession::cancel_export() {
  if (export_busy()) export_job_.cancel();
}

void LabSession::request_ui_scale(float scale) {
  const float s = std::clamp(scale, kMinUiScale, kMaxUiScale);
  if (s == display.ui_scale && !ui_scale_request_) return;
  ui_scale_request_ = s;
  char buf[64];
  std::snprintf(buf, sizeof buf, "UI scale %g (Ctrl + / Ctrl - / Ctrl 0)", double(s));
  notify(buf);
}

std::optional<float> LabSession::take_ui_scale_request() {
  auto r = ui_scale_request_;
  ui_scale_request_.reset();
  return r;
}

void LabSession::toggle_presentation() {
  display.presenting = !display.presenting;
  if (!display.presenting) return;
  // Enter on the figure most lessons are about, when the tab has it.
  const auto& figs = presentation_figures();
  display.presented_figure = 0;
  for (size_t i = 0; i < figs.size(); ++i)
    if (figs[i].name == "per_position") display.presented_figure = static_cast<int>(i);
}

const std::vector<figures::NamedFigure>& LabSession::presentation_figures() const {
  static const std::vector<figures::NamedFigure> none;  // an immutable empty list, not UI state
  switch (current_tab_) {
    case Tab::training: return training.figures();
    case Tab::runs: return runs.browser.figures();
    case Tab::explore: return explore.session.figures();
    case Tab::activation: return activation_figures_;
    case Tab::teach: return none;
  }
  return none;
}

}  // namespace proteus::gui
