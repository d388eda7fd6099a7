// Watching an engine job from the terminal: one progress line redrawn in place on a TTY (a new
// line every few seconds otherwise, for logs), Ctrl-C asks the job to cancel (a second Ctrl-C
// quits at once), and a summary table at the end. Returns the job's last snapshot.
// SIGTERM and SIGHUP (a `kill`, a closed terminal, a job scheduler's stop) are Ctrl-C: the run is
// checkpointed and its status says "cancelled".
#pragma once
#include <memory>

#include "core/engine/experiment_job.hpp"

namespace proteus::cli {

// From this call to the process's exit, SIGINT, SIGTERM and SIGHUP are counted instead of ending
// the process (a second one still ends it at once, status 130). Call it before the job starts, so
// no signal can fall between the run directory's creation and the watching. The handlers are never
// put back: a signal while the command prints its table and the process unwinds (a CUDA build
// spends 0.1-0.2 s there) must not turn a finished run's exit status into a kill.
void count_interrupts_until_exit();

// Watches `job` to its end; an interrupt (see count_interrupts_until_exit) cancels it.
std::shared_ptr<const engine::Snapshot> watch_job(engine::ExperimentHandle& job);

// Exit status for a finished job: 0 when every run finished, 1 when one failed, 130 cancelled.
int job_status(const engine::Snapshot& s);

}  // namespace proteus::cli
