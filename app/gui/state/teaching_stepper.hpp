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

namespace proteus::gui {

struct TeachingExample {
  std::string rule = "delta";
  int T = 12;      // associations: token t writes k_t -> v_t
  int d_k = 8;     // key width: rows of S (up to 16 in the panel)
  int d_v = 8;     // value width: columns of S
  int E = 4;       // blocks of the gated memory's D = d_k d_v state
  int N = 0;       // horizon (0 = T)
  std::string schedule = "uniform";
  std::string normalize = "normalize_then_mask";  // how the gated memory's mask meets q, k's norm
  double beta = 1.0;   // write strength of every token
  double decay = 1.0;  // a_t for every token (1 = none)
  uint64_t seed = 7;
  int horizon() const { return N > 0 ? N : T; }
};

// An error below this counts as "recalled" in the caption (the bars show the number itself).
inline constexpr double kRecalledBelow = 0.25;

// The gated memory's memory-op input (IN.json's value) for an example: keys are random unit
// vectors from the seed, each token reads with its own key (q = k), values in [-1, 1], "recall":
// true; titans' eta 0.5, comba's p = k, swla's gamma 1 over a window of 2.
nlohmann::json teaching_input(const TeachingExample& ex);
// The same stream for the ungated memory: E = 1 (every normalize variant is then the same).
nlohmann::json ungated_input(const nlohmann::json& gated);

// The update and read of a rule as the SPEC writes them (gated form), one line each.
std::vector<std::string> rule_equations(const std::string& rule);

// One memory at step t.
struct MemoryStep {
  int active_blocks = 0;          // k(t)
  int active_elements = 0;        // end(k(t))
  int open_rows = 0;              // key rows holding an active element: ceil(end(k(t)) / d_v)
  std::vector<uint8_t> mask;      // g_t, (d_k, d_v)
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
