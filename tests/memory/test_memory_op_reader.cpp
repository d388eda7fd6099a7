// memory-op's reader and runner in process (math.md section 4): a hand-computed gated example, the
// schedule echo, grads' presence and shapes per rule, and every refusal with its field path.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>

#include "core/memory/memory_op.hpp"

namespace {

using nlohmann::json;
using proteus::InputError;
using proteus::memory::parse_memory_op;
using proteus::memory::run_memory_op;

json run(const json& in) { return run_memory_op(parse_memory_op(in)); }

// JSON text, where brace initialisers would be ambiguous ({{1}, {3}} could mean [1, 3]).
json text(const char* json_text) { return json::parse(json_text); }

// The worked example: linear rule, d_k = 2, d_v = 1 (D = 2, one element per key row), T = 3.
// Every value is a short binary fraction, so each step below is exact in float64.
json linear_example(int64_t E) {
  json in = text(R"({"rule": "linear", "N": 4,
                     "q": [[1, 2], [3, -1], [0.5, 1]],
                     "k": [[1, 0.5], [2, 2], [-1, 1]],
                     "v": [[2], [1], [4]],
                     "beta": [0.5, 1, 0.25],
                     "a": [0.5, 1, 0.5],
                     "S0": [[1], [3]]})");
  in["E"] = E;
  return in;
}

TEST(MemoryOpReader, LinearUngatedByHand) {
  // E = 1: S_t = a S + beta k v, o_t = S_t^T q_t, from S_0 = (1, 3).
  // t=1: S = 0.5 (1, 3) + 0.5 * 2 * (1, 0.5) = (1.5, 2);   o = 1.5*1 + 2*2    = 5.5
  // t=2: S = (1.5, 2) + 1 * 1 * (2, 2)        = (3.5, 4);   o = 3.5*3 + 4*(-1) = 6.5
  // t=3: S = 0.5 (3.5, 4) + 0.25 * 4 * (-1, 1) = (0.75, 3); o = 0.75*0.5 + 3*1 = 3.375
  const json out = run(linear_example(1));
  EXPECT_EQ(out["o"], text("[[5.5], [6.5], [3.375]]"));
  EXPECT_EQ(out["S"], text("[[0.75], [3]]"));
  EXPECT_EQ(out["active_blocks"], json({1, 1, 1}));
  EXPECT_EQ(out["active_elements"], json({2, 2, 2}));
  EXPECT_FALSE(out.contains("grad"));
}

TEST(MemoryOpReader, LinearGatedByHand) {
  // E = 2 blocks of one element (= one key row); uniform over N = 4: Delta = 2, unlock (1, 3), so
  // row 1 is locked at t = 1, 2 and keeps S_0's 3 exactly (no decay), then opens at t = 3.
  // t=1: row 0 = 0.5*1 + 0.5*2*1 = 1.5, row 1 = 3 (locked);   o = 1.5*1 (row 1 not read)  = 1.5
  // t=2: row 0 = 1.5 + 1*1*2     = 3.5, row 1 = 3 (locked);   o = 3.5*3                   = 10.5
  // t=3: row 0 = 0.5*3.5 - 1 = 0.75, row 1 = 0.5*3 + 1 = 2.5; o = 0.75*0.5 + 2.5*1        = 2.875
  const json out = run(linear_example(2));
  EXPECT_EQ(out["o"], text("[[1.5], [10.5], [2.875]]"));
  EXPECT_EQ(out["S"], text("[[0.75], [2.5]]"));
  EXPECT_EQ(out["active_blocks"], json({1, 1, 2}));
  EXPECT_EQ(out["active_elements"], json({1, 1, 2}));
  EXPECT_EQ(out["rule"], "linear");
  EXPECT_EQ(out["E"], 2);
  EXPECT_EQ(out["N"], 4);
  EXPECT_EQ(out["schedule"], json({{"type", "uniform"}, {"unlock", {1, 3}}}));
}

TEST(MemoryOpReader, GradFromDsAloneByHand) {
  // dS without dO: L = <dS, S_3> with dS = (0, 1) reads only row 1 of the final state.
  // Row 1 = 0.5 * S0[1] + 0.25 * k_3[1] * v_3 (locked at t = 1, 2: no decay, no writes), so
  // dS0 = (0, 0.5); dbeta = (0, 0, k_3[1] v_3 = 4); da_3 = S_2[1] = 3; dk_3 = (0, beta_3 v_3 = 1);
  // dv_3 = beta_3 k_3[1] = 0.25; nothing reads q.
  json in = linear_example(2);
  in["dS"] = text("[[0], [1]]");
  const json grad = run(in).at("grad");
  EXPECT_EQ(grad["S0"], text("[[0], [0.5]]"));
  EXPECT_EQ(grad["beta"], json({0.0, 0.0, 4.0}));
  EXPECT_EQ(grad["a"], json({0.0, 0.0, 3.0}));
  EXPECT_EQ(grad["k"], json({{0.0, 0.0}, {0.0, 0.0}, {0.0, 1.0}}));
  EXPECT_EQ(grad["v"], text("[[0], [0], [0.25]]"));
  EXPECT_EQ(grad["q"], json({{0.0, 0.0}, {0.0, 0.0}, {0.0, 0.0}}));
  EXPECT_FALSE(grad.contains("p") || grad.contains("eta") || grad.contains("gamma"));
}

TEST(MemoryOpReader, GradFromDoByHand) {
  // L = o_1 = S_1[0] q_1[0] = (a_1 S0[0] + beta_1 k_1[0] v_1) q_1[0]; row 1 is locked, not read.
  // dq_1 = (S_1[0], 0) = (1.5, 0); dS0 = (a_1 q_1[0], 0) = (0.5, 0); dbeta_1 = k_1[0] v_1 q_1[0] = 2;
  // da_1 = S0[0] q_1[0] = 1; dk_1 = (beta_1 v_1 q_1[0], 0) = (1, 0); dv_1 = beta_1 k_1[0] q_1[0] = 0.5.
  json in = linear_example(2);
  in["dO"] = text("[[1], [0], [0]]");
  const json grad = run(in).at("grad");
  EXPECT_EQ(grad["q"], json({{1.5, 0.0}, {0.0, 0.0}, {0.0, 0.0}}));
  EXPECT_EQ(grad["S0"], text("[[0.5], [0]]"));
  EXPECT_EQ(grad["beta"], json({2.0, 0.0, 0.0}));
  EXPECT_EQ(grad["a"], json({1.0, 0.0, 0.0}));
  EXPECT_EQ(grad["k"], json({{1.0, 0.0}, {0.0, 0.0}, {0.0, 0.0}}));
  EXPECT_EQ(grad["v"], text("[[0.5], [0], [0]]"));
}

// T tokens of d_k = d_v = 4 (D = 16); the values only need to be valid.
json delta_input(int64_t T) {
  json q = json::array(), v = json::array(), beta = json::array();
  for (int64_t t = 0; t < T; ++t) {
    q.push_back({0.5, -0.5, 0.5, 0.5});
    v.push_back({0.25, 0.5, -1.0, 0.75});
    beta.push_back(0.5);
  }
  return {{"rule", "delta"}, {"q", q}, {"k", q}, {"v", v}, {"beta", beta}};
}

TEST(MemoryOpReader, ActiveBlocksUniformE4N16) {
  // D = 16 in 4 blocks of 4; Delta = 4: unlock at 1, 5, 9, 13; past N = 16 all 4 stay active.
  json in = delta_input(18);
  in["E"] = 4;
  in["N"] = 16;
  const json out = run(in);
  EXPECT_EQ(out["active_blocks"], json({1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4}));
  EXPECT_EQ(out["active_elements"], json({4, 4, 4, 4, 8, 8, 8, 8, 12, 12, 12, 12, 16, 16, 16, 16, 16, 16}));
  EXPECT_EQ(out["schedule"]["unlock"], json({1, 5, 9, 13}));
  EXPECT_EQ(out["D"], 16);
}

TEST(MemoryOpReader, LastBlockAbsorbsTheRemainder) {
  // d_k = 3, d_v = 2: D = 6 in E = 4 blocks of floor(6/4) = 1, the last one holding 3 elements.
  json in = {{"rule", "linear"}, {"E", 4}, {"N", 4}, {"q", {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}}},
             {"k", {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}}}, {"v", {{1, 2}, {3, 4}, {5, 6}, {7, 8}}},
             {"beta", {1, 1, 1, 1}}};
  const json out = run(in);
  EXPECT_EQ(out["active_blocks"], json({1, 2, 3, 4}));
  EXPECT_EQ(out["active_elements"], json({1, 2, 3, 6}));
}

TEST(MemoryOpReader, DefaultsAndEcho) {
  // E = 1, N = T and a uniform schedule when IN.json names none; a comment is ignored.
  json in = delta_input(3);
  in["comment"] = {"a note for the reader", "on two lines"};
  const auto request = parse_memory_op(in);
  EXPECT_EQ(request.E, 1);
  EXPECT_EQ(request.N, 3);
  EXPECT_EQ(request.schedule.type, proteus::memory::ScheduleType::uniform);
  EXPECT_EQ(request.T, 3);
  EXPECT_EQ(request.d_k, 4);
  EXPECT_EQ(request.d_v, 4);
  EXPECT_FALSE(request.has_a || request.has_S0 || request.wants_grads());
  const json out = run_memory_op(request);
  EXPECT_EQ(out["schedule"], text(R"({"type": "uniform", "unlock": [1]})"));
  EXPECT_EQ(out["active_elements"], json({16, 16, 16}));
  EXPECT_EQ(out["o"].size(), 3u);
  EXPECT_EQ(out["S"].size(), 4u);
}

TEST(MemoryOpReader, IntegralFloatsAreIntegers) {
  json in = delta_input(4);
  in["E"] = 4.0;
  in["N"] = 4.0;
  const auto request = parse_memory_op(in);
  EXPECT_EQ(request.E, 4);
  EXPECT_EQ(request.N, 4);
}

TEST(MemoryOpReader, NamedSchedulesEchoTheirUnlockPositions) {
  json in = delta_input(16);
  in["E"] = 4;
  in["schedule"] = {{"type", "power"}, {"p", 2.0}};
  // power: u_j = 1 + floor(16 ((j-1)/4)^2) = 1, 2, 5, 10.
  EXPECT_EQ(run(in)["schedule"], json({{"type", "power"}, {"unlock", {1, 2, 5, 10}}, {"p", 2.0}}));
  in["schedule"] = {{"type", "custom"}, {"unlock", {1, 1, 7, 20}}};
  const json out = run(in);
  EXPECT_EQ(out["schedule"]["unlock"], json({1, 1, 7, 20}));
  EXPECT_EQ(out["active_blocks"][0], 2);   // two blocks unlock at t = 1
  EXPECT_EQ(out["active_blocks"][15], 3);  // u_4 = 20 lies past N = 16, where all open anyway
  in["schedule"] = {{"type", "geometric"}};
  EXPECT_EQ(run(in)["schedule"]["type"], "geometric");
}

// The gradient of every input the rule takes, shaped like the input.
void expect_grad_shapes(const json& grad, const std::vector<std::string>& names, int64_t T, int64_t d_k,
                        int64_t d_v) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : grad.items()) keys.push_back(key);
  std::vector<std::string> want = names;
  std::sort(want.begin(), want.end());
  EXPECT_EQ(keys, want);
  for (const char* name : {"q", "k"}) {
    ASSERT_EQ(grad[name].size(), static_cast<size_t>(T)) << name;
    EXPECT_EQ(grad[name][0].size(), static_cast<size_t>(d_k)) << name;
  }
  ASSERT_EQ(grad["v"].size(), static_cast<size_t>(T));
  EXPECT_EQ(grad["v"][0].size(), static_cast<size_t>(d_v));
  ASSERT_EQ(grad["S0"].size(), static_cast<size_t>(d_k));
  EXPECT_EQ(grad["S0"][0].size(), static_cast<size_t>(d_v));
  EXPECT_EQ(grad["a"].size(), static_cast<size_t>(T));
}

TEST(MemoryOpReader, GradsPerRule) {
  const json q = {{0.6, 0.8}, {1, 0}, {0, 1}};
  const json base = {{"q", q}, {"k", q}, {"v", {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}}, {"E", 2},
                     {"dO", {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}};
  json in = base;
  in["rule"] = "comba";
  in["beta"] = {0.5, 0.5, 0.5};
  in["p"] = q;
  json grad = run(in)["grad"];
  expect_grad_shapes(grad, {"q", "k", "v", "beta", "a", "p", "S0"}, 3, 2, 3);
  EXPECT_EQ(grad["p"].size(), 3u);
  EXPECT_EQ(grad["p"][0].size(), 2u);

  in = base;
  in["rule"] = "titans";
  in["beta"] = {0.5, 0.5, 0.5};
  in["eta"] = {0, 0.5, 0.9};
  in["a"] = {1, 0.9, 0.8};
  grad = run(in)["grad"];
  expect_grad_shapes(grad, {"q", "k", "v", "beta", "a", "eta", "S0"}, 3, 2, 3);
  EXPECT_EQ(grad["eta"].size(), 3u);

  in = base;
  in["rule"] = "swla";
  in["gamma"] = {{1, 0.5}, {1, 0.5}, {1, 0.5}};
  grad = run(in)["grad"];
  expect_grad_shapes(grad, {"q", "k", "v", "a", "gamma", "S0"}, 3, 2, 3);
  EXPECT_EQ(grad["gamma"][0].size(), 2u);
  in["beta"] = {0.5, 0.5, 0.5};  // accepted and ignored by swla; its gradient is zero
  grad = run(in)["grad"];
  expect_grad_shapes(grad, {"q", "k", "v", "beta", "a", "gamma", "S0"}, 3, 2, 3);
  EXPECT_EQ(grad["beta"], json({0.0, 0.0, 0.0}));
}

// A valid delta input with d_k = d_v = 4 (D = 16), T = 4, changed by `edit`, must be refused
// with exactly this field; `reason` is a part of the message when given.
void expect_refused(const std::function<void(json&)>& edit, const std::string& field, const std::string& reason = "") {
  json in = delta_input(4);
  edit(in);
  try {
    parse_memory_op(in);
    ADD_FAILURE() << "accepted; expected an error on " << field << " for " << in.dump();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), field) << e.what();
    if (!reason.empty()) {
      EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
    }
  }
}

TEST(MemoryOpReaderErrors, TopLevel) {
  try {
    parse_memory_op(json::array({1, 2}));
    ADD_FAILURE() << "an array was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "(top level)");
  }
  expect_refused([](json& j) { j["bta"] = 1; }, "bta", "did you mean 'beta'?");
  expect_refused([](json& j) { j["Schedule"] = {{"type", "uniform"}}; }, "Schedule", "unknown field");
  expect_refused([](json& j) { j["comment"] = 3; }, "comment");
}

TEST(MemoryOpReaderErrors, Rule) {
  expect_refused([](json& j) { j.erase("rule"); }, "rule", "required");
  expect_refused([](json& j) { j["rule"] = 1; }, "rule", "expected a string");
  json in = delta_input(4);
  in["rule"] = "foo";
  try {
    parse_memory_op(in);
    ADD_FAILURE() << "rule foo was accepted";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "rule: unknown rule 'foo' (expected linear, delta, comba, titans, swla, gla, kda)");
  }
}

TEST(MemoryOpReaderErrors, Shapes) {
  expect_refused([](json& j) { j.erase("q"); }, "q", "required");
  expect_refused([](json& j) { j.erase("k"); }, "k", "required");
  expect_refused([](json& j) { j.erase("v"); }, "v", "required");
  expect_refused([](json& j) { j["q"] = json::array(); }, "q", "at least one row (T >= 1)");
  expect_refused([](json& j) { j["q"] = text(R"({"a": 1})"); }, "q", "expected an array of rows");
  expect_refused([](json& j) { j["q"][0] = json::array(); }, "q[0]", "d_k >= 1");
  expect_refused([](json& j) { j["q"][0] = 0.5; }, "q[0]", "expected an array of numbers");
  expect_refused([](json& j) { j["q"][3] = {1, 2, 3}; }, "q[3]", "q[3]: expected 4 numbers (d_k from q[0]), got 3");
  expect_refused([](json& j) { j["q"][1][2] = "x"; }, "q[1][2]", "expected a number, got string \"x\"");
  expect_refused([](json& j) { j["q"][1][2] = text("[1]"); }, "q[1][2]", "expected a number");
  expect_refused([](json& j) { j["q"][1][2] = nullptr; }, "q[1][2]");
  expect_refused([](json& j) { j["q"][1][2] = true; }, "q[1][2]");
  expect_refused([](json& j) { j["k"].erase(3); }, "k", "expected 4 rows (T from q), got 3");
  expect_refused([](json& j) { j["k"][1] = {1, 2, 3, 4, 5}; }, "k[1]", "d_k from q[0]");
  expect_refused([](json& j) { j["v"][0] = json::array(); }, "v[0]", "d_v >= 1");
  expect_refused([](json& j) { j["v"][2] = {1, 2}; }, "v[2]", "expected 4 numbers (d_v from v[0]), got 2");
  expect_refused([](json& j) { j["v"] = {1, 2, 3, 4}; }, "v[0]");
  expect_refused([](json& j) { j["S0"] = text("[[0, 0, 0, 0]]"); }, "S0", "expected 4 rows (d_k from q[0])");
  expect_refused([](json& j) { j["S0"] = json::array({{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0}}); },
                 "S0[3]", "d_v from v[0]");
  expect_refused([](json& j) { j["dO"] = text("[[0, 0, 0, 0]]"); }, "dO", "T from q");
  expect_refused([](json& j) { j["dO"] = json::array({{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0, 0}}); },
                 "dO[3]");
  expect_refused([](json& j) { j["dS"] = text("[[0], [0], [0], [0]]"); }, "dS[0]", "d_v from v[0]");
  expect_refused([](json& j) { j["dS"] = 0; }, "dS");
}

TEST(MemoryOpReaderErrors, NonFiniteNumbers) {
  // JSON text cannot hold them (the file reader refuses 1e999), but in-process callers can pass them.
  expect_refused([](json& j) { j["q"][2][1] = std::numeric_limits<double>::infinity(); }, "q[2][1]", "finite");
  expect_refused([](json& j) { j["v"][0][0] = -std::numeric_limits<double>::infinity(); }, "v[0][0]", "finite");
  expect_refused(
      [](json& j) {
        j["S0"] = text("[[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]");
        j["S0"][1][2] = std::nan("");
      },
      "S0[1][2]", "finite");
  expect_refused([](json& j) { j["beta"][1] = std::numeric_limits<double>::infinity(); }, "beta[1]", "finite");
}

TEST(MemoryOpReaderErrors, PerTokenScalars) {
  expect_refused([](json& j) { j.erase("beta"); }, "beta", "required by rule delta");
  expect_refused([](json& j) { j["beta"] = {0.5, 0.5, 0.5}; }, "beta", "expected 4 numbers (T from q), got 3");
  expect_refused([](json& j) { j["beta"] = 0.5; }, "beta", "expected an array of 4 numbers");
  expect_refused([](json& j) { j["beta"][2] = 3.5; }, "beta[2]", "beta[2]: must be in [0, 2], got 3.5");
  expect_refused([](json& j) { j["beta"][0] = -0.25; }, "beta[0]", "[0, 2]");
  expect_refused([](json& j) { j["a"] = {1, 0, 1, 1}; }, "a[1]", "must be in (0, 1], got 0");
  expect_refused([](json& j) { j["a"] = {1, 1, 1, 1.5}; }, "a[3]", "(0, 1]");
  expect_refused([](json& j) { j["a"] = {1, 1}; }, "a", "T from q");
}

TEST(MemoryOpReaderErrors, RuleSpecificInputs) {
  expect_refused([](json& j) { j["p"] = j["k"]; }, "p", "only rule comba takes p (rule is delta)");
  expect_refused([](json& j) { j["eta"] = {0, 0, 0, 0}; }, "eta", "only rule titans takes eta");
  expect_refused([](json& j) { j["gamma"] = text("[[1], [1], [1], [1]]"); }, "gamma", "only rule swla takes gamma");
  expect_refused([](json& j) { j["rule"] = "comba"; }, "p", "required by rule comba");
  const auto as_rule = [](const char* rule, const char* field, const char* value) {
    return [=](json& j) {
      j["rule"] = rule;
      j[field] = text(value);
    };
  };
  expect_refused(as_rule("comba", "p", "[[1, 2], [0, 0, 0, 1], [0, 0, 1, 0], [0, 1, 0, 0]]"), "p[0]",
                 "d_k from q[0]");
  expect_refused(as_rule("titans", "eta", "[0, 0.5, 1, 0]"), "eta[2]", "must be in [0, 1), got 1");
  expect_refused(as_rule("titans", "eta", "[0, -0.5, 0, 0]"), "eta[1]", "[0, 1)");
  expect_refused([](json& j) { j["rule"] = "swla"; }, "gamma", "required by rule swla");
  expect_refused(as_rule("swla", "gamma", "[[], [1], [1], [1]]"), "gamma[0]", "c >= 1");
  expect_refused(as_rule("swla", "gamma", "[[1, 0.5], [1, 0.5], [1], [1, 0.5]]"), "gamma[2]",
                 "expected 2 numbers (c from gamma[0]), got 1");
  expect_refused(as_rule("swla", "gamma", "[[1], [1], [1]]"), "gamma", "T from q");
  // swla does not need beta, but a given one is still checked.
  expect_refused(
      [](json& j) {
        j["rule"] = "swla";
        j["gamma"] = text("[[1], [1], [1], [1]]");
        j["beta"][3] = 9;
      },
      "beta[3]", "[0, 2]");
}

TEST(MemoryOpReaderErrors, BlocksAndHorizon) {
  expect_refused([](json& j) { j["E"] = 0; }, "E", "E: must be in [1, 16] (the memory size D), got 0");
  expect_refused([](json& j) { j["E"] = 17; }, "E", "[1, 16]");
  expect_refused([](json& j) { j["E"] = -1; }, "E", "got -1");
  expect_refused([](json& j) { j["E"] = 2.5; }, "E", "expected an integer, got 2.5");
  expect_refused([](json& j) { j["E"] = "4"; }, "E", "expected an integer, got string \"4\"");
  expect_refused([](json& j) { j["E"] = nullptr; }, "E", "expected an integer");
  expect_refused([](json& j) { j["E"] = std::numeric_limits<double>::infinity(); }, "E");
  expect_refused([](json& j) { j["N"] = 0; }, "N", ">= 1");
  expect_refused([](json& j) { j["N"] = -3; }, "N", "got -3");
  expect_refused([](json& j) { j["N"] = 2.5; }, "N", "expected an integer");
  expect_refused([](json& j) { j["N"] = text("[8]"); }, "N", "expected an integer");
}

TEST(MemoryOpReaderErrors, Schedule) {
  const auto with_schedule = [](json schedule) {
    return [schedule](json& j) {
      j["E"] = 4;
      j["schedule"] = schedule;
    };
  };
  expect_refused(with_schedule("uniform"), "schedule", "expected an object");
  expect_refused(with_schedule(json::object()), "schedule.type", "required");
  expect_refused(with_schedule({{"type", 1}}), "schedule.type", "expected a string");
  expect_refused(with_schedule({{"type", "linear"}}), "schedule.type", "unknown schedule 'linear'");
  expect_refused(with_schedule({{"type", "uniform"}, {"unlock", {1, 2, 3, 4}}}), "schedule.unlock",
                 "unknown field for a uniform schedule");
  expect_refused(with_schedule({{"type", "uniform"}, {"delta", 2}}), "schedule.delta", "unknown field");
  expect_refused(with_schedule({{"type", "power"}, {"p", -1}}), "schedule.p", "> 0");
  expect_refused(with_schedule({{"type", "power"}, {"p", "2"}}), "schedule.p", "expected a number");
  expect_refused(with_schedule({{"type", "power"}, {"power", 2}}), "schedule.power", "(expected type, p)");
  expect_refused(with_schedule({{"type", "custom"}}), "schedule.unlock", "required");
  expect_refused(with_schedule({{"type", "custom"}, {"unlok", {1, 2, 3, 4}}}), "schedule.unlok",
                 "did you mean 'unlock'?");
  expect_refused(with_schedule({{"type", "custom"}, {"unlock", 1}}), "schedule.unlock", "expected an array");
  expect_refused(with_schedule({{"type", "custom"}, {"unlock", {1, 5, 9}}}), "schedule.unlock", "E = 4, got 3");
  expect_refused(with_schedule({{"type", "custom"}, {"unlock", {2, 5, 9, 13}}}), "schedule.unlock[0]", "t = 1");
  expect_refused(with_schedule({{"type", "custom"}, {"unlock", {1, 5, 3, 13}}}), "schedule.unlock[2]",
                 "non-decreasing");
  expect_refused(with_schedule({{"type", "custom"}, {"unlock", {1, 2.5, 3, 13}}}), "schedule.unlock[1]",
                 "expected an integer, got 2.5");
  expect_refused(with_schedule({{"type", "custom"}, {"unlock", {1, "5", 9, 13}}}), "schedule.unlock[1]");
}

TEST(MemoryOpReaderErrors, HandBuiltRequestsAreCheckedBeforeRunning) {
  auto request = parse_memory_op(delta_input(4));
  request.q.pop_back();  // run_memory_op hands raw pointers to the rule: a short buffer must not reach it
  try {
    run_memory_op(request);
    ADD_FAILURE() << "a short q was run";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "q");
  }
}

TEST(MemoryOpReaderErrors, Float64OverflowNamesTheOutput) {
  json in = delta_input(1);
  in["rule"] = "linear";
  in["k"] = {{1e300, 0, 0, 0}};
  in["v"] = {{1e300, 0, 0, 0}};
  in["q"] = {{1, 0, 0, 0}};
  try {
    run(in);
    ADD_FAILURE() << "an infinite output was written";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "o[0][0]");
  }
}

}  // namespace
