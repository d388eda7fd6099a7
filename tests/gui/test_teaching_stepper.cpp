// The teaching panel's step-through: each step is the memory-op engine on the prefix, so it must
// agree with one run over all tokens (the rule is causal), locked elements must keep their value
// from one step to the next, and nothing outside the mask is written. Its recall errors, for the
// ungated and the gated memory, are checked against a direct loop (tests/support/direct_recall.hpp).
#include <gtest/gtest.h>

#include "app/gui/state/teaching_stepper.hpp"
#include "core/common/input_error.hpp"
#include "core/memory/memory_op.hpp"
#include "tests/support/direct_recall.hpp"

namespace {

using namespace proteus;

// Each step against the whole run; locked elements (key rows, or value dimensions under value_rows)
// keep their value and are not written.
void expect_steps_agree_with_the_whole_run(memory::Rule rule, memory::BlockAxis block_axis) {
  gui::TeachingExample ex;
  ex.rule = rule;
  ex.block_axis = block_axis;
  ex.T = 10;
  ex.d_k = ex.d_v = 4;
  ex.E = 4;
  ex.N = 10;
  ex.decay = 0.9;
  ex.beta = 0.8;
  gui::TeachingStepper st;
  st.set_example(ex);
  for (bool gated : {false, true}) {
    const auto in = gated ? st.input() : gui::ungated_input(st.input());
    EXPECT_EQ(in["E"].get<int>(), gated ? 4 : 1);
    const auto whole = memory::run_memory_op(memory::parse_memory_op(in));
    std::vector<double> prev(16, 0.0);
    int blocks_before = 0;
    for (int t = 1; t <= ex.T; ++t) {
      st.go_to(t);
      const auto& s = gated ? st.current().gated : st.current().ungated;
      EXPECT_EQ(s.active_blocks, whole["active_blocks"][t - 1].get<int>());
      EXPECT_GE(s.active_blocks, blocks_before) << "blocks only unlock";
      blocks_before = s.active_blocks;
      for (int c = 0; c < ex.d_v; ++c)
        EXPECT_DOUBLE_EQ(s.read[c], whole["o"][t - 1][c].get<double>()) << "t " << t << " c " << c;
      ASSERT_EQ(s.recall.size(), static_cast<size_t>(t));
      for (size_t i = 0; i < s.recall.size(); ++i) EXPECT_EQ(s.recall[i], whole["recall_error"][t - 1][i].get<double>());
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
}

class TeachingStepperRules : public ::testing::TestWithParam<memory::Rule> {};

TEST_P(TeachingStepperRules, StepsAgreeWithTheWholeRunAndKeepLockedElements) {
  expect_steps_agree_with_the_whole_run(GetParam(), memory::BlockAxis::key_rows);
}

TEST_P(TeachingStepperRules, ValueRowsStepsAgreeAndKeepLockedColumns) {
  expect_steps_agree_with_the_whole_run(GetParam(), memory::BlockAxis::value_rows);
}

INSTANTIATE_TEST_SUITE_P(AllRules, TeachingStepperRules, ::testing::ValuesIn(memory::all_rules()));

// Under value_rows the locked elements are whole value dimensions (columns of S): E = 4 over d_v = 4
// opens one column a block.
TEST(TeachingStepper, ValueRowsLocksColumns) {
  gui::TeachingExample ex;
  ex.T = 8, ex.d_k = ex.d_v = 4, ex.E = 4, ex.N = 8;
  ex.block_axis = memory::BlockAxis::value_rows;
  gui::TeachingStepper st;
  st.set_example(ex);
  st.go_to(1);
  const auto& s = st.current().gated;
  EXPECT_EQ(s.open_values, 1);
  EXPECT_EQ(s.open_rows, 4);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) EXPECT_EQ(bool(s.mask[r * 4 + c]), c == 0) << r << ", " << c;
}

TEST(TeachingStepper, StepsClampAndStartEmpty) {
  gui::TeachingStepper st;
  st.set_example({});
  st.go_to(0);
  EXPECT_EQ(st.current().t, 0);
  for (const auto* m : {&st.current().gated, &st.current().ungated}) {
    EXPECT_TRUE(m->read.empty());
    EXPECT_TRUE(m->recall.empty());
    for (double v : m->state) EXPECT_EQ(v, 0.0);
  }
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
  bad.E = ok.d_k * ok.d_v + 1;
  try {
    st.set_example(bad);
    FAIL() << "E > D was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "E");
  }
  EXPECT_EQ(st.example().E, ok.E);
}

// The recall errors the panel draws are the engine's, and they are what a direct loop over the
// rule with hand-written masks gives: d_k = 3, d_v = 2 (D = 6), T = 6, E = 3 uniform over N = 6
// (Delta = 2: active prefix ends 2 2 4 4 6 6); E = 4 (blocks of 1, the last [3, 6); ends 1 2 3 6
// 6 6, ending inside a key row); the ungated memory's ends are all 6.
TEST(TeachingStepper, RecallErrorsMatchADirectLoopForEveryVariant) {
  for (const memory::Rule rule : {memory::Rule::delta, memory::Rule::linear})
    for (const memory::KeyNormalize normalize : common::choice_values<memory::KeyNormalize>())
      for (const auto& [E, ends] : {std::pair{3, std::vector<int>{2, 2, 4, 4, 6, 6}},
                                    std::pair{4, std::vector<int>{1, 2, 3, 6, 6, 6}}}) {
        gui::TeachingExample ex;
        ex.rule = rule;
        ex.normalize = normalize;
        ex.T = 6, ex.d_k = 3, ex.d_v = 2, ex.E = E, ex.N = 0, ex.beta = 0.9, ex.seed = 3;
        gui::TeachingStepper st;
        st.set_example(ex);
        test::DirectStream direct;
        // The direct loop knows no core/memory: it takes the names.
        const std::string rule_name(memory::rule_name(rule)), normalize_name(memory::key_normalize_name(normalize));
        direct.rule = rule_name, direct.normalize = normalize_name, direct.d_k = 3, direct.d_v = 2;
        direct.k = st.input()["k"].get<std::vector<std::vector<double>>>();
        direct.v = st.input()["v"].get<std::vector<std::vector<double>>>();
        direct.beta.assign(6, 0.9);
        direct.ends = ends;
        const auto gated = test::direct_recall(direct);
        direct.ends.assign(6, 6);
        const auto ungated = test::direct_recall(direct);
        for (int t = 1; t <= 6; ++t) {
          st.go_to(t);
          const auto& s = st.current();
          ASSERT_EQ(s.gated.active_elements, ends[t - 1]);
          ASSERT_EQ(s.gated.recall.size(), static_cast<size_t>(t));
          ASSERT_EQ(s.ungated.recall.size(), static_cast<size_t>(t));
          for (int i = 0; i < t; ++i) {
            EXPECT_NEAR(s.gated.recall[i], gated[t - 1][i], 1e-12) << rule_name << " " << normalize_name << " E " << E << " t " << t << " i " << i;
            EXPECT_NEAR(s.ungated.recall[i], ungated[t - 1][i], 1e-12) << rule_name << " " << normalize_name << " t " << t << " i " << i;
          }
        }
      }
}

TEST(TeachingStepper, TheCaptionSaysWhatTheStepShows) {
  gui::TeachingExample ex;  // the panel's example: E = 4 over N = T = 12, Delta = 3
  gui::TeachingStepper st;
  st.set_example(ex);
  st.go_to(0);
  EXPECT_NE(st.caption().find("Before the first token"), std::string::npos) << st.caption();
  st.go_to(4);  // u_2 = 4: the second block opens here
  const std::string at4 = st.caption();
  EXPECT_NE(at4.find("Token 4 writes association 4"), std::string::npos) << at4;
  EXPECT_NE(at4.find("2 of 4 blocks open"), std::string::npos) << at4;
  EXPECT_NE(at4.find("a block opened at this token"), std::string::npos) << at4;
  const auto& s = st.current();
  const std::string counts = "ungated " + std::to_string(s.ungated.recalled()) + ", gated " + std::to_string(s.gated.recalled());
  EXPECT_NE(at4.find(counts), std::string::npos) << at4;
  int below = 0;
  for (double e : s.gated.recall) below += e < gui::kRecalledBelow;
  EXPECT_EQ(s.gated.recalled(), below);
  st.go_to(5);
  EXPECT_EQ(st.caption().find("a block opened"), std::string::npos) << st.caption();
  ex.normalize = memory::KeyNormalize::mask_then_normalize;
  st.set_example(ex);
  EXPECT_NE(st.caption().find("re-normalised over the open rows"), std::string::npos) << st.caption();
}

TEST(TeachingStepper, EveryRuleHasItsEquations) {
  for (const memory::Rule rule : memory::all_rules()) {
    const auto eq = gui::rule_equations(rule);
    ASSERT_GE(eq.size(), 2u);
    bool update = false;
    for (const auto& line : eq) update |= line.rfind("S_t = ", 0) == 0;
    EXPECT_TRUE(update) << memory::rule_name(rule);
    EXPECT_NE(eq[eq.size() - 3].find("o_t"), std::string::npos) << memory::rule_name(rule);
  }
}

}  // namespace
