// The teaching panel's step-through: each step is the memory-op engine on the prefix, so it must
// agree with one run over all tokens (the rule is causal), locked elements must keep their value
// from one step to the next, and nothing outside the mask is written.
#include <gtest/gtest.h>

#include "app/gui/state/teaching_stepper.hpp"
#include "core/common/input_error.hpp"
#include "core/memory/memory_op.hpp"

namespace {

using namespace proteus;

class TeachingStepperRules : public ::testing::TestWithParam<std::string> {};

TEST_P(TeachingStepperRules, StepsAgreeWithTheWholeRunAndKeepLockedElements) {
  gui::TeachingExample ex;
  ex.rule = GetParam();
  ex.T = 10;
  ex.E = 4;
  ex.N = 10;
  ex.decay = 0.9;
  gui::TeachingStepper st;
  st.set_example(ex);
  const auto whole = memory::run_memory_op(memory::parse_memory_op(st.input()));
  std::vector<double> prev(16, 0.0);
  int blocks_before = 0;
  for (int t = 1; t <= ex.T; ++t) {
    st.go_to(t);
    const auto& s = st.current();
    EXPECT_EQ(s.active_blocks, whole["active_blocks"][t - 1].get<int>());
    EXPECT_GE(s.active_blocks, blocks_before) << "blocks only unlock";
    blocks_before = s.active_blocks;
    for (int c = 0; c < ex.d_v; ++c)
      EXPECT_DOUBLE_EQ(s.read[c], whole["o"][t - 1][c].get<double>()) << "t " << t << " c " << c;
    for (size_t i = 0; i < s.state.size(); ++i) {
      if (!s.mask[i]) {
        EXPECT_EQ(s.state[i], prev[i]) << "locked element " << i << " changed at t " << t;
        EXPECT_FALSE(s.written[i]);
      }
      EXPECT_EQ(bool(s.written[i]), s.state[i] != prev[i]);
    }
    prev = s.state;
  }
  for (int r = 0; r < ex.d_k; ++r)
    for (int c = 0; c < ex.d_v; ++c) EXPECT_EQ(prev[r * ex.d_v + c], whole["S"][r][c].get<double>());
}

INSTANTIATE_TEST_SUITE_P(AllRules, TeachingStepperRules,
                         ::testing::Values("linear", "delta", "comba", "titans", "swla"));

TEST(TeachingStepper, StepsClampAndStartEmpty) {
  gui::TeachingStepper st;
  st.set_example({});
  st.go_to(0);
  EXPECT_EQ(st.current().t, 0);
  EXPECT_TRUE(st.current().read.empty());
  for (double v : st.current().state) EXPECT_EQ(v, 0.0);
  st.back();
  EXPECT_EQ(st.t(), 0);
  st.go_to(1000);
  EXPECT_EQ(st.t(), st.T());
  st.step();
  EXPECT_EQ(st.t(), st.T());
}

TEST(TeachingStepper, ABadExampleIsRefusedByFieldAndTheOldOneKept) {
  gui::TeachingStepper st;
  gui::TeachingExample ok;
  st.set_example(ok);
  gui::TeachingExample bad = ok;
  bad.E = 17;  // D = 16
  try {
    st.set_example(bad);
    FAIL() << "E = 17 > D was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "E");
  }
  EXPECT_EQ(st.example().E, ok.E);
}

TEST(TeachingStepper, EveryRuleHasItsEquations) {
  for (const char* rule : {"linear", "delta", "comba", "titans", "swla"}) {
    const auto eq = gui::rule_equations(rule);
    ASSERT_GE(eq.size(), 2u);
    bool update = false;
    for (const auto& line : eq) update |= line.rfind("S_t = ", 0) == 0;
    EXPECT_TRUE(update) << rule;
    EXPECT_NE(eq[eq.size() - 3].find("o_t"), std::string::npos) << rule;
  }
}

}  // namespace
