// The self-check: the first time a process selects a non-CPU backend, make_backend runs the
// parity table's cases (op_cases.hpp) on it against the CPU oracle in float64. A backend that
// fails any op is not used: the run says which op and by how much, and trains on the CPU. This
// is what makes it safe to ship kernels whose hardware verification is still to come, so there
// is deliberately no switch to skip it.
#pragma once
#include <string>
#include <vector>

#include "core/backend/backend.hpp"

namespace proteus::backend {

struct SelfCheckVerdict {
  bool passed = false;
  int cases = 0;    // cases run
  int skipped = 0;  // cases the backend says it does not support (the model asks before using them)
  double seconds = 0;
  // When it failed: which ops and by how much, e.g.
  // "matmul (dw: normalised error 0.031 > 1e-10, max |error| 0.2)"; several joined by "; ".
  std::string failure;
  // The per-op fallback: rules whose chunked form disagreed with the CPU while their recurrent
  // form agrees. The backend stays in use with those rules on their recurrent form
  // (Backend::refuse_chunked_form); `notice` says so in one line for the run to print.
  std::vector<memory::Rule> chunked_refused;
  std::string notice;
};

// Runs every case of the table on `be`; never throws (an op that throws fails its case). A
// failing case of a chunked form (OpCase::chunked_rule) refuses that rule's chunked form on `be`
// and runs the rule's chunked cases again, now on the recurrent form: only if they fail there
// too is the backend refused.
SelfCheckVerdict self_check(Backend<float>& be);

// Applies a verdict's refusals to another instance of the same backend.
void apply_refusals(const SelfCheckVerdict& verdict, Backend<float>& be);

}  // namespace proteus::backend
