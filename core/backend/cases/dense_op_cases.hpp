// The dense ops' parity cases, a function an op: apart from the memory rule's, which share only case_making.hpp.
#pragma once
#include <vector>

#include "core/backend/cases/op_cases.hpp"

namespace proteus::backend::parity {

void fill_cases(std::vector<OpCase>& cases);
void copy_cases(std::vector<OpCase>& cases);
void embedding_cases(std::vector<OpCase>& cases);
void rmsnorm_cases(std::vector<OpCase>& cases);
void matmul_cases(std::vector<OpCase>& cases);
void conv_silu_cases(std::vector<OpCase>& cases);
void l2norm_cases(std::vector<OpCase>& cases);
void prefix_renorm_cases(std::vector<OpCase>& cases);
void prefix_mask_cases(std::vector<OpCase>& cases);
void sigmoid_cases(std::vector<OpCase>& cases);
void decay_cases(std::vector<OpCase>& cases);
void swiglu_cases(std::vector<OpCase>& cases);
void multiply_cases(std::vector<OpCase>& cases);
void add_cases(std::vector<OpCase>& cases);
void axpy_cases(std::vector<OpCase>& cases);
void scale_cases(std::vector<OpCase>& cases);
void comba_query_cases(std::vector<OpCase>& cases);
void xent_cases(std::vector<OpCase>& cases);
void attention_cases(std::vector<OpCase>& cases);
void sum_cases(std::vector<OpCase>& cases);
void sum_squares_cases(std::vector<OpCase>& cases);
void adamw_cases(std::vector<OpCase>& cases);

}  // namespace proteus::backend::parity
