// Where a run of a job stands, as the CLI's progress line and the window show it: one name table,
// and nothing past it compares the names.
#pragma once
#include "core/runs/run_dir.hpp"

namespace proteus::engine {

enum class RunPhase { queued, training, evaluating, finished, cancelled, failed };

const char* run_phase_name(RunPhase p);  // "queued", "training", ...

// A run that has ended: it stays where it is (no more training or evaluation comes to it).
bool run_phase_ended(RunPhase p);

// How a training session ended, as the job shows it (a trainer never ends "running").
RunPhase phase_after_training(runs::RunState s);

}  // namespace proteus::engine
