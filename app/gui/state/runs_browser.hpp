// The runs browser: the run directories under a runs folder (made by the window or the command
// line), a selection of them, and the figures that overlay the selected runs (the same
// figure set `proteus export` draws). The folder is read by a scan: rescan() does it in the
// caller's thread (scripts, tests); start_rescan() on a worker (engine::Handle, ARCHITECTURE
// seam 3) whose result poll() takes in, once per frame, so the window never waits on a folder of
// a thousand runs. A scan rereads a run's config and results only when their files' times changed
// since the scan before (its state, step and lock are read every time); load() reads the selected.
#pragma once
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/gui/state/runs_table.hpp"
#include "core/cluster/job_state.hpp"
#include "core/engine/job.hpp"
#include "core/figures/figure_set.hpp"
#include "core/runs/run_dir.hpp"

namespace proteus::gui {

struct RunEntry : RunRow {
  // What status.json and the run's lock say (interrupted: status.json says running, but no writer
  // holds the run: its process died); none when status.json is unreadable. RunRow::state shows
  // its name, or "?".
  std::optional<runs::ObservedState> observed;
  bool writer_active = false;  // a training or evaluation (this window's or another process's) holds it
  bool selected = false;

  // Can be resumed from here: stopped one way or another, and nobody else is writing it.
  bool resumable() const { return !writer_active && observed && runs::resumable_state(*observed); }
};

// A Slurm job under the runs folder (RUNS_DIR/jobs/NAME, from `--slurm`), each run's state read
// from its folder and its task's record; squeue is not asked (the window never waits on a process).
struct JobEntry {
  std::string name;
  std::string path;
  std::vector<cluster::RunJobView> runs;
  std::string error;  // the job folder could not be read
};

// What a scan read of one run that only changes with its files: kept for the next scan.
struct ScannedRun {
  std::filesystem::file_time_type config_time, metrics_time, results_time;
  RunEntry entry;  // its config, summary and bpb (state, step and lock are read afresh)
};

// One scan of a runs folder: its runs (with paired effects), jobs and unreadable paths.
struct RunsScan {
  std::filesystem::path dir;
  std::vector<RunEntry> entries;
  std::vector<JobEntry> jobs;
  std::vector<std::string> unreadable;
  std::map<std::string, std::shared_ptr<const ScannedRun>> cache;  // by run path
  int reread = 0;       // runs whose config or results were read (not from the cache)
  double seconds = 0;   // the scan's wall time
  bool complete = false;  // false while the worker is part way (cancelled scans publish nothing)
};

// Scans runs_dir and the extra run folders; `previous` (may be null) supplies the unchanged runs.
// `cancelled` (may be empty) is asked between runs; a cancelled scan returns what it has, incomplete.
RunsScan scan_runs(const std::filesystem::path& runs_dir, const std::vector<std::string>& extra,
                   const RunsScan* previous, const std::function<bool()>& cancelled = {});

class RunsBrowser {
 public:
  // Lists runs_dir's run directories, keeping the selection of those still there, and its jobs.
  void rescan(const std::filesystem::path& runs_dir);
  // The same scan on a worker thread; poll() takes its result in. While one runs, another request
  // waits for it to end and then starts (the newest folder wins); nothing here blocks.
  void start_rescan(const std::filesystem::path& runs_dir);
  // Takes in a finished scan (and starts a pending one); true when the entries changed. Per frame.
  bool poll();
  bool scanning() const { return scan_.valid() || pending_; }
  // The last scan's size and time (what the status line and the frame-time notes report).
  const RunsScan* last_scan() const { return last_.get(); }
  // Adds one run directory from anywhere (the "Open" field); throws InputError when it is not one.
  void add(const std::filesystem::path& run_dir);
  std::vector<RunEntry>& entries() { return entries_; }
  const std::vector<RunEntry>& entries() const { return entries_; }
  // Counts every change of entries() (a scan that found a change, a run added): RunsView's cache key.
  uint64_t generation() const { return generation_; }
  const std::vector<JobEntry>& jobs() const { return jobs_; }
  // The paths the last rescan could not read (a symlink loop, no permission), each with its reason.
  const std::vector<std::string>& unreadable() const { return unreadable_; }
  void select_only(const std::vector<std::string>& paths);
  std::vector<std::string> selected() const;

  // Rebuilds the overlay figures of the selected runs; the error text of a run that does not
  // parse, else "". An effect_x the selection was not swept along draws the maps against the
  // default axis and returns why.
  std::string load();
  // How the gating-effect maps read the selection (the runs view's axis and range choices).
  figures::FigureSetOptions figure_options;
  const std::vector<figures::NamedFigure>& figures() const { return figures_; }

 private:
  void take(std::shared_ptr<const RunsScan> scan);
  std::vector<RunEntry> entries_;
  std::vector<JobEntry> jobs_;
  std::vector<std::string> unreadable_;
  std::vector<std::string> extra_;  // directories opened by hand, kept across rescans
  std::vector<figures::NamedFigure> figures_;
  std::shared_ptr<const RunsScan> last_;
  engine::JobReaper reaper_;  // frees a replaced scan and entries off the window's thread
  engine::Handle<RunsScan> scan_;
  bool pending_ = false;
  std::filesystem::path pending_dir_;
  uint64_t generation_ = 0;
};

}  // namespace proteus::gui
