// The Teach tab's stream (app/gui's teaching panel): T key -> value associations, token t writing
// k_t -> v_t, as a memory-op input for a gated memory and the same stream for the ungated one.
// Here, not in app/gui, so that the scenarios built on it (teaching_scenarios.hpp) run and are
// tested without the window. Memory arithmetic stays in memory-op.
#pragma once
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "core/memory/block_axis.hpp"
#include "core/memory/gated_rule.hpp"
#include "core/memory/key_normalize.hpp"
#include "core/memory/schedule.hpp"

namespace proteus::teaching {

struct TeachingExample {
  memory::Rule rule = memory::kDefaultRule;
  int T = 12;      // associations: token t writes k_t -> v_t
  int d_k = 8;     // key width: rows of S (up to 16 in the panel)
  int d_v = 8;     // value width: columns of S
  int E = 4;       // blocks of the gated memory's D = d_k d_v state
  int N = 0;       // horizon (0 = T)
  memory::ScheduleType schedule = memory::ScheduleType::uniform;  // all but custom
  // How the gated memory's mask meets q, k's norm.
  memory::KeyNormalize normalize = memory::KeyNormalize::normalize_then_mask;
  memory::BlockAxis block_axis = memory::BlockAxis::key_rows;  // key_rows | value_rows: which way the blocks run
  double beta = 1.0;   // write strength of every token
  double decay = 1.0;  // a_t for every token (1 = none)
  uint64_t seed = 7;
  // The first `filler` associations need not be recalled (a scenario's preamble): they are written
  // like every other, and only the scores leave them out.
  int filler = 0;
  int horizon() const { return N > 0 ? N : T; }
  bool operator==(const TeachingExample&) const = default;
};

// The gated memory's memory-op input (IN.json's value) for an example: keys are random unit
// vectors from the seed, each token reads with its own key (q = k), values in [-1, 1], "recall":
// true; a momentum factor eta 0.5, an erase direction p = k, window weights 1 over a window of 2.
nlohmann::json teaching_input(const TeachingExample& ex);
// The same stream for the ungated memory: E = 1 (every normalize variant is then the same).
nlohmann::json ungated_input(const nlohmann::json& gated);

}  // namespace proteus::teaching
