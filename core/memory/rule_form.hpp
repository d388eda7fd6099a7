// Which form of a gated rule a call runs (`model.mixer.form`): the chunked (WY) form where it
// applies, or the recurrent form with checkpoints every C steps. Both compute math.md section 3's
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
  automatic,  // "auto": resolve_rule_form below says which
  recurrent,  // step by step, state checkpoints every C steps (bit-identical to the taped reference)
  chunked,    // the chunked form; an input error where it does not apply
};

// The forms' one name table (model.mixer.form, bench's --form, the window): "auto", "recurrent",
// "chunked", in this order; the three below read it.
const std::vector<common::Named<RuleForm>>& name_table(RuleForm);
const std::vector<RuleForm>& all_rule_forms();
std::string_view rule_form_name(RuleForm form);
std::optional<RuleForm> rule_form_from_name(std::string_view name);
// JSON (nlohmann finds this by argument-dependent lookup) holds a form as its name, never a number.
template <class Json>
void to_json(Json& j, RuleForm form) { j = std::string(rule_form_name(form)); }
// resolve_rule_form's rule for `auto` in a phrase, for help texts: "chunked where it applies:
// <the rules with a chunked form>, with E dividing d_head".
std::string_view auto_form_rule();

// The form a call with these settings runs: never `automatic`. The one statement of when `auto`
// picks the chunked form (the config, the window, the README and docs/math.md refer here): where
// the chunked form applies, that is every rule without momentum (a second recurrence),
// with row-aligned blocks (E dividing d_k, so d_head in the model: chunked_form_applies) and a
// zero initial state; the recurrent form elsewhere. A backend may still send a rule back to its
// recurrent form (Backend::form_to_run, the GPU self-check). Throws InputError("form") when
// `chunked` is asked of a rule or schedule it does not cover, or when there is an initial state.
RuleForm resolve_rule_form(RuleForm requested, Rule rule, const Schedule& schedule, int64_t d_v, bool has_S0 = false);

}  // namespace proteus::memory
