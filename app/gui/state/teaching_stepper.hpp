// The teaching panel's model: a tiny gated-rule example stepped token by token through the same
// engine as `proteus memory-op` (parse_memory_op + run_memory_op, float64). Step t shows the
// mask g_t, the state S_t (locked elements marked) and the read o_t; the equations are the SPEC's.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/memory/gated_rule.hpp"

namespace proteus::gui {

struct TeachingExample {
  std::string rule = "delta";
  int T = 12;      // tokens
  int d_k = 4;     // key width: rows of S
  int d_v = 4;     // value width: columns of S
  int E = 4;       // blocks of the D = d_k d_v state
  int N = 12;      // horizon (0 = T)
  std::string schedule = "uniform";
  double decay = 1.0;  // a_t for every token (1 = none)
  uint64_t seed = 7;
};

// The memory-op input (IN.json's value) for an example: random unit-norm q and k, values in
// [-1, 1], beta 0.8 (titans' eta 0.5, comba's p = k, swla's gamma 1 over a window of 2).
nlohmann::json teaching_input(const TeachingExample& ex);

// The update and read of a rule as the SPEC writes them (gated form), one line each.
std::vector<std::string> rule_equations(const std::string& rule);

struct TeachingStep {
  int t = 0;                           // 0 = before the first token
  int active_blocks = 0;               // k(t)
  int active_elements = 0;             // end(k(t))
  std::vector<uint8_t> mask;           // g_t, (d_k, d_v)
  std::vector<double> state;           // S_t, (d_k, d_v)
  std::vector<double> read;            // o_t, (d_v); empty at t = 0
  std::vector<uint8_t> written;        // 1 where S_t differs from S_{t-1}
};

class TeachingStepper {
 public:
  // Builds the example's input and checks it through parse_memory_op: throws InputError naming
  // the field (E out of [1, D], ...); the stepper is unchanged then.
  void set_example(const TeachingExample& ex);
  const TeachingExample& example() const { return ex_; }
  const nlohmann::json& input() const { return input_; }

  int t() const { return t_; }
  int T() const { return ex_.T; }
  // Moves to token t in [0, T] (clamped) and recomputes that step.
  void go_to(int t);
  void step() { go_to(t_ + 1); }
  void back() { go_to(t_ - 1); }
  const TeachingStep& current() const { return step_; }

 private:
  TeachingStep compute(int t) const;
  TeachingExample ex_;
  nlohmann::json input_;
  int t_ = 0;
  TeachingStep step_;
};

}  // namespace proteus::gui
