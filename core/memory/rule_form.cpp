#include "core/memory/rule_form.hpp"

#include "core/memory/chunked_rule.hpp"

namespace proteus::memory {

const std::vector<common::Named<RuleForm>>& name_table(RuleForm) {
  static const std::vector<common::Named<RuleForm>> table = {
      {RuleForm::automatic, "auto"}, {RuleForm::recurrent, "recurrent"}, {RuleForm::chunked, "chunked"}};
  return table;
}

const std::vector<RuleForm>& all_rule_forms() {
  static const std::vector<RuleForm> forms = common::choice_values<RuleForm>();
  return forms;
}

std::string_view rule_form_name(RuleForm form) { return common::choice_name(form); }
std::optional<RuleForm> rule_form_from_name(std::string_view name) { return common::choice_from_name<RuleForm>(name); }

std::string_view auto_form_rule() {
  static const std::string text = "chunked where it applies: every rule but " +
                                  rules_where([](Rule r) { return !rule_has_chunked_form(r); }) + ", with E dividing d_head";
  return text;
}

RuleForm resolve_rule_form(RuleForm requested, Rule rule, const Schedule& schedule, int64_t d_v, bool has_S0) {
  std::string why;
  bool applies = chunked_form_applies(rule, schedule, d_v, &why);
  if (applies && has_S0) {
    applies = false;
    why = "the chunked form starts from a zero state, and this call has an initial state";
  }
  if (requested == RuleForm::chunked && !applies)
    throw InputError("form", "chunked: " + why + "; use \"auto\" or \"recurrent\"");
  if (requested == RuleForm::recurrent) return RuleForm::recurrent;
  return applies ? RuleForm::chunked : RuleForm::recurrent;
}

}  // namespace proteus::memory
