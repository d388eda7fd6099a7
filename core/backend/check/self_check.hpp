// The self-check: the first time a process selects a non-CPU backend, make_backend runs the
// parity table's cases (op_cases.hpp) on it against the CPU oracle in float64. A backend that
// fails any op is not used: the run says which op and by how much, and trains on the CPU. This
// is what makes it safe to ship kernels whose hardware verification is still to come, so there
// is deliberately no switch to skip it.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/backend/ops/backend.hpp"

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
  // The next level: rules that disagreed on their recurrent form too (a rule's cases, both forms).
  // The backend stays in use for every other op and rule; a model of such a rule runs on the CPU
  // (Backend::refuse_rule, model_backend.hpp). `notice` names them too.
  std::vector<memory::Rule> rules_refused;
  std::string notice;
  // Set when a failing chunked case left the device unusable (Backend::device_lost): the check
  // stopped there, `failure` names the case. The registry resets the device, makes the backend
  // again and checks it with this rule's chunked form refused (FaultedRule).
  std::optional<memory::Rule> device_lost_by;
};

// A rule whose chunked form faulted the device in an earlier pass, with what its case said.
struct FaultedRule {
  memory::Rule rule;
  std::string failure;
};

// Runs every case of the table on `be`, the chunked forms' cases last (a faulting new kernel must
// not take the verdicts of the other ops with it); never throws (an op that throws fails its
// case). A failing case of a chunked form (OpCase::chunked_rule) refuses that rule's chunked form
// on `be` and runs the rule's chunked cases again, now on the recurrent form: if they fail there
// too, or a memory-rule case of the recurrent form fails, that rule is refused on `be`
// (rules_refused); any other op that fails refuses the backend. `faulted` (refused on `be`
// already) join the refusals and the notice.
SelfCheckVerdict self_check(Backend<float>& be, const std::vector<FaultedRule>& faulted = {});

// Applies a verdict's refusals to another instance of the same backend.
void apply_refusals(const SelfCheckVerdict& verdict, Backend<float>& be);

}  // namespace proteus::backend
