#include "core/engine/run_phase.hpp"

namespace proteus::engine {

const char* run_phase_name(RunPhase p) {
  switch (p) {
    case RunPhase::queued: return "queued";
    case RunPhase::training: return "training";
    case RunPhase::evaluating: return "evaluating";
    case RunPhase::finished: return "finished";
    case RunPhase::cancelled: return "cancelled";
    case RunPhase::failed: return "failed";
  }
  return "failed";
}

bool run_phase_ended(RunPhase p) {
  return p == RunPhase::finished || p == RunPhase::cancelled || p == RunPhase::failed;
}

RunPhase phase_after_training(runs::RunState s) {
  switch (s) {
    case runs::RunState::finished: return RunPhase::finished;
    case runs::RunState::cancelled: return RunPhase::cancelled;
    case runs::RunState::running:  // a trainer that returns has stopped: not a state it reports
    case runs::RunState::failed: return RunPhase::failed;
  }
  return RunPhase::failed;
}

}  // namespace proteus::engine
