// A job's run phases: one name each, the ended ones, and how a training session's end maps to one.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/engine/run_phase.hpp"

namespace {

using namespace proteus;
using engine::RunPhase;

constexpr RunPhase kPhases[] = {RunPhase::queued,   RunPhase::training,  RunPhase::evaluating,
                                RunPhase::finished, RunPhase::cancelled, RunPhase::failed};

TEST(RunPhase, EachPhaseHasItsOwnName) {
  std::set<std::string> names;
  for (RunPhase p : kPhases) names.insert(engine::run_phase_name(p));
  EXPECT_EQ(names.size(), std::size(kPhases));
  EXPECT_STREQ(engine::run_phase_name(RunPhase::queued), "queued");
  EXPECT_STREQ(engine::run_phase_name(RunPhase::evaluating), "evaluating");
}

TEST(RunPhase, OnlyFinishedCancelledAndFailedHaveEnded) {
  for (RunPhase p : kPhases)
    EXPECT_EQ(engine::run_phase_ended(p), p == RunPhase::finished || p == RunPhase::cancelled || p == RunPhase::failed)
        << engine::run_phase_name(p);
}

TEST(RunPhase, ATrainingSessionEndsFinishedCancelledOrFailed) {
  EXPECT_EQ(engine::phase_after_training(runs::RunState::finished), RunPhase::finished);
  EXPECT_EQ(engine::phase_after_training(runs::RunState::cancelled), RunPhase::cancelled);
  EXPECT_EQ(engine::phase_after_training(runs::RunState::failed), RunPhase::failed);
  // A trainer returns only once it has stopped: "running" cannot be shown as still training.
  EXPECT_EQ(engine::phase_after_training(runs::RunState::running), RunPhase::failed);
}

}  // namespace
