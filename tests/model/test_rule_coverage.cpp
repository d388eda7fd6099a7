// The CPU guard on rule traits (core/memory/rule_coverage.hpp): every rule of the table is covered
// by a time loop and gets the chunk its family and retention shape call for; a traits row that no
// loop implements (a fake one, put in by the test) is refused by name on every path that could run
// it: memory-op, each form of the rule, the model and both benches. Never run with another
// rule's arithmetic.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "core/backend/bench/kernel_benchmark.hpp"
#include "core/backend/bench/op_benchmark.hpp"
#include "core/backend/cpu/cpu_backend.hpp"
#include "core/memory/checkpointed_rule.hpp"
#include "core/memory/chunked_rule.hpp"
#include "core/memory/memory_op.hpp"
#include "core/memory/rule_coverage.hpp"
#include "core/model/model.hpp"
#include "tests/memory/random_rule_inputs.hpp"

namespace {

using namespace proteus;
using memory::ChunkKind;
using memory::Rule;
using memory::RuleFamily;
using memory::RuleTraits;

TEST(RuleCoverage, EveryRuleOfTheTableRunsAndGetsItsFamilysChunk) {
  for (Rule rule : memory::all_rules()) {
    const memory::RuleCoverage c = memory::cpu_coverage(rule);
    const RuleTraits t = memory::rule_traits(rule);
    SCOPED_TRACE(std::string(memory::rule_name(rule)));
    EXPECT_TRUE(c.recurrent) << c.why_not;
    if (t.family == RuleFamily::momentum) EXPECT_EQ(c.chunk, ChunkKind::none);
    else if (!t.per_key_retention) EXPECT_EQ(c.chunk, ChunkKind::shared_decay);
    else EXPECT_EQ(c.chunk, t.family == RuleFamily::erasing ? ChunkKind::per_key_erase : ChunkKind::per_key_write);
  }
}

// Combinations a loop runs but no chunk does: a row of retentions with window writes, or with an
// erase along its own p (the per-key erase chunk predicts along k from the decayed state).
TEST(RuleCoverage, ARowOfRetentionsOutsideBothPerKeyChunksIsRecurrentOnly) {
  RuleTraits window;
  window.uses_beta = false, window.uses_gamma = true, window.per_key_retention = true;
  RuleTraits along_p;
  along_p.family = RuleFamily::erasing, along_p.uses_p = true, along_p.per_key_retention = true;
  RuleTraits undecayed;
  undecayed.family = RuleFamily::erasing, undecayed.per_key_retention = true;
  for (const RuleTraits& t : {window, along_p, undecayed}) {
    EXPECT_TRUE(memory::cpu_coverage(t).recurrent) << memory::cpu_coverage(t).why_not;
    EXPECT_EQ(memory::cpu_coverage(t).chunk, ChunkKind::none);
  }
}

// A row no loop implements: the momentum loop reads one retention a step, never a row.
RuleTraits uncovered() {
  RuleTraits t;
  t.family = RuleFamily::momentum, t.uses_eta = true, t.per_key_retention = true;
  return t;
}

void expect_refused(const std::string& path, const std::function<void()>& run) {
  try {
    run();
    ADD_FAILURE() << path << " ran a rule no loop implements";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "rule") << path << ": " << e.what();
    EXPECT_NE(std::string(e.what()).find("rule linear: no CPU loop implements its traits"), std::string::npos)
        << path << ": " << e.what();
    EXPECT_NE(std::string(e.what()).find("one retention a step, not a row"), std::string::npos) << path << ": " << e.what();
  }
}

config::ModelConfig tiny_model(Rule rule) {
  config::ModelConfig m;
  m.vocab = 11, m.d_model = 8, m.layers = 1, m.d_hidden = 8;
  m.mixer.rule = rule, m.mixer.heads = 2, m.mixer.d_head = 4, m.mixer.E = 2;
  return m;
}

TEST(RuleCoverage, AFakeRowNoLoopCoversIsRefusedOnEveryPath) {
  const int64_t T = 6, d_k = 4, d_v = 2, D = d_k * d_v;
  const memory::Schedule s = memory::Schedule::uniform(D, 2, 4);
  const memory::testing::RandomRuleInputs<double> in(Rule::linear, T, d_k, d_v, 3, true, false);
  auto be = backend::make_cpu_backend<float>(1);
  {
    const memory::testing::ScopedFakeTraits fake(Rule::linear, uncovered());
    EXPECT_FALSE(memory::cpu_coverage(Rule::linear).recurrent);
    expect_refused("memory-op", [] {
      memory::parse_memory_op(nlohmann::json::parse(R"({"rule": "linear", "q": [[1]], "k": [[1]], "v": [[1]], "beta": [1]})"));
    });
    std::vector<double> o(T * d_v), S(D);
    expect_refused("recurrent form", [&] { memory::gated_rule_forward<double>(Rule::linear, s, in.view(), o.data(), S.data(), nullptr); });
    expect_refused("checkpointed form", [&] {
      memory::checkpointed_rule_forward<double>(Rule::linear, s, in.view(), 2, o.data(), S.data(), nullptr);
    });
    expect_refused("chunked form", [&] {
      memory::chunked_rule_forward<double>(Rule::linear, s, in.view(), 2, o.data(), S.data(), nullptr);
    });
    EXPECT_FALSE(memory::chunked_form_applies(Rule::linear, s, d_v));
    expect_refused("model", [&] { model::Model<float> m(tiny_model(Rule::linear), 8, *be, 1); });
    expect_refused("memory-rule bench", [] {
      backend::MemoryRuleBenchSpec spec;
      spec.rule = Rule::linear, spec.B = 1, spec.T = 4, spec.H = 1, spec.d_k = 2, spec.d_v = 2, spec.reps = 1;
      backend::benchmark_memory_rule(spec, "cpu", 1);
    });
    expect_refused("kernels bench", [] {
      backend::KernelBenchSpec spec;
      spec.rule = Rule::linear, spec.B = 1, spec.T = 4, spec.H = 1, spec.D = 4, spec.vocab = 8, spec.E = {1};
      spec.warmup = 0, spec.reps = 1;
      backend::benchmark_kernels(spec, "cpu", 1);
    });
  }
  // The real row again once the fake is gone: the same calls run.
  EXPECT_TRUE(memory::cpu_coverage(Rule::linear).recurrent);
  EXPECT_NO_THROW(model::Model<float>(tiny_model(Rule::linear), 8, *be, 1));
  std::vector<double> o(T * d_v), S(D);
  EXPECT_NO_THROW(memory::gated_rule_forward<double>(Rule::linear, s, in.view(), o.data(), S.data(), nullptr));
}

}  // namespace
