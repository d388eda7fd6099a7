// The one CPU guard on rule traits: which combinations of RuleTraits the time loops (hebbian_rule,
// delta_rule, titans_rule) and the chunks (chunked_rule.cpp's shared-decay chunk,
// chunked_per_key_rule.cpp's per-key chunks) implement. A rule's row in rule_traits.hpp is only
// run where this says a loop covers it; anything else is refused by name (the memory-op, the model,
// the bench and every form's input check ask here), never run with another rule's arithmetic.
// The chunk a rule runs is chosen here too, by its family and its retention's shape.
#pragma once
#include <optional>
#include <string>

#include "core/memory/rule_traits.hpp"

namespace proteus::memory {

// The chunk of the chunked (WY) form that runs a combination of traits.
enum class ChunkKind {
  none,            // no chunk covers it: the recurrent form only (momentum, say)
  shared_decay,    // one retention a step for the whole state: hebbian (window writes too) and erasing rules
  per_key_write,   // a row of retentions, hebbian, one write a step (fla's chunk_gla)
  per_key_erase,   // a row of retentions, erasing along k from the decayed state (fla's chunk_kda)
};

struct RuleCoverage {
  bool recurrent = false;             // a time loop runs it (the reference, the checkpointed form)
  ChunkKind chunk = ChunkKind::none;  // the chunk that runs it, or none
  std::string why_not;                // when !recurrent: the combination no loop implements, in words
};

// What the CPU implements of these traits.
RuleCoverage cpu_coverage(const RuleTraits& traits);

// The traits the guard reads for `rule`: rule_traits(rule), or a test's fake row (testing below).
RuleTraits guarded_traits(Rule rule);
RuleCoverage cpu_coverage(Rule rule);

// Throws InputError("rule", "rule <name>: ...") when no CPU loop implements the rule's traits.
void require_rule_covered(Rule rule);

namespace testing {
// Replaces `rule`'s traits row, for the guard only, while alive: a test's row that no loop covers
// must be refused on every path. Not for product code.
class ScopedFakeTraits {
 public:
  ScopedFakeTraits(Rule rule, const RuleTraits& fake);
  ~ScopedFakeTraits();
  ScopedFakeTraits(const ScopedFakeTraits&) = delete;
  ScopedFakeTraits& operator=(const ScopedFakeTraits&) = delete;

 private:
  Rule rule_;
  std::optional<RuleTraits> before_;
};
}  // namespace testing

}  // namespace proteus::memory
