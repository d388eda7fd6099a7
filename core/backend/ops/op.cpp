#include "core/backend/ops/op.hpp"

namespace proteus::backend {

const std::vector<Op>& all_ops() {
  static const std::vector<Op> ops = {
      Op::fill,    Op::copy,        Op::embedding, Op::rmsnorm,     Op::matmul,      Op::conv_silu,
      Op::l2norm,  Op::prefix_renorm, Op::prefix_mask, Op::sigmoid,     Op::decay,     Op::swiglu,      Op::multiply,    Op::add,         Op::axpy,
      Op::scale,   Op::comba_query, Op::xent,      Op::attention,   Op::memory_rule, Op::memory_block_norms,
      Op::sum,     Op::sum_squares, Op::adamw};
  return ops;
}

const char* op_name(Op op) {
  switch (op) {
    case Op::fill: return "fill";
    case Op::copy: return "copy";
    case Op::embedding: return "embedding";
    case Op::rmsnorm: return "rmsnorm";
    case Op::matmul: return "matmul";
    case Op::conv_silu: return "conv_silu";
    case Op::l2norm: return "l2norm";
    case Op::prefix_renorm: return "prefix_renorm";
    case Op::prefix_mask: return "prefix_mask";
    case Op::sigmoid: return "sigmoid";
    case Op::decay: return "decay";
    case Op::swiglu: return "swiglu";
    case Op::multiply: return "multiply";
    case Op::add: return "add";
    case Op::axpy: return "axpy";
    case Op::scale: return "scale";
    case Op::comba_query: return "comba_query";
    case Op::xent: return "xent";
    case Op::attention: return "attention";
    case Op::memory_rule: return "memory_rule";
    case Op::memory_block_norms: return "memory_block_norms";
    case Op::sum: return "sum";
    case Op::sum_squares: return "sum_squares";
    case Op::adamw: return "adamw";
  }
  return "?";
}

}  // namespace proteus::backend
