#include "core/memory/rule_coverage.hpp"

#include <array>

#include "core/common/input_error.hpp"
#include "core/memory/rule_descriptor.hpp"

namespace proteus::memory {
namespace {

std::array<std::optional<RuleTraits>, kRuleCount>& fake_rows() {
  static std::array<std::optional<RuleTraits>, kRuleCount> rows;
  return rows;
}

RuleCoverage refused(std::string why) {
  RuleCoverage c;
  c.why_not = std::move(why);
  return c;
}

}  // namespace

// Each family's loop, and what it reads: hebbian_rule.cpp writes with beta or with a window's
// gamma and decays by a scalar or a row; delta_rule.cpp erases along k or p, predicting from the
// decayed state or not, under a scalar or a row; titans_rule.cpp erases along k under one scalar.
RuleCoverage cpu_coverage(const RuleTraits& t) {
  RuleCoverage c;
  switch (t.family) {
    case RuleFamily::hebbian:
      if (t.uses_p || t.decayed_prediction) return refused("a hebbian write has no prediction to erase with");
      if (t.uses_eta) return refused("a momentum factor eta without the momentum family");
      if (t.uses_beta == t.uses_gamma)
        return refused("a hebbian write weighs by beta or by a window's gamma, exactly one of them");
      c.chunk = !t.per_key_retention ? ChunkKind::shared_decay : t.uses_gamma ? ChunkKind::none : ChunkKind::per_key_write;
      break;
    case RuleFamily::erasing:
      if (!t.uses_beta || t.uses_gamma) return refused("the erasing loop writes once a step with beta, no window");
      if (t.uses_eta) return refused("a momentum factor eta without the momentum family");
      c.chunk = !t.per_key_retention                          ? ChunkKind::shared_decay
                : t.decayed_prediction && !t.uses_p ? ChunkKind::per_key_erase
                                                            : ChunkKind::none;
      break;
    case RuleFamily::momentum:
      if (!t.uses_beta || !t.uses_eta || t.uses_gamma || t.uses_p)
        return refused("the momentum loop erases along k with beta and eta, no window");
      if (t.per_key_retention) return refused("the momentum loop decays by one retention a step, not a row");
      if (t.decayed_prediction) return refused("the momentum loop predicts from the state before its decay");
      break;
  }
  c.recurrent = true;
  return c;
}

RuleTraits guarded_traits(Rule rule) {
  const auto i = static_cast<size_t>(rule);
  return i < fake_rows().size() && fake_rows()[i] ? *fake_rows()[i] : rule_traits(rule);
}

RuleCoverage cpu_coverage(Rule rule) { return cpu_coverage(guarded_traits(rule)); }

void require_rule_covered(Rule rule) {
  const RuleCoverage c = cpu_coverage(rule);
  if (!c.recurrent)
    throw InputError("rule", "rule " + std::string(rule_name(rule)) + ": no CPU loop implements its traits (" + c.why_not +
                                 "); core/memory/rule_coverage.hpp lists what the loops cover");
}

namespace testing {
ScopedFakeTraits::ScopedFakeTraits(Rule rule, const RuleTraits& fake)
    : rule_(rule), before_(fake_rows()[static_cast<size_t>(rule)]) {
  fake_rows()[static_cast<size_t>(rule)] = fake;
}
ScopedFakeTraits::~ScopedFakeTraits() { fake_rows()[static_cast<size_t>(rule_)] = before_; }
}  // namespace testing

}  // namespace proteus::memory
