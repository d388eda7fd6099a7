// The memory rules' one table: a row per rule with its name, a line that says what it is, the
// inputs it reads and the Teach picture of its update. The name table of `Rule` (config, memory-op,
// the window's lists, the help) is this table's first column; the traits the code branches on are
// rule_traits.hpp's. Nothing outside these two files and a rule's own time loop names a rule.
// (C++17: the CUDA backend includes it.)
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/name_table.hpp"
#include "core/memory/rule_traits.hpp"

namespace proteus::memory {

enum class BlockAxis;  // block_axis.hpp
enum class RuleForm;   // rule_form.hpp

// A parity case of the rule under a block axis other than key_rows, in one form (memory_rule_cases.cpp).
struct AxisCase {
  BlockAxis axis;
  RuleForm form;
};

struct RuleDescriptor {
  Rule rule;
  std::string_view name;
  std::string_view summary;                   // one line: the help, the window's tooltip
  std::vector<std::string_view> teach_update;  // the Teach tab's update equations, before its read-out
  std::vector<AxisCase> parity_axes;          // its cases under value_rows / layer in the parity table
};

const std::vector<RuleDescriptor>& rule_descriptors();
const RuleDescriptor& describe(Rule rule);

// The rules' one name table (model.mixer.rule, memory-op's "rule", the window's lists, the help);
// the three below read it.
const std::vector<common::Named<Rule>>& name_table(Rule);
const std::vector<Rule>& all_rules();
std::string_view rule_name(Rule rule);
std::optional<Rule> rule_from_name(std::string_view name);
// JSON (nlohmann finds this by argument-dependent lookup) holds a rule as its name, never a number.
template <class Json>
void to_json(Json& j, Rule rule) { j = std::string(rule_name(rule)); }

// The inputs a rule reads beyond q, k, v and a (memory-op's fields, the model's projections).
PROTEUS_HOST_DEVICE constexpr bool rule_uses_beta(Rule rule) { return rule_traits(rule).uses_beta; }
PROTEUS_HOST_DEVICE constexpr bool rule_uses_p(Rule rule) { return rule_traits(rule).uses_p; }
PROTEUS_HOST_DEVICE constexpr bool rule_uses_eta(Rule rule) { return rule_traits(rule).uses_eta; }
PROTEUS_HOST_DEVICE constexpr bool rule_uses_gamma(Rule rule) { return rule_traits(rule).uses_gamma; }

// The names of the rules a predicate holds for, "a, b and c" (or "a or b" with `word` "or"): the
// messages and help texts that say which rules take an input or have a form.
template <class Predicate>
std::string rules_where(Predicate holds, std::string_view word = "and") {
  std::vector<std::string_view> names;
  for (const auto& row : rule_descriptors())
    if (holds(row.rule)) names.push_back(row.name);
  std::string text;
  for (size_t i = 0; i < names.size(); ++i)
    text += (i == 0 ? "" : i + 1 == names.size() ? " " + std::string(word) + " " : ", ") + std::string(names[i]);
  return text;
}

}  // namespace proteus::memory
