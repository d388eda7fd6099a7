// The Teach tab's scenarios: streams (teaching_stream.hpp) where the gated and the ungated memory
// differ, each found by running both through memory-op over several seeds, with a caption that
// says what to look for, which side wins and how often. The outcome of a seed is the mean recall
// error, at the end of the stream, over the associations that matter (those after the filler);
// the lower side wins it. A test runs every scenario over its seeds and checks its caption's claim.
#pragma once
#include <string>
#include <vector>

#include "core/teaching/teaching_stream.hpp"

namespace proteus::teaching {

enum class TeachingWinner { gated, ungated };

struct TeachingScenario {
  std::string name;              // the picker's entry
  TeachingExample example;       // its seed is the first of `seeds`
  int seeds = 10;                // measured over seeds example.seed .. example.seed + seeds - 1
  TeachingWinner winner = TeachingWinner::gated;
  int wins = 0;                  // of `seeds`, measured (the test checks it)
  std::string caption;           // what to look for, who wins, how often
};

// One seed's end-of-stream mean recall error over the associations after the filler, each memory.
struct TeachingOutcome {
  double gated_error = 0, ungated_error = 0;
};
TeachingOutcome teaching_outcome(const TeachingExample& ex);

// Over a scenario's seeds: how many each side won (a tie, within 1e-9, counts for neither).
struct TeachingTally {
  int gated_wins = 0, ungated_wins = 0, ties = 0;
  double mean_gated_error = 0, mean_ungated_error = 0;
};
TeachingTally tally_scenario(const TeachingScenario& s);

// The scenarios the tab offers beside its default stream, in order.
const std::vector<TeachingScenario>& teaching_scenarios();

}  // namespace proteus::teaching
