// The rules' table (core/memory/rule_descriptor.*, rule_traits.hpp): one row per rule, read by
// the name table, the dispatch on traits and the help texts. What a new row must satisfy.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <type_traits>

#include "core/memory/block_axis.hpp"
#include "core/memory/chunked_rule.hpp"
#include "core/memory/rule_descriptor.hpp"
#include "core/memory/rule_form.hpp"

namespace proteus::memory {
namespace {

TEST(RuleDescriptor, EveryRuleHasOneRowInEnumOrderAndTheNameTableIsItsFirstColumn) {
  const auto& rows = rule_descriptors();
  ASSERT_EQ(static_cast<int>(rows.size()), kRuleCount);
  std::set<std::string_view> names;
  for (int i = 0; i < kRuleCount; ++i) {
    const RuleDescriptor& row = rows[i];
    EXPECT_EQ(row.rule, static_cast<Rule>(i)) << "rows follow the enum, so visit_rule reaches each";
    EXPECT_TRUE(names.insert(row.name).second) << "name " << row.name << " twice";
    EXPECT_EQ(rule_name(row.rule), row.name);
    EXPECT_EQ(rule_from_name(row.name), row.rule);
    EXPECT_EQ(&describe(row.rule), &row);
    EXPECT_FALSE(row.summary.empty()) << row.name;
    EXPECT_FALSE(row.teach_update.empty()) << row.name << ": the Teach tab draws its update";
    EXPECT_FALSE(row.parity_axes.empty()) << row.name << ": the parity table runs it under a block axis";
  }
  EXPECT_EQ(all_rules().size(), rows.size());
  EXPECT_FALSE(rule_from_name("Delta").has_value()) << "names are exact";
}

TEST(RuleDescriptor, VisitRuleCallsOnceWithTheSameRuleAtCompileTime) {
  for (Rule rule : all_rules()) {
    int calls = 0;
    visit_rule(rule, [&](auto r) {
      ++calls;
      static_assert(std::is_same_v<decltype(decltype(r)::value), const Rule>);
      EXPECT_EQ(decltype(r)::value, rule);
    });
    EXPECT_EQ(calls, 1) << rule_name(rule);
  }
}

TEST(RuleDescriptor, TraitsAreConsistent) {
  for (Rule rule : all_rules()) {
    const RuleTraits t = rule_traits(rule);
    SCOPED_TRACE(std::string(rule_name(rule)));
    // A second recurrence has no chunked form, and only the momentum family reads eta.
    EXPECT_EQ(rule_has_momentum(rule), !rule_has_chunked_form(rule));
    EXPECT_EQ(t.uses_eta, t.family == RuleFamily::momentum);
    // An erase direction or a prediction belongs to a rule that predicts.
    if (t.uses_p || t.decayed_prediction) {
      EXPECT_TRUE(rule_predicts(rule));
    }
    // Window weights replace beta; masking the inputs equals gating except for window writes.
    if (t.uses_gamma) {
      EXPECT_FALSE(t.uses_beta);
    }
    EXPECT_EQ(rule_masks_as_gates(rule), !t.uses_gamma);
    // The chunked form applies exactly where the traits say (row-aligned blocks: E = 4, d_v 3).
    EXPECT_EQ(chunked_form_applies(rule, Schedule::uniform(12, 4, 8), 3), rule_has_chunked_form(rule));
    for (const AxisCase& c : describe(rule).parity_axes) {
      EXPECT_NE(c.axis, BlockAxis::key_rows) << "key_rows runs in every other case";
      if (c.form == RuleForm::chunked) {
        EXPECT_TRUE(rule_has_chunked_form(rule));
      }
    }
  }
}

TEST(RuleDescriptor, HelpTextsListTheRulesFromTheTable) {
  const std::string with_window = rules_where(rule_uses_gamma);
  const std::string all = rules_where([](Rule) { return true; });
  for (Rule rule : all_rules()) {
    EXPECT_NE(all.find(std::string(rule_name(rule))), std::string::npos);
    EXPECT_EQ(with_window.find(std::string(rule_name(rule))) != std::string::npos, rule_uses_gamma(rule));
  }
  EXPECT_NE(all.rfind(" and "), std::string::npos) << all;
  EXPECT_EQ(rules_where([](Rule) { return false; }), "");
  // The auto form's phrase names the rules without a chunked form, from their traits.
  const std::string phrase(auto_form_rule());
  for (Rule rule : all_rules()) {
    if (!rule_has_chunked_form(rule)) {
      EXPECT_NE(phrase.find(std::string(rule_name(rule))), std::string::npos) << phrase;
    }
  }
}

}  // namespace
}  // namespace proteus::memory
