// The teaching panel's model: one stream of key -> value associations written into two memories,
// an ungated one (E = 1) and a gated one (E blocks on a schedule, a normalize variant), stepped
// token by token through the same engine as `proteus memory-op` (parse_memory_op +
// run_memory_op, float64). Step t shows each memory's mask G_t, state S_t (locked elements
// marked), and the engine's recall error of every association written so far:
//   e_i(t) = ||(G_t ⊙ S_t)^T k~_i - v_i|| / ||v_i||,
// k~_i being key i as the memory sees a key at step t (re-normalised over step t's open key rows
// under the re-normalising variants, masked by G_t). Nothing here computes memory arithmetic.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/memory/gated_rule.hpp"
#include "core/teaching/teaching_stream.hpp"

namespace proteus::gui {

// The stream (core/teaching/teaching_stream.hpp) under the names the panel uses.
using teaching::TeachingExample;
using teaching::teaching_input;
using teaching::ungated_input;

// An error below this counts as "recalled" in the caption (the bars show the number itself).
inline constexpr double kRecalledBelow = 0.25;

// The update and read of a rule as math.md section 3 writes them (gated form), one line each.
std::vector<std::string> rule_equations(memory::Rule rule);

// One memory at step t.
struct MemoryStep {
  int active_blocks = 0;          // k(t)
  int active_elements = 0;        // end(k(t))
  int open_rows = 0;              // key rows holding an active element: ceil(end(k(t)) / d_v); all under value_rows
  int open_values = 0;            // value dimensions holding one: d_v, or ceil(end(k(t)) / d_k) under value_rows
  std::vector<uint8_t> mask;      // g_t, (d_k, d_v); over M = S^T under value_rows (locked columns)
  std::vector<double> state;      // S_t, (d_k, d_v)
  std::vector<double> read;       // o_t, (d_v); empty at t = 0
  std::vector<uint8_t> written;   // 1 where S_t differs from S_{t-1}
  std::vector<double> recall;     // e_i(t) for i = 1..t; empty at t = 0
  int recalled() const;           // how many of `recall` are below kRecalledBelow
};

struct TeachingStep {
  int t = 0;  // 0 = before the first token
  MemoryStep ungated, gated;
};

class TeachingStepper {
 public:
  // Builds the example's inputs, checks them through parse_memory_op and runs both memories over
  // the whole stream: throws InputError naming the field (E out of [1, D], ...); the stepper is
  // unchanged then.
  void set_example(const TeachingExample& ex);
  const TeachingExample& example() const { return ex_; }
  const nlohmann::json& input() const { return input_; }  // the gated memory's
  // memory-op's outputs over all T tokens (with recall_error: row t-1 is step t's).
  const nlohmann::json& gated_output() const { return gated_out_; }
  const nlohmann::json& ungated_output() const { return ungated_out_; }

  int t() const { return t_; }
  int T() const { return ex_.T; }
  // Moves to token t in [0, T] (clamped) and recomputes that step.
  void go_to(int t);
  void step() { go_to(t_ + 1); }
  void back() { go_to(t_ - 1); }
  const TeachingStep& current() const { return step_; }

  // What the current step shows, in two or three sentences, from the engine's numbers.
  std::string caption() const;

 private:
  MemoryStep compute(const nlohmann::json& input, const nlohmann::json& whole, int t) const;
  TeachingExample ex_;
  nlohmann::json input_, gated_out_, ungated_out_;
  int t_ = 0;
  TeachingStep step_;
};

}  // namespace proteus::gui
