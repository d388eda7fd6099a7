#include "app/gui/state/runs_browser.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>

#include "core/common/input_error.hpp"

namespace proteus::gui {
namespace {

namespace fs = std::filesystem;

fs::file_time_type file_time(const fs::path& p) {
  std::error_code ec;
  const auto t = fs::last_write_time(p, ec);
  return ec ? fs::file_time_type::min() : t;
}

// Held-out bits per byte: the final evaluation's within the training length (per_position.json's
// heldout_bits_per_byte_interval, as eval_files writes PerPositionResult::heldout_bits_per_byte()),
// else the last validation value logged while training; NaN when neither exists. Only that file is
// read of the results (occupancy and the grids can be far larger).
double heldout_bpb(const runs::RunReader& reader) {
  const auto results = reader.results();
  if (std::find(results.begin(), results.end(), "per_position.json") != results.end()) {
    const auto j = reader.read_json("per_position.json");
    if (j.value("train_len", 0) > 0 && j.contains("heldout_bits_per_byte_interval")) {
      const auto& m = j.at("heldout_bits_per_byte_interval").at("mean");
      if (m.is_number()) return m.get<double>();
    }
  }
  double last = kNoValue;
  for (const auto& m : reader.metric_records())
    if (!std::isnan(m.val_bpb) && m.val_bpb >= 0) last = m.val_bpb;
  return last;
}

// What only changes with the run's files: the config (as fields and typed), the summary, the bpb.
void describe_files(const runs::RunReader& reader, RunEntry& e) {
  try {
    const auto c = reader.config();
    const auto& m = c.at("model").at("mixer");
    // From the file's JSON, so that a run whose config no longer reads still has a summary.
    const auto type = common::choice_from_name<config::MixerType>(m.value("type", ""));
    e.summary = type == config::MixerType::attention
                    ? "attention"
                    : m.value("rule", "?") + ", E " + std::to_string(m.value("E", 1));
    e.summary += ", d_model " + std::to_string(c.at("model").value("d_model", 0));
  } catch (const std::exception&) {
    e.summary = "?";
  }
  try {
    auto cfg = std::make_shared<config::RunConfig>(reader.run_config());
    e.fields = config_field_texts(*cfg);
    e.config = std::move(cfg);
  } catch (const std::exception&) {
    e.config = nullptr;  // shown, but neither filtered by field nor paired
  }
  try {
    e.bpb = heldout_bpb(reader);
  } catch (const std::exception&) {
    e.bpb = kNoValue;
  }
}

// One run: from the cache when its files are as the last scan saw them, else read.
std::shared_ptr<const ScannedRun> scan_run(const fs::path& dir, const RunsScan* previous, int& reread) {
  auto s = std::make_shared<ScannedRun>();
  s->config_time = file_time(dir / runs::kConfigFile);
  s->metrics_time = file_time(dir / runs::kMetricsFile);
  s->results_time = file_time(dir / "per_position.json");
  const std::string path = dir.string();
  if (previous) {
    const auto it = previous->cache.find(path);
    if (it != previous->cache.end() && it->second->config_time == s->config_time &&
        it->second->metrics_time == s->metrics_time && it->second->results_time == s->results_time)
      s->entry = it->second->entry;
  }
  RunEntry& e = s->entry;
  const bool cached = !e.path.empty();
  e.path = path;
  e.name = dir.filename().string();
  try {
    const auto reader = runs::RunReader::open(dir);
    if (!cached) {
      describe_files(reader, e);
      ++reread;
    }
    e.writer_active = reader.writer_active();
    const auto st = reader.status();
    e.observed = runs::observed_state(st, e.writer_active);
    e.state = runs::observed_state_name(*e.observed);
    e.step = st.step;
  } catch (const std::exception&) {
    e.observed.reset();
    e.state = "?";
  }
  return s;
}

}  // namespace

RunsScan scan_runs(const fs::path& runs_dir, const std::vector<std::string>& extra, const RunsScan* previous,
                   const std::function<bool()>& cancelled) {
  const auto t0 = std::chrono::steady_clock::now();
  RunsScan out;
  out.dir = runs_dir;
  std::vector<std::string> dirs;
  for (const auto& name : runs::list_runs(runs_dir, &out.unreadable)) dirs.push_back((runs_dir / name).string());
  for (const auto& x : extra)
    if (std::find(dirs.begin(), dirs.end(), x) == dirs.end()) dirs.push_back(x);
  for (const auto& d : dirs) {
    if (cancelled && cancelled()) return out;
    auto s = scan_run(d, previous, out.reread);
    out.entries.push_back(s->entry);
    out.cache.emplace(d, std::move(s));
  }
  std::vector<RunRow*> rows;
  for (auto& e : out.entries) rows.push_back(&e);
  pair_baselines(rows);
  mark_seed_group_members(rows);
  for (const auto& dir : cluster::list_jobs(runs_dir, &out.unreadable)) {
    JobEntry j;
    j.name = dir.filename().string();
    j.path = dir.string();
    try {
      j.runs = cluster::job_states(cluster::read_job(dir), nullptr);
    } catch (const std::exception& e) {
      j.error = e.what();
    }
    out.jobs.push_back(std::move(j));
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  out.complete = true;
  return out;
}

namespace {

// The same as the table shows it: a rescan that changed nothing keeps the entries (and RunsView's cache).
// A run read from the cache shares its config object, so an unchanged config compares by pointer.
bool same_rows(const std::vector<RunEntry>& a, const std::vector<RunEntry>& b) {
  auto same_number = [](double x, double y) { return x == y || (std::isnan(x) && std::isnan(y)); };
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [&](const RunEntry& x, const RunEntry& y) {
    return x.path == y.path && x.state == y.state && x.step == y.step && x.writer_active == y.writer_active &&
           x.config == y.config && x.summary == y.summary && same_number(x.bpb, y.bpb) &&
           same_number(x.effect, y.effect) && x.baseline == y.baseline && x.group_kept == y.group_kept;
  });
}

}  // namespace

void RunsBrowser::take(std::shared_ptr<const RunsScan> scan) {
  jobs_ = scan->jobs;
  unreadable_ = scan->unreadable;
  if (!last_ || !same_rows(entries_, scan->entries)) {
    const auto was = selected();
    std::vector<RunEntry> entries = scan->entries;
    for (auto& e : entries) e.selected = std::find(was.begin(), was.end(), e.path) != was.end();
    std::swap(entries, entries_);
    reaper_.retire(std::move(entries));
    ++generation_;
  }
  if (last_) reaper_.retire(std::move(last_));  // a thousand runs' cache: freed on the reaper's thread
  last_ = std::move(scan);
}

void RunsBrowser::rescan(const fs::path& runs_dir) {
  take(std::make_shared<const RunsScan>(scan_runs(runs_dir, extra_, last_.get())));
}

void RunsBrowser::start_rescan(const fs::path& runs_dir) {
  if (scan_.valid()) {  // one at a time: this one starts when the running one is taken in
    pending_ = true;
    pending_dir_ = runs_dir;
    return;
  }
  scan_ = engine::Handle<RunsScan>::start(
      [dir = runs_dir, extra = extra_, previous = last_](engine::JobContext<RunsScan>& ctx) {
        auto s = scan_runs(dir, extra, previous.get(), [&] { return ctx.cancelled(); });
        if (s.complete) ctx.publish(std::make_shared<const RunsScan>(std::move(s)));
      });
}

bool RunsBrowser::poll() {
  if (!scan_.valid() || scan_.running()) return false;
  const auto s = scan_.latest();
  const auto error = scan_.error_message();
  scan_ = engine::Handle<RunsScan>();  // the worker has returned: nothing to wait for
  bool changed = false;
  if (s) {
    take(s);
    changed = true;
  } else if (!error.empty()) {
    unreadable_.push_back("the runs folder could not be scanned: " + error);
  }
  if (pending_) {
    pending_ = false;
    start_rescan(pending_dir_);
  }
  return changed;
}

void RunsBrowser::add(const fs::path& run_dir) {
  runs::RunReader::open(run_dir);  // throws InputError for anything that is not a run
  const auto p = run_dir.string();
  for (auto& e : entries_)
    if (e.path == p) {
      e.selected = true;
      return;
    }
  extra_.push_back(p);
  int reread = 0;
  auto e = scan_run(run_dir, nullptr, reread)->entry;
  e.selected = true;
  entries_.push_back(std::move(e));
  std::vector<RunRow*> rows;
  for (auto& x : entries_) rows.push_back(&x);
  pair_baselines(rows);
  mark_seed_group_members(rows);
  ++generation_;
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
    if (readers.empty()) return "";
    try {
      figures_ = figures::standard_figures(readers, figure_options);
    } catch (const InputError& e) {
      if (e.field() != "x") throw;
      // An x axis these runs were not swept along: the maps against the default axis, and why.
      auto by_default = figure_options;
      by_default.effect_x.clear();
      figures_ = figures::standard_figures(readers, by_default);
      return "gating-effect x axis: " + e.reason();
    }
    return "";
  } catch (const std::exception& e) {
    return e.what();
  }
}

}  // namespace proteus::gui
