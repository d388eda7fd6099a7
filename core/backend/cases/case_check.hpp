// One op case run on a backend under test and on the float64 CPU oracle, compared the way
// ggml's test-backend-ops compares (its order): guard elements untouched, no NaN, infinities
// where the oracle has them, then the normalised MSE under the case's bound. Beyond ggml: the
// masked region (locked state, skipped rows, frozen parameters) must match exactly, and its
// largest error is reported apart from the rest, where NMSE alone would hide it.
#pragma once
#include <string>
#include <vector>

#include "core/backend/ops/backend.hpp"
#include "core/backend/cases/op_cases.hpp"

namespace proteus::backend {

struct OutputCheck {
  std::string name;
  size_t elements = 0, masked = 0;  // masked: how many lie in the masked region
  double nmse = 0;                  // outside the masked region
  double max_error = 0;             // max |got - want| outside the masked region
  double masked_max_error = 0;      // inside it; anything but 0 fails
  double oracle_scale = 0;          // max |want|: a comparison against all zeros proves nothing
  size_t nan = 0, inf_mismatch = 0;
};

struct CaseCheck {
  std::string name;
  Op op = Op::fill;
  bool skipped = false;       // the backend does not support the case's shape
  std::string skip_reason;
  std::vector<OutputCheck> outputs;
  std::vector<std::string> problems;  // one line each: "dw: normalised error 3.1e-02 > 1e-10"
  bool passed() const { return problems.empty(); }
};

// Runs `c` on `be` (float) and on `oracle` (the CPU in float64). An exception from either side
// becomes a problem, not an escape.
CaseCheck check_case(const OpCase& c, Backend<float>& be, Backend<double>& oracle);

}  // namespace proteus::backend
