// The runs browser: the run directories under a runs folder (made by the window or the command
// line), a selection of them, and the figures that overlay the selected runs (the same
// figure set `proteus export` draws). Reading is on demand: rescan() lists, load() reads.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "core/cluster/job_state.hpp"
#include "core/figures/figure_set.hpp"
#include "core/runs/run_dir.hpp"

namespace proteus::gui {

struct RunEntry {
  std::string path;
  std::string name;
  // running | finished | cancelled | failed | interrupted (status.json says running, but no writer
  // holds the run: its process died) | "?" when status.json is unreadable
  std::string state;
  bool writer_active = false;  // a training or evaluation (this window's or another process's) holds it
  int64_t step = 0;
  std::string summary;  // rule, E, d_model
  bool selected = false;

  // Can be resumed from here: stopped one way or another, and nobody else is writing it.
  bool resumable() const {
    return !writer_active && (state == "cancelled" || state == "failed" || state == "interrupted");
  }
};

// A Slurm job under the runs folder (RUNS_DIR/jobs/NAME, from `--slurm`), each run's state read
// from its folder and its task's record; squeue is not asked (the window never waits on a process).
struct JobEntry {
  std::string name;
  std::string path;
  std::vector<cluster::RunJobView> runs;
  std::string error;  // the job folder could not be read
};

class RunsBrowser {
 public:
  // Lists runs_dir's run directories, keeping the selection of those still there, and its jobs.
  void rescan(const std::filesystem::path& runs_dir);
  // Adds one run directory from anywhere (the "Open" field); throws InputError when it is not one.
  void add(const std::filesystem::path& run_dir);
  std::vector<RunEntry>& entries() { return entries_; }
  const std::vector<RunEntry>& entries() const { return entries_; }
  const std::vector<JobEntry>& jobs() const { return jobs_; }
  // The paths the last rescan could not read (a symlink loop, no permission), each with its reason.
  const std::vector<std::string>& unreadable() const { return unreadable_; }
  void select_only(const std::vector<std::string>& paths);
  std::vector<std::string> selected() const;

  // Rebuilds the overlay figures of the selected runs; the error text of a run that does not
  // parse, else "".
  std::string load();
  const std::vector<figures::NamedFigure>& figures() const { return figures_; }

 private:
  static RunEntry describe(const std::filesystem::path& dir);
  std::vector<RunEntry> entries_;
  std::vector<JobEntry> jobs_;
  std::vector<std::string> unreadable_;
  std::vector<std::string> extra_;  // directories opened by hand, kept across rescans
  std::vector<figures::NamedFigure> figures_;
};

}  // namespace proteus::gui
