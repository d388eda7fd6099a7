// The op list as values (ggml's ggml_op): what a backend is asked whether it supports, what the
// parity table and the self-check name when an op fails, and what the kernel benchmark times.
// all_ops() is THE op table: the parity cases (add_op_cases, op_cases.hpp) and the kernel
// benchmark (benchmark_kernels, kernel_benchmark.hpp) each instantiate every op of it, at small
// odd shapes and at one layer's sizes; tests/backend/test_op_table.cpp checks both cover it.
#pragma once
#include <cstdint>
#include <vector>

#include "core/memory/gated_rule.hpp"

namespace proteus::backend {

enum class Op {
  fill,
  copy,
  embedding,
  rmsnorm,
  matmul,
  conv_silu,
  l2norm,
  prefix_renorm,
  prefix_mask,
  sigmoid,
  decay,
  swiglu,
  multiply,
  add,
  axpy,
  scale,
  comba_query,
  xent,
  attention,
  memory_rule,
  memory_block_norms,
  sum,
  sum_squares,
  adamw,
};

// Every op, in the order above. (No std::span: kernels/ compiles this header as C++17.)
const std::vector<Op>& all_ops();
const char* op_name(Op op);

// The sizes that decide whether a backend can run an op (ggml hands over the tensor); a field an
// op does not have stays 0. Names follow backend.hpp's signatures.
struct OpShape {
  int64_t n = 0;                       // elements: elementwise ops, fill, copy, reductions, adamw
  int N = 0, C = 0, OC = 0, V = 0;     // rows, width, output width (matmul), classes (xent)
  int B = 0, T = 0, H = 0, d = 0;      // batch, tokens, heads, head width (attention, comba_query)
  memory::Rule rule = memory::kDefaultRule;  // memory_rule, memory_block_norms
  int d_k = 0, d_v = 0, window = 0, n_blocks = 0;
  bool open_widths = false;  // memory_rule: gated by a table of open widths (MemoryRuleArgs::open_widths)
};

}  // namespace proteus::backend
