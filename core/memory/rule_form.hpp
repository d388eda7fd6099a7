// Which form of a gated rule a call runs (`model.mixer.form`): the chunked (WY) form where it
// applies, or the recurrent form with checkpoints every C steps. Both compute SPEC section 3's
// rule; neither keeps a tape of every state. (C++17: the CUDA backend includes this header.)
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/memory/gated_rule.hpp"

namespace proteus::memory {

enum class RuleForm {
  automatic,  // "auto": chunked where chunked_form_applies (all but titans, row-aligned E), recurrent elsewhere
  recurrent,  // step by step, state checkpoints every C steps (bit-identical to the taped reference)
  chunked,    // the chunked form; an input error where it does not apply
};

// The name table the config validator and the window read, in this order.
const std::vector<RuleForm>& all_rule_forms();
std::string_view rule_form_name(RuleForm form);  // "auto", "recurrent", "chunked"
std::optional<RuleForm> rule_form_from_name(std::string_view name);

// The form a call with these settings runs: never `automatic`. Throws InputError("form") when
// `chunked` is asked of a rule or schedule it does not cover, or when there is an initial state.
RuleForm resolve_rule_form(RuleForm requested, Rule rule, const Schedule& schedule, int64_t d_v, bool has_S0 = false);

}  // namespace proteus::memory
