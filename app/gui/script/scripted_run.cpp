#include "app/gui/script/scripted_run.hpp"

#include <iostream>

#include "core/config/config_json.hpp"
#include "core/config/experiment.hpp"

namespace proteus::gui {

void ScriptedRun::fail(const std::string& why, int code) {
  failure_ = why;
  exit_code_ = code;
  phase_ = Phase::done;
  std::cerr << "proteus-lab: " << why << '\n';
}

bool ScriptedRun::start_explore(LabApp& app) {
  const std::string run = o_.explore == "trained" ? trained_run_ : o_.explore;
  if (run.empty()) {
    fail("--explore trained: no run was trained", 2);
    return false;
  }
  if (!app.open_explore(run)) {
    fail(app.status_line.text, 2);
    return false;
  }
  auto& x = app.explore.session;
  x.sequences = o_.explore_sequences;
  x.positions = o_.explore_positions;
  try {
    auto edited = x.edit.experiment();
    for (const auto& s : o_.explore_sets) {
      auto [path, value] = config::parse_override(s);
      // "x4": a multiple of the training length, as the panel's buttons give.
      if (path == "model.mixer.N" && value.is_string() && value.get<std::string>().starts_with("x"))
        value = static_cast<int>(std::stod(value.get<std::string>().substr(1)) * x.edit.config().data.seq_len);
      edited.set(path, value);
    }
    auto c = edited.base_config();
    config::validate(c);  // a bad --explore-set ends the script (exit 2), as it always has
    x.edit.set_config(std::move(c));
  } catch (const std::exception& e) {
    fail(e.what(), 2);
    return false;
  }
  if (const auto err = x.submit(); !err.empty()) {
    fail(err, 2);
    return false;
  }
  app.show(Tab::explore);
  phase_ = Phase::explore_edit;
  return true;
}

bool ScriptedRun::apply_start_options(LabApp& app) {
  if (!o_.preset.empty()) {
    app.load_experiment(o_.preset);
    if (app.status_line.is_error) {
      fail(app.status_line.text, 2);
      return false;
    }
  }
  try {
    if (!o_.sets.empty()) {
      auto edited = app.editor.experiment.experiment();
      for (const auto& s : o_.sets) {
        auto [path, value] = config::parse_override(s);  // a bare word is a string
        edited.set(path, value);
      }
      auto c = edited.base_config();
      config::validate(c);  // a bad --set ends the script (exit 2) before the window runs anything
      app.editor.experiment.set_config(std::move(c));
    }
    app.use_runs_dir();
    app.editor_changed();
  } catch (const std::exception& e) {
    fail(e.what(), 2);
    return false;
  }
  if (!o_.save.empty()) {
    const auto written = app.save_experiment(o_.save);
    if (written.empty()) {
      fail(app.status_line.text, 2);
      return false;
    }
    std::cout << "proteus-lab: saved " << written.string() << '\n';
  }
  if (const auto t = tab_from_name(o_.tab)) app.show(*t);
  if (!o_.runs_filter.empty()) app.runs.panel.filter = o_.runs_filter;
  if (o_.runs_ungrouped) app.runs.panel.grouped = false;
  if (!o_.runs_sort.empty()) {
    const bool descending = o_.runs_sort.size() > 1 && o_.runs_sort.back() == '-';
    app.runs.sort = {descending ? o_.runs_sort.substr(0, o_.runs_sort.size() - 1) : o_.runs_sort, !descending};
    const auto& c = app.runs.sort.column;
    if (c.find('.') != std::string::npos || c == "seed") app.runs.panel.columns.push_back(c);  // a config field: shown
  }
  if (o_.teach_step >= 0) app.teach.stepper.go_to(o_.teach_step);
  if (o_.overlay) {
    app.runs.browser.rescan(app.runs.dir);
    std::vector<std::string> all;
    for (const auto& e : app.runs.browser.entries()) all.push_back(e.path);
    app.runs.browser.select_only(all);
    if (const auto err = app.runs.browser.load(); !err.empty()) {
      fail(err, 2);
      return false;
    }
  }
  return true;
}

bool ScriptedRun::start_presentation(LabApp& app) {
  if (o_.present.empty()) return true;
  if (o_.present == "teach") app.show(Tab::teach);
  if (!app.display.presenting) app.toggle_presentation();
  if (o_.present == "teach") return true;
  const auto& figs = app.presentation_figures();
  std::string names;
  for (size_t i = 0; i < figs.size(); ++i) {
    if (figs[i].name == o_.present) {
      app.display.presented_figure = static_cast<int>(i);
      return true;
    }
    names += (names.empty() ? "" : ", ") + figs[i].name;
  }
  fail("--present " + o_.present + ": the " + tab_name(app.current_tab()) + " tab has no such figure (it has: " +
           (names.empty() ? "none" : names) + ")",
       2);
  return false;
}

void ScriptedRun::text_checked(const std::vector<CutText>& cut) {
  if (cut.empty()) return;
  for (const auto& c : cut)
    std::cerr << "proteus-lab: cut-off text in " << c.window << " at (" << c.x << ", " << c.y << "): \"" << c.text << "\"\n";
  fail(std::to_string(cut.size()) + " pieces of text are cut off in " + o_.screenshot, 1);
}

void ScriptedRun::content_checked(const std::vector<std::string>& problems) {
  if (problems.empty()) return;
  for (const auto& p : problems) std::cerr << "proteus-lab: content check: " << p << '\n';
  fail(std::to_string(problems.size()) + " grids, plots or colour bars are cut off or squeezed in " + o_.screenshot, 1);
}

bool ScriptedRun::step(LabApp& app, double now_s) {
  if (o_.timeout_s > 0 && now_s > o_.timeout_s && phase_ != Phase::done) {
    fail("scripted run timed out after " + std::to_string(o_.timeout_s) + " s", 1);
    return false;
  }
  switch (phase_) {
    case Phase::start: return begin(app);
    case Phase::training: return after_training(app);
    case Phase::explore_edit:
    case Phase::explore_sweep: return after_explore(app);
    case Phase::exporting: return after_export(app);
    case Phase::screenshot:
      if (!app.runs.browser.scanning()) --settle_frames_;  // the runs table as the folder holds it
      return true;
    case Phase::done: return !o_.quit || done_frames_++ < o_.frames;
  }
  return true;
}

bool ScriptedRun::begin(LabApp& app) {
  if (!apply_start_options(app)) return false;
  if (o_.train && !app.start_training()) {
    fail("cannot start training: " + app.status_line.text, 2);
    return false;
  }
  if (!o_.tab.empty() && o_.train) {  // start_training switches to the training tab; the script's wins
    if (const auto t = tab_from_name(o_.tab)) app.show(*t);
  }
  if (o_.train) phase_ = Phase::training;
  else if (!o_.explore.empty()) return start_explore(app);
  else phase_ = Phase::exporting;
  return true;
}

bool ScriptedRun::after_training(LabApp& app) {
  const auto* s = app.training.snapshot();
  if (app.training.active() || !s || !s->done) return true;
  for (const auto& r : s->runs)
    if (r.state != "finished") {
      fail("run " + r.name + " ended " + r.state + (r.message.empty() ? "" : ": " + r.message), 1);
      return false;
    }
  app.runs.browser.rescan(app.runs.dir);
  app.runs.browser.select_only(app.training.run_dirs());
  if (const auto err = app.runs.browser.load(); !err.empty()) {
    fail(err, 1);
    return false;
  }
  if (!app.training.run_dirs().empty()) trained_run_ = app.training.run_dirs().back();
  if (!o_.explore.empty()) return start_explore(app);
  phase_ = Phase::exporting;
  start_export(app, app.training.figures());
  return true;
}

bool ScriptedRun::after_explore(LabApp& app) {
  if (!app.explore.session.settled()) return true;
  if (const auto s = app.explore.session.snapshot(); s && !s->error.empty()) {
    fail("explore: " + s->error, 1);
    return false;
  }
  if (phase_ == Phase::explore_edit && !o_.explore_sweep.empty()) {
    if (const auto err = app.explore.session.sweep(o_.explore_sweep); !err.empty()) {
      fail(err, 2);
      return false;
    }
    phase_ = Phase::explore_sweep;
    return true;
  }
  phase_ = Phase::exporting;
  start_export(app, app.explore.session.figures());
  return true;
}

void ScriptedRun::start_export(LabApp& app, const std::vector<figures::NamedFigure>& figs) {
  if (o_.export_dir.empty()) return;
  app.exports.dir = o_.export_dir;
  app.start_export(figs, o_.export_dir);
  export_started_ = true;
}

bool ScriptedRun::after_export(LabApp& app) {
  if (!export_started_) {
    // No training: export what the window shows (the runs browser's overlay, else the activation map).
    std::vector<figures::NamedFigure> figs = app.runs.browser.figures();
    if (figs.empty() && app.editor.activation) figs.push_back({"activation_map", *app.editor.activation});
    start_export(app, figs);
  }
  if (app.export_busy()) return true;
  if (app.status_line.is_error && !o_.export_dir.empty()) {
    fail(app.status_line.text, 1);
    return false;
  }
  if (!start_presentation(app)) return false;
  if (o_.help) app.display.help_open = true;
  phase_ = o_.screenshot.empty() ? Phase::done : Phase::screenshot;
  return true;
}

void ScriptedRun::screenshot_taken(bool ok) {
  if (!ok) {
    fail("could not write the screenshot " + o_.screenshot, 1);
    return;
  }
  if (phase_ == Phase::screenshot) phase_ = Phase::done;  // a failed text check stays failed
}

}  // namespace proteus::gui
