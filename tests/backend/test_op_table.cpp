// The op table (all_ops(), op.hpp) is the one list of ops, in the manner of ggml's
// test-backend-ops: the parity cases (op_cases.hpp, its `test` mode) and the kernel benchmark
// (kernel_benchmark.hpp, its `perf` mode) are its two instantiations. These checks fail when an
// op is in one and not the other, or when either keeps a list of its own beside the table.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/backend/bench/kernel_benchmark.hpp"
#include "core/backend/ops/op.hpp"
#include "core/backend/cases/op_cases.hpp"
#include "core/memory/chunked_rule.hpp"

namespace {

using namespace proteus::backend;

// The ops of a sequence of rows or cases, each once, in the order they first appear.
template <class Items>
std::vector<Op> ops_in_order(const Items& items) {
  std::vector<Op> ops;
  for (const auto& item : items)
    if (ops.empty() || ops.back() != item.op) ops.push_back(item.op);
  return ops;
}

std::vector<std::string> names(const std::vector<Op>& ops) {
  std::vector<std::string> out;
  for (Op op : ops) out.push_back(op_name(op));
  return out;
}

// The benchmark at a shape small enough to run in milliseconds.
const KernelBenchResult& tiny_benchmark() {
  static const KernelBenchResult r = [] {
    KernelBenchSpec spec;
    spec.B = 1, spec.T = 8, spec.H = 2, spec.D = 4, spec.vocab = 16;
    spec.E = {1, 4};
    spec.warmup = 0, spec.reps = 1;
    return benchmark_kernels(spec, "cpu", 1);
  }();
  return r;
}

TEST(OpTable, OpsAndNamesAreUnique) {
  std::set<Op> ops;
  std::set<std::string> op_names;
  for (Op op : all_ops()) {
    EXPECT_TRUE(ops.insert(op).second) << op_name(op);
    EXPECT_TRUE(op_names.insert(op_name(op)).second) << op_name(op);
    EXPECT_NE(std::string(op_name(op)), "?");
  }
}

TEST(OpTable, EveryOpHasParityCasesOfItsOwn) {
  for (Op op : all_ops()) {
    std::vector<OpCase> cases;
    add_op_cases(op, cases);
    EXPECT_FALSE(cases.empty()) << op_name(op) << " has no parity case";
    for (const auto& c : cases) EXPECT_EQ(c.op, op) << c.name << " is listed under " << op_name(op);
  }
}

// op_cases() is the table instantiated op by op, in its order: nothing added beside it.
TEST(OpTable, ParityCasesAreTheTableInstantiated) {
  std::vector<std::string> expected;
  for (Op op : all_ops()) {
    std::vector<OpCase> cases;
    add_op_cases(op, cases);
    for (const auto& c : cases) expected.push_back(c.name);
  }
  std::vector<std::string> actual;
  for (const auto& c : op_cases()) actual.push_back(c.name);
  EXPECT_EQ(actual, expected);
  EXPECT_EQ(names(ops_in_order(op_cases())), names(all_ops()));
}

// Every rule with a chunked form has chunked cases (OpCase::chunked_rule), one asking for the form
// outright, so the self-check's per-rule fallback guards that form on every backend (swla included);
// titans, which has none, has none.
TEST(OpTable, EveryChunkedFormIsGuardedByItsRulesCases) {
  using proteus::memory::Rule;
  std::map<Rule, std::set<std::string>> guarded;
  for (const auto& c : op_cases())
    if (c.chunked_rule) guarded[*c.chunked_rule].insert(c.name);
  for (Rule rule : proteus::memory::all_rules()) {
    const std::string name(proteus::memory::rule_name(rule));
    const bool has_form = proteus::memory::chunked_form_applies(rule, proteus::memory::Schedule::uniform(12, 1, 8), 3);
    EXPECT_EQ(guarded.count(rule) == 1, has_form) << name;
    if (has_form) {
      EXPECT_EQ(guarded[rule].count("memory_rule_" + name + "_E1_chunked"), 1u) << name;
    }
  }
  EXPECT_EQ(guarded.count(Rule::swla), 1u);
}

// Every op of the table is timed, in the table's order, and nothing else is.
TEST(OpTable, KernelBenchmarkTimesEveryOpOfTheTable) {
  const auto& r = tiny_benchmark();
  EXPECT_EQ(r.device, "cpu");
  EXPECT_EQ(names(ops_in_order(r.rows)), names(all_ops()));
  for (const auto& row : r.rows) {
    EXPECT_EQ(row.label.rfind(op_name(row.op), 0), 0u) << row.label << " is timed as " << op_name(row.op);
    EXPECT_TRUE(row.pass.empty() || row.pass == "fwd" || row.pass == "bwd") << row.label << " " << row.pass;
    EXPECT_GE(row.ms, 0.0) << row.label;
    EXPECT_FALSE(row.shape.empty()) << row.label;
  }
}

// The memory rule (forward and backward) and its block norms are timed once per E of the spec.
TEST(OpTable, KernelBenchmarkTimesTheMemoryRuleAndBlockNormsPerE) {
  int rule_rows = 0, norm_rows = 0;
  for (const auto& row : tiny_benchmark().rows) {
    rule_rows += row.op == Op::memory_rule;
    norm_rows += row.op == Op::memory_block_norms;
  }
  EXPECT_EQ(rule_rows, 4);  // fwd and bwd, E = 1 and 4
  EXPECT_EQ(norm_rows, 2);
}

}  // namespace
