// The parity table: each op's cases (dense_op_cases.cpp, memory_rule_cases.cpp), in the op table's order.
#include "core/backend/cases/op_cases.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include "core/backend/cases/dense_op_cases.hpp"
#include "core/backend/cases/memory_rule_cases.hpp"

namespace proteus::backend {

void add_op_cases(Op op, std::vector<OpCase>& cases) {
  using namespace parity;
  switch (op) {
    case Op::fill: return fill_cases(cases);
    case Op::copy: return copy_cases(cases);
    case Op::embedding: return embedding_cases(cases);
    case Op::rmsnorm: return rmsnorm_cases(cases);
    case Op::matmul: return matmul_cases(cases);
    case Op::conv_silu: return conv_silu_cases(cases);
    case Op::l2norm: return l2norm_cases(cases);
    case Op::prefix_renorm: return prefix_renorm_cases(cases);
    case Op::prefix_mask: return prefix_mask_cases(cases);
    case Op::sigmoid: return sigmoid_cases(cases);
    case Op::decay: return decay_cases(cases);
    case Op::swiglu: return swiglu_cases(cases);
    case Op::multiply: return multiply_cases(cases);
    case Op::add: return add_cases(cases);
    case Op::axpy: return axpy_cases(cases);
    case Op::scale: return scale_cases(cases);
    case Op::comba_query: return comba_query_cases(cases);
    case Op::xent: return xent_cases(cases);
    case Op::attention: return attention_cases(cases);
    case Op::memory_rule: return memory_rule_cases(cases);
    case Op::memory_block_norms: return memory_block_norms_cases(cases);
    case Op::sum: return sum_cases(cases);
    case Op::sum_squares: return sum_squares_cases(cases);
    case Op::adamw: return adamw_cases(cases);
  }
  throw std::logic_error(std::string("no parity cases for op ") + op_name(op));
}

namespace {

// The op table's parity instantiation: each op's cases, in the table's order.
std::vector<OpCase> build() {
  std::vector<OpCase> cases;
  for (Op op : all_ops()) add_op_cases(op, cases);
  return cases;
}

}  // namespace

const std::vector<OpCase>& op_cases() {
  static const std::vector<OpCase> cases = build();
  return cases;
}

}  // namespace proteus::backend
