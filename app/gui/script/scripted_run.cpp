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

bool ScriptedRun::start_explore(LabSession& session) {
  const std::string run = o_.explore == "trained" ? trained_run_ : o_.explore;
  if (run.empty()) {
    fail("--explore trained: no run was trained", 2);
    return false;
  }
  if (const auto opened = session.open_explore(run); !opened) {
    fail(opened.message, 2);
    return false;
  }
  auto& x = session.explore.session;
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
  session.show(Tab::explore);
  phase_ = Phase::explore_edit;
  return true;
}

bool ScriptedRun::apply_start_options(LabSession& session) {
  if (!o_.preset.empty()) {
    if (const auto loaded = session.load_experiment(o_.preset); !loaded) {
      fail(loaded.message, 2);
      return false;
    }
  }
  try {
    if (!o_.sets.empty()) {
      auto edited = session.editor.experiment.experiment();
      for (const auto& s : o_.sets) {
        auto [path, value] = config::parse_override(s);  // a bare word is a string
        edited.set(path, value);
      }
      auto c = edited.base_config();
      config::validate(c);  // a bad --set ends the script (exit 2) before the window runs anything
      session.editor.experiment.set_config(std::move(c));
    }
    session.use_runs_dir();
    session.editor_changed();
  } catch (const std::exception& e) {
    fail(e.what(), 2);
    return false;
  }
  if (!o_.save.empty()) {
    const auto saved = session.save_experiment(o_.save);
    if (!saved) {
      fail(saved.message, 2);
      return false;
    }
    std::cout << "proteus-lab: saved " << saved.path.string() << '\n';
  }
  if (const auto t = tab_from_name(o_.tab)) session.show(*t);
  if (!o_.runs_filter.empty()) session.runs.panel.filter = o_.runs_filter;
  if (o_.runs_ungrouped) session.runs.panel.grouped = false;
  if (!o_.runs_sort.empty()) {
    const bool descending = o_.runs_sort.size() > 1 && o_.runs_sort.back() == '-';
    session.runs.sort = {descending ? o_.runs_sort.substr(0, o_.runs_sort.size() - 1) : o_.runs_sort, !descending};
    const auto& c = session.runs.sort.column;
    if (c.find('.') != std::string::npos || c == "seed") session.runs.panel.columns.push_back(c);  // a config field: shown
  }
  if (o_.teach_step >= 0) session.teach.stepper.go_to(o_.teach_step);
  if (o_.overlay) {
    session.runs.browser.rescan(session.runs.dir);
    std::vector<std::string> all;
    for (const auto& e : session.runs.browser.entries()) all.push_back(e.path);
    session.runs.browser.select_only(all);
    if (const auto err = session.runs.browser.load(); !err.empty()) {
      fail(err, 2);
      return false;
    }
  }
  return true;
}

bool ScriptedRun::start_presentation(LabSession& session) {
  if (o_.present.empty()) return true;
  if (o_.present == "teach") session.show(Tab::teach);
  if (!session.display.presenting) session.toggle_presentation();
  if (o_.present == "teach") return true;
  const auto& figs = session.presentation_figures();
  std::string names;
  for (size_t i = 0; i < figs.size(); ++i) {
    if (figs[i].name == o_.present) {
      session.display.presented_figure = static_cast<int>(i);
      return true;
    }
    names += (names.empty() ? "" : ", ") + figs[i].name;
  }
  fail("--present " + o_.present + ": the " + tab_name(session.current_tab()) + " tab has no such figure (it has: " +
           (names.empty() ? "none" : names) + ")",
       2);
  return false;
}

void ScriptedRun::text_checked(const std::vector<std::string>& cut) {
  if (cut.empty()) return;
  for (const auto& c : cut) std::cerr << "proteus-lab: " << c << '\n';
  fail(std::to_string(cut.size()) + " pieces of text are cut off in " + o_.screenshot, 1);
}

void ScriptedRun::content_checked(const std::vector<std::string>& problems) {
  if (problems.empty()) return;
  for (const auto& p : problems) std::cerr << "proteus-lab: content check: " << p << '\n';
  fail(std::to_string(problems.size()) + " grids, plots or colour bars are cut off or squeezed in " + o_.screenshot, 1);
}

bool ScriptedRun::step(LabSession& session, double now_s) {
  if (o_.timeout_s > 0 && now_s > o_.timeout_s && phase_ != Phase::done) {
    fail("scripted run timed out after " + std::to_string(o_.timeout_s) + " s", 1);
    return false;
  }
  switch (phase_) {
    case Phase::start: return begin(session);
    case Phase::training: return after_training(session);
    case Phase::explore_edit:
    case Phase::explore_sweep: return after_explore(session);
    case Phase::exporting: return after_export(session);
    case Phase::screenshot:
      if (!session.runs.browser.scanning()) --settle_frames_;  // the runs table as the folder holds it
      return true;
    case Phase::done: return !o_.quit || done_frames_++ < o_.frames;
  }
  return true;
}

bool ScriptedRun::begin(LabSession& session) {
  if (!apply_start_options(session)) return false;
  if (o_.train) {
    if (const auto started = session.start_training(); !started) {
      fail("cannot start training: " + started.message, 2);
      return false;
    }
  }
  if (!o_.tab.empty() && o_.train) {  // start_training switches to the training tab; the script's wins
    if (const auto t = tab_from_name(o_.tab)) session.show(*t);
  }
  if (o_.train) phase_ = Phase::training;
  else if (!o_.explore.empty()) return start_explore(session);
  else phase_ = Phase::exporting;
  return true;
}

bool ScriptedRun::after_training(LabSession& session) {
  const auto* s = session.training.snapshot();
  if (session.training.active() || !s || !s->done) return true;
  for (const auto& r : s->runs)
    if (r.state != engine::RunPhase::finished) {
      fail("run " + r.name + " ended " + engine::run_phase_name(r.state) + (r.message.empty() ? "" : ": " + r.message), 1);
      return false;
    }
  session.runs.browser.rescan(session.runs.dir);
  session.runs.browser.select_only(session.training.run_dirs());
  if (const auto err = session.runs.browser.load(); !err.empty()) {
    fail(err, 1);
    return false;
  }
  if (!session.training.run_dirs().empty()) trained_run_ = session.training.run_dirs().back();
  if (!o_.explore.empty()) return start_explore(session);
  phase_ = Phase::exporting;
  start_export(session, session.training.figures());
  return true;
}

bool ScriptedRun::after_explore(LabSession& session) {
  if (!session.explore.session.settled()) return true;
  if (const auto s = session.explore.session.snapshot(); s && !s->error.empty()) {
    fail("explore: " + s->error, 1);
    return false;
  }
  if (phase_ == Phase::explore_edit && !o_.explore_sweep.empty()) {
    if (const auto err = session.explore.session.sweep(o_.explore_sweep); !err.empty()) {
      fail(err, 2);
      return false;
    }
    phase_ = Phase::explore_sweep;
    return true;
  }
  phase_ = Phase::exporting;
  start_export(session, session.explore.session.figures());
  return true;
}

void ScriptedRun::start_export(LabSession& session, const std::vector<figures::NamedFigure>& figs) {
  if (o_.export_dir.empty()) return;
  session.exports.dir = o_.export_dir;
  export_start_ = session.start_export(figs, o_.export_dir);
}

bool ScriptedRun::after_export(LabSession& session) {
  if (!export_start_) {
    // No training: export what the window shows (the runs browser's overlay, else the activation map).
    std::vector<figures::NamedFigure> figs = session.runs.browser.figures();
    if (figs.empty() && session.editor.activation) figs.push_back({"activation_map", *session.editor.activation});
    start_export(session, figs);
  }
  if (session.export_busy()) return true;
  if (export_start_) {  // --export: its start, else its end (posted on the frame after the worker's last file)
    if (export_start_->ok && !session.export_ended()) return true;
    const auto& outcome = export_start_->ok ? *session.export_ended() : *export_start_;
    if (!outcome) {
      fail(outcome.message, 1);
      return false;
    }
  }
  if (!start_presentation(session)) return false;
  if (o_.help) session.display.help_open = true;
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
