#include "core/teaching/teaching_scenarios.hpp"

#include <cmath>

#include "core/memory/memory_op.hpp"

namespace proteus::teaching {
namespace {

// The mean of the last step's recall errors over associations filler+1..T.
double final_error(const nlohmann::json& output, int filler) {
  const auto& last = output.at("recall_error").back();
  double s = 0;
  int n = 0;
  for (size_t i = static_cast<size_t>(filler); i < last.size(); ++i) s += last[i].get<double>(), ++n;
  return n > 0 ? s / n : 0.0;
}

}  // namespace

TeachingOutcome teaching_outcome(const TeachingExample& ex) {
  const auto in = teaching_input(ex);
  TeachingOutcome o;
  o.gated_error = final_error(memory::run_memory_op(memory::parse_memory_op(in)), ex.filler);
  o.ungated_error = final_error(memory::run_memory_op(memory::parse_memory_op(ungated_input(in))), ex.filler);
  return o;
}

TeachingTally tally_scenario(const TeachingScenario& s) {
  TeachingTally t;
  for (int i = 0; i < s.seeds; ++i) {
    auto ex = s.example;
    ex.seed = s.example.seed + static_cast<uint64_t>(i);
    const auto o = teaching_outcome(ex);
    if (std::abs(o.gated_error - o.ungated_error) <= 1e-9) ++t.ties;
    else if (o.gated_error < o.ungated_error) ++t.gated_wins;
    else ++t.ungated_wins;
    t.mean_gated_error += o.gated_error / s.seeds;
    t.mean_ungated_error += o.ungated_error / s.seeds;
  }
  return t;
}

const std::vector<TeachingScenario>& teaching_scenarios() {
  static const std::vector<TeachingScenario> scenarios = [] {
    // Each measured over seeds 1..20 with tally_scenario (tests/teaching/test_teaching_scenarios.cpp
    // checks every count). Found by tallying, on the 8 x 8 memory, rule (delta, linear) x normalize
    // (3) x decay (0.7 to 1) x E (2 to 32) x filler (0 to 24) + 2 to 8 associations x N (T, or the
    // filler's end), and keeping streams one side wins in 15 or more of 20 seeds.
    std::vector<TeachingScenario> out;
    TeachingExample ex;
    ex.seed = 1;

    TeachingExample filler = ex;
    filler.filler = 12;
    filler.T = 20;
    filler.E = 16;
    filler.N = 12;  // every block is open when the associations that matter arrive
    out.push_back({"Filler first, then what matters", filler, 20, TeachingWinner::gated, 19,
                   "12 filler tokens that need not be recalled, then 8 associations that do. The schedule opens "
                   "its 16 blocks over the filler, so the filler is written into few key rows and the 8 that "
                   "matter find the whole memory. Look at the last 8 bars at the end: the gated memory recalls "
                   "them better (lower mean error) in 19 of 20 seeds, by a small margin."});

    TeachingExample linear = ex;
    linear.rule = memory::Rule::linear;
    linear.filler = 8;
    linear.T = 10;
    linear.E = 32;
    linear.N = 8;
    out.push_back({"Linear rule: filler first, then what matters", linear, 20, TeachingWinner::gated, 20,
                   "The linear rule never erases: every write adds to the state. 8 filler tokens, then 2 "
                   "associations that matter. Ungated, the filler piles up in every key row; gated, it was "
                   "written while few rows were open, so the last 2 read back through less of it. Look at the "
                   "last 2 bars at the end: the gated memory recalls them better in 20 of 20 seeds, by a wide margin."});

    TeachingExample decayed = linear;
    decayed.decay = 0.9;
    decayed.T = 12;
    out.push_back({"Linear rule with decay (a = 0.9): filler first", decayed, 20, TeachingWinner::gated, 20,
                   "The same, with every element decaying by 0.9 a step and 4 associations after the filler. "
                   "Decay fades the filler in both memories, but gating had already kept it out of most rows: "
                   "the gated memory recalls the last 4 better in 20 of 20 seeds."});

    TeachingExample late = ex;
    late.filler = 16;
    late.T = 20;
    late.E = 32;
    late.N = 20;  // still opening while the associations that matter are written
    out.push_back({"Filler first, the schedule still opening", late, 20, TeachingWinner::ungated, 20,
                   "16 filler tokens, then 4 associations that matter, but the 32-block schedule runs to token 20: "
                   "the associations arrive while part of the memory is still locked, and their keys are read "
                   "masked. Look at the last 4 bars: the ungated memory recalls them better in 20 of 20 seeds."});

    TeachingExample under = ex;
    under.T = 4;
    out.push_back({"Under capacity: 4 associations in an 8 x 8 memory", under, 20, TeachingWinner::ungated, 20,
                   "Only 4 associations, far under what 8 key rows hold. The ungated memory writes each with its "
                   "whole key and recalls them well; the gated one writes the first ones into the few rows open "
                   "then, where they collide. The ungated memory wins in 20 of 20 seeds: gating costs when "
                   "capacity is not the bottleneck."});

    TeachingExample decay = ex;
    decay.T = 8;
    decay.decay = 0.85;
    out.push_back({"With decay (a = 0.85)", decay, 20, TeachingWinner::ungated, 20,
                   "8 associations with every element decaying by 0.85 a step. The first block is open from the "
                   "start, so what gating kept in it decays like the rest, and the early keys were written into "
                   "fewer rows. The ungated memory recalls the stream better at the end in 20 of 20 seeds."});

    out.push_back({"Over capacity (the default: 12 in 8 x 8)", ex, 20, TeachingWinner::ungated, 15,
                   "12 associations in 8 key rows: more than the memory holds, in both. Gating does not add "
                   "capacity here: the ungated memory ends with the lower mean error in 15 of 20 seeds."});
    return out;
  }();
  return scenarios;
}

}  // namespace proteus::teaching
