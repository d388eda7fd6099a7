#include "core/memory/rule_descriptor.hpp"

#include "core/memory/block_axis.hpp"
#include "core/memory/rule_form.hpp"

namespace proteus::memory {

// One row per rule; the order is the name table's (the first is the table's first, not the default).
const std::vector<RuleDescriptor>& rule_descriptors() {
  static const std::vector<RuleDescriptor> rows = {
      {Rule::linear, "linear", "linear attention: adds beta k v^T each step, under the decay a",
       {"S_t = S + G_t * ((a-1) S + beta k v^T)"},
       {{BlockAxis::value_rows, RuleForm::recurrent}}},
      {Rule::delta, "delta", "the delta rule: erases what k recalls (from the decayed state), then writes v",
       {"Sg = G_t * S", "S_t = S + G_t * ((a-1) S + beta k (v - a Sg^T k)^T)"},
       {{BlockAxis::value_rows, RuleForm::chunked}, {BlockAxis::layer, RuleForm::chunked}}},
      {Rule::comba, "comba", "the delta rule erasing along its own direction p, predicting from the state before decay",
       {"Sg = G_t * S", "S_t = S + G_t * ((a-1) S + beta k (v - Sg^T p)^T)"},
       {{BlockAxis::layer, RuleForm::recurrent}}},
      {Rule::titans, "titans", "the delta rule's surprise through a momentum Z with factor eta (no chunked form)",
       {"Sg = G_t * S", "Z_t = Z + G_t * ((eta-1) Z - beta k (Sg^T k - v)^T)", "S_t = S + G_t * ((a-1) S + Z_t)"},
       {{BlockAxis::value_rows, RuleForm::recurrent}}},
      {Rule::swla, "swla", "sliding-window linear attention: c writes per step, of the last c tokens, weighted by gamma",
       {"S_t = S + G_t * ((a-1) S + sum_j gamma_t[j] k_{t-j} v_{t-j}^T)"},
       {{BlockAxis::value_rows, RuleForm::chunked}, {BlockAxis::layer, RuleForm::recurrent}}},
      {Rule::gla, "gla", "gated linear attention: the linear rule with a retention per key dimension, a_t in (0, 1]^d_k",
       {"S_t = S + G_t * ((diag(a_t)-1) S + beta k v^T)"},
       {{BlockAxis::value_rows, RuleForm::chunked}, {BlockAxis::layer, RuleForm::chunked}}},
      {Rule::kda, "kda", "Kimi delta attention: the delta rule with a retention per key dimension, a_t in (0, 1]^d_k",
       {"Sg = G_t * S", "S_t = S + G_t * ((diag(a_t)-1) S + beta k (v - (diag(a_t) Sg)^T k)^T)"},
       {{BlockAxis::value_rows, RuleForm::chunked}, {BlockAxis::layer, RuleForm::chunked}}},
  };
  return rows;
}

const RuleDescriptor& describe(Rule rule) {
  for (const auto& row : rule_descriptors())
    if (row.rule == rule) return row;
  return rule_descriptors().front();  // only a value cast from outside the enum
}

const std::vector<common::Named<Rule>>& name_table(Rule) {
  static const std::vector<common::Named<Rule>> table = [] {
    std::vector<common::Named<Rule>> t;
    for (const auto& row : rule_descriptors()) t.push_back({row.rule, row.name});
    return t;
  }();
  return table;
}

const std::vector<Rule>& all_rules() {
  static const std::vector<Rule> rules = common::choice_values<Rule>();
  return rules;
}

std::string_view rule_name(Rule rule) { return common::choice_name(rule); }
std::optional<Rule> rule_from_name(std::string_view name) { return common::choice_from_name<Rule>(name); }

}  // namespace proteus::memory
