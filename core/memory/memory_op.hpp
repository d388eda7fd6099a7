// `proteus memory-op` (math.md section 4) without the process around it: read IN.json's value into a
// checked request, run one head of one rule in float64, and build OUT.json's value. No file IO and
// no exit here, so the command, the tests and later the window share one reader.
// This is the one place in core/memory that knows JSON.
//
// Field rules beyond math.md section 4's ranges: E and N are integers (N defaults to T); schedule defaults
// to {"type": "uniform"}; unknown keys (top level or inside schedule) are refused so that typos do
// not pass silently; a top-level "comment" (a string or an array of strings) is allowed and
// ignored, so example files can explain themselves. Gradients are computed when dO or dS is given
// (a missing one counts as zero), since L = sum_t <dO_t, o_t> + <dS, S_T> is defined by either.
//
// "normalize" (normalize_then_mask | mask_then_normalize | capped_renormalize, as the model's
// model.mixer.normalize) says how the mask meets the normalisation of q and k. The q, k given are
// taken as already L2-normalised over all d_k rows (the model's l2norm); the two re-normalising
// variants then re-normalise each q_t, k_t over its open key rows active_rows(t, d_v), by the same
// function as the model's prefix_renorm op (key_normalize.hpp). p, v and the rest are used as given;
// grad.q and grad.k are with respect to the q, k given.
//
// "block_axis" (key_rows | value_rows, as the model's model.mixer.block_axis; default key_rows)
// says which way the E blocks run: value_rows blocks the flattened M = S^T (value_rows_rule.hpp),
// elementwise for any E (recall reads through its mask). The re-normalising variants re-normalise
// over open key rows, which value_rows does not have: key_rows only.
// layer runs across a layer's heads, so one head (this op) has no such reading: refused.
//
// "recall": true adds recall_error: row t-1 (t = 1..T) holds, for every association i <= t (token
// i wrote k_i -> v_i), how far reading the memory at step t with k_i lands from v_i:
//   e_i(t) = ||(G_t ⊙ S_t)^T k~_i - v_i|| / ||v_i||   (||...|| alone when v_i = 0)
// where k~_i is k_i as the memory sees a key at step t: re-normalised over step t's open rows
// under the re-normalising variants (as is q_t), masked by G_t in the read (math.md's o_t = S_t^T q_t).
#pragma once
#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/common/input_error.hpp"
#include "core/common/json_read.hpp"
#include "core/memory/block_axis.hpp"
#include "core/memory/gated_rule.hpp"
#include "core/memory/key_normalize.hpp"
#include "core/memory/schedule.hpp"

namespace proteus::memory {

// Bounds of a request, checked while it is read (the input's size is bounded by its reader:
// kInputLimits): the memory size, the states kept over the sequence, the schedule's horizon.
inline constexpr int64_t kMaxStateElements = int64_t{1} << 20;  // D = d_k * d_v
inline constexpr int64_t kMaxTapeElements = int64_t{1} << 22;   // (T + 1) * D doubles: 32 MiB
inline constexpr int64_t kMaxHorizon = (int64_t{1} << 31) - 1;  // N
inline constexpr int64_t kMaxRecallReads = int64_t{1} << 26;   // recall: T (T + 1) / 2 reads x D

// The reader's limits for IN.json (common::read_json_file).
inline constexpr common::JsonLimits kInputLimits{size_t{32} << 20, 64, "a memory-op input"};

// A checked memory-op input. Buffers are row-major, shapes as in RuleInputs; a buffer whose
// has_* flag is false is empty.
struct MemoryOpRequest {
  Rule rule = Rule::linear;
  int64_t E = 1;           // blocks, in [1, D]
  int64_t N = 1;           // schedule horizon; T when IN.json has none
  ScheduleSpec schedule;   // validated against D, E, N by parse_memory_op
  KeyNormalize normalize = KeyNormalize::normalize_then_mask;  // how the mask meets q, k's norm
  BlockAxis block_axis = BlockAxis::key_rows;                  // which way the blocks run
  bool recall = false;     // add recall_error to the output
  int64_t T = 0;           // tokens: rows of q
  int64_t d_k = 0;         // key width: length of q[0]
  int64_t d_v = 0;         // value width: length of v[0]
  int64_t window = 0;      // c: length of gamma[0]; 0 for a rule without window weights
  std::vector<double> q;      // (T, d_k)
  std::vector<double> k;      // (T, d_k)
  std::vector<double> v;      // (T, d_v)
  std::vector<double> beta;   // (T)        in [0, 2]; required where rule_uses_beta
  std::vector<double> a;      // (T)        in (0, 1]; absent = 1
  std::vector<double> p;      // (T, d_k)   where rule_uses_p only
  std::vector<double> eta;    // (T)        in [0, 1); where rule_uses_eta only, absent = 0
  std::vector<double> gamma;  // (T, window) where rule_uses_gamma only
  std::vector<double> S0;     // (d_k, d_v) absent = 0
  std::vector<double> dO;     // (T, d_v)   absent = 0
  std::vector<double> dS;     // (d_k, d_v) absent = 0
  bool has_beta = false, has_a = false, has_p = false, has_eta = false, has_gamma = false;
  bool has_S0 = false, has_dO = false, has_dS = false;

  int64_t D() const { return d_k * d_v; }
  bool wants_grads() const { return has_dO || has_dS; }
};

// Checks everything math.md section 4 lists (shapes, ranges, finiteness, the schedule against D, E, N)
// and throws InputError naming the field path: "q[3]", "beta[2]", "schedule.unlock[2]".
MemoryOpRequest parse_memory_op(const nlohmann::json& in);

// Runs the CPU reference. Returns {"rule", "D", "E", "N", "schedule": {"type", "unlock", ...},
// "normalize", "block_axis", "active_blocks": (T), "active_elements": (T), "o": (T, d_v), "S": (d_k, d_v)},
// "recall_error" (row t-1 of length t) when recall, and, when
// wants_grads(), "grad": {"q", "k", "v", "a", "S0", "beta" (where the rule uses it or it was given),
// "p", "eta", "gamma" (where the rule uses them)} shaped like the inputs. Throws InputError naming
// the output (e.g. "o[2][0]") if float64 overflows, since JSON cannot carry inf.
nlohmann::json run_memory_op(const MemoryOpRequest& request);

}  // namespace proteus::memory
