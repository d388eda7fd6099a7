// Every Teach scenario's caption states a winner and how often it wins over its seeds: run it
// over those seeds through memory-op and check both, so a caption cannot drift from the engine.
#include <gtest/gtest.h>

#include <string>

#include "core/teaching/teaching_scenarios.hpp"

namespace {

using namespace proteus::teaching;

TEST(TeachingScenarios, EachCaptionsWinnerAndFrequencyHoldOverItsSeeds) {
  const auto& scenarios = teaching_scenarios();
  ASSERT_GE(scenarios.size(), 4u);
  bool a_gated_win = false, an_ungated_win = false;
  for (const auto& s : scenarios) {
    SCOPED_TRACE(s.name);
    const auto t = tally_scenario(s);
    const int wins = s.winner == TeachingWinner::gated ? t.gated_wins : t.ungated_wins;
    EXPECT_EQ(wins, s.wins) << "gated " << t.gated_wins << ", ungated " << t.ungated_wins << ", ties " << t.ties;
    EXPECT_GT(2 * wins, s.seeds) << "the stated winner wins most seeds";
    const std::string claim = std::to_string(s.wins) + " of " + std::to_string(s.seeds) + " seeds";
    EXPECT_NE(s.caption.find(claim), std::string::npos) << "the caption states the frequency: " << claim;
    EXPECT_NE(s.caption.find(s.winner == TeachingWinner::gated ? "gated memory" : "ungated memory"), std::string::npos);
    a_gated_win |= s.winner == TeachingWinner::gated;
    an_ungated_win |= s.winner == TeachingWinner::ungated;
  }
  EXPECT_TRUE(a_gated_win) << "the tab shows where gating helps";
  EXPECT_TRUE(an_ungated_win) << "and where it hurts";
}

TEST(TeachingScenarios, FillerIsLeftOutOfTheScore) {
  TeachingExample ex;
  ex.T = 12;
  const auto all = teaching_outcome(ex);
  ex.filler = 11;  // only the last association, just written: the delta rule recalls it exactly ungated
  const auto last = teaching_outcome(ex);
  EXPECT_NE(all.ungated_error, last.ungated_error);
  EXPECT_LT(last.ungated_error, 1e-9);
}

}  // namespace
