// The self-check: the first time a process selects a non-CPU backend, make_backend runs the
// parity table's cases (op_cases.hpp) on it against the CPU oracle in float64. A backend that
// fails any op is not used: the run says which op and by how much, and trains on the CPU. This
// is what makes it safe to ship kernels whose hardware verification is still to come, so there
// is deliberately no switch to skip it.
#pragma once
#include <string>

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
};

// Runs every case of the table on `be`; never throws (an op that throws fails its case).
SelfCheckVerdict self_check(Backend<float>& be);

}  // namespace proteus::backend
