// The memory rule's and block norms' parity cases: apart, with their own inputs, schedules, locked rows and sizes.
#pragma once
#include <vector>

#include "core/backend/cases/op_cases.hpp"

namespace proteus::backend::parity {

void memory_rule_cases(std::vector<OpCase>& cases);
void memory_block_norms_cases(std::vector<OpCase>& cases);

}  // namespace proteus::backend::parity
