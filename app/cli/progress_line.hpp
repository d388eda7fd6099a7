// Watching an engine job from the terminal: one progress line redrawn in place on a TTY (a new
// line every few seconds otherwise, for logs), Ctrl-C asks the job to cancel (a second Ctrl-C
// quits at once), and a summary table at the end. Returns the job's last snapshot.
#pragma once
#include <memory>

#include "core/engine/experiment_job.hpp"

namespace proteus::cli {

std::shared_ptr<const engine::Snapshot> watch_job(engine::ExperimentHandle& job);

// Exit status for a finished job: 0 when every run finished, 1 when one failed, 130 cancelled.
int job_status(const engine::Snapshot& s);

}  // namespace proteus::cli
