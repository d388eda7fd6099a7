#include "app/gui/state/runs_browser.hpp"

#include <algorithm>
#include <set>

namespace proteus::gui {

RunEntry RunsBrowser::describe(const std::filesystem::path& dir) {
  RunEntry e;
  e.path = dir.string();
  e.name = dir.filename().string();
  try {
    const auto reader = runs::RunReader::open(dir);
    e.writer_active = reader.writer_active();
    const auto st = reader.status();
    e.state = runs::observed_state(st, e.writer_active);
    e.step = st.step;
    const auto c = reader.config();
    const auto& m = c.at("model").at("mixer");
    e.summary = m.value("type", "") == "attention"
                    ? "attention"
                    : m.value("rule", "?") + ", E " + std::to_string(m.value("E", 1));
    e.summary += ", d_model " + std::to_string(c.at("model").value("d_model", 0));
  } catch (const std::exception&) {
    e.state = "?";
  }
  return e;
}

void RunsBrowser::rescan(const std::filesystem::path& runs_dir) {
  const auto was = selected();
  std::vector<std::string> dirs;
  unreadable_.clear();
  for (const auto& name : runs::list_runs(runs_dir, &unreadable_)) dirs.push_back((runs_dir / name).string());
  for (const auto& x : extra_)
    if (std::find(dirs.begin(), dirs.end(), x) == dirs.end()) dirs.push_back(x);
  entries_.clear();
  for (const auto& d : dirs) {
    auto e = describe(d);
    e.selected = std::find(was.begin(), was.end(), e.path) != was.end();
    entries_.push_back(std::move(e));
  }
  jobs_.clear();
  for (const auto& dir : cluster::list_jobs(runs_dir, &unreadable_)) {
    JobEntry j;
    j.name = dir.filename().string();
    j.path = dir.string();
    try {
      j.runs = cluster::job_states(cluster::read_job(dir), nullptr);
    } catch (const std::exception& e) {
      j.error = e.what();
    }
    jobs_.push_back(std::move(j));
  }
}

void RunsBrowser::add(const std::filesystem::path& run_dir) {
  runs::RunReader::open(run_dir);  // throws InputError for anything that is not a run
  const auto p = run_dir.string();
  for (auto& e : entries_)
    if (e.path == p) {
      e.selected = true;
      return;
    }
  extra_.push_back(p);
  auto e = describe(run_dir);
  e.selected = true;
  entries_.push_back(std::move(e));
}

void RunsBrowser::select_only(const std::vector<std::string>& paths) {
  for (auto& e : entries_) e.selected = std::find(paths.begin(), paths.end(), e.path) != paths.end();
}

std::vector<std::string> RunsBrowser::selected() const {
  std::vector<std::string> out;
  for (const auto& e : entries_)
    if (e.selected) out.push_back(e.path);
  return out;
}

std::string RunsBrowser::load() {
  figures_.clear();
  try {
    std::vector<runs::RunReader> readers;
    for (const auto& p : selected()) readers.push_back(runs::RunReader::open(p));
    if (!readers.empty()) figures_ = figures::standard_figures(readers);
    return "";
  } catch (const std::exception& e) {
    return e.what();
  }
}

}  // namespace proteus::gui
