// The parity table, in the manner of ggml's test-backend-ops: the op table (all_ops(), op.hpp)
// instantiated at small shapes, ONE list of op cases, each
// run on a backend under test (float) and on the CPU backend in float64 (the oracle), every
// output and gradient compared (case_check.hpp). Two users share it: the parity test
// (tests/backend) runs it on every registered backend, and the self-check (self_check.hpp) runs
// it the first time a process selects a non-CPU backend. Shapes are small and odd (ragged tails,
// sizes that divide nothing a kernel uses) so the whole table runs in milliseconds.
//
// Each case covers one op, forward and backward; inputs are float-representable, so the oracle
// and the backend see the same values and any difference is the op's. What a case returns:
//  - every output and gradient, by name;
//  - for some, a masked region where the op must match the oracle exactly: locked state
//    elements (which keep S_0 = 0 bit for bit) and the gradients of fully locked key rows, rows a
//    zero weight skips, parameters the update mask freezes, embedding rows no token touches.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/backend/ops/backend.hpp"
#include "core/backend/cases/case_buffers.hpp"

namespace proteus::backend {

struct CaseOutput {
  std::vector<double> values;
  std::vector<uint8_t> masked;  // empty, or one flag per value: 1 = must equal the oracle exactly
};
using CaseOutputs = std::map<std::string, CaseOutput>;

struct OpCase {
  std::string name;  // "matmul", "memory_rule_delta_E3"
  Op op;             // the op it checks (what a failure names)
  OpShape shape;     // what the backend is asked (supports); an unsupported case is skipped
  double max_nmse;   // float against float64: sum (a - b)^2 / sum b^2 outside the masked region
  // Set on the memory-rule cases whose form resolves to chunked (auto or chunked asked, where the
  // chunked form applies): a failure there refuses that rule's chunked form only (self_check.hpp).
  std::optional<memory::Rule> chunked_rule;
  std::function<CaseOutputs(CaseBuffers<float>&)> run_float;
  std::function<CaseOutputs(CaseBuffers<double>&)> run_double;
};

// One op's cases at the parity shapes (small and odd). Every op of the op table (all_ops(), op.hpp)
// has some: the table's parity instantiation, as benchmark_kernels (kernel_benchmark.hpp) is its
// perf one; throws std::logic_error for an op without cases.
void add_op_cases(Op op, std::vector<OpCase>& cases);

// The table, built once: add_op_cases of every op of all_ops(), in that order.
const std::vector<OpCase>& op_cases();

}  // namespace proteus::backend
