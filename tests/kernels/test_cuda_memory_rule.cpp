// The CUDA memory-rule kernels (kernels/memory_rule_{forward,backward}.cu) against the CPU
// reference in float64, for all six rules (gla's row of retentions a step included), E in
// {1, 3, 16}, T = 37 (a multiple of nothing the kernels use), every output and every gradient;
// then what must hold exactly: locked state elements keep their bits, a schedule that opens every
// block at t = 1 gives E = 1's bits, and two runs give the same bits. Label `gpu`: without a
// device every test skips. These tests ask for the recurrent form; the chunked kernels
// (memory_rule_chunked.cu) have their own at the end: T over several chunks of 64 with a ragged
// one, value widths over two tiles, E in {1, 4}, and swla's windows reaching back across chunk
// boundaries.
//
// Bounds (float32 kernels against the float64 oracle, over 37 recurrent steps), as the largest
// |gpu - cpu| over the largest |cpu| of each tensor:
//   outputs o and the state tape S_t (Z_t): 5e-5;  gradients: 2e-4;  block norms: 5e-5.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/backend/cpu/cpu_backend.hpp"
#include "core/memory/gated_rule.hpp"
#include "kernels/cuda_backend.hpp"
#include "kernels/device.hpp"
#include "kernels/memory_rule_state.hpp"
#include "kernels/rule_limits.hpp"
#include "tests/backend/op_check.hpp"

namespace {

using namespace proteus;
using backend::Backend;
using backend::MemoryRuleArgs;
using backend::MemoryRuleGrads;
using backend::testing::random_vector;
using backend::testing::rel_max_error;
using memory::Rule;
using memory::Schedule;

constexpr double kForwardBound = 5e-5;
constexpr double kGradientBound = 2e-4;

struct Shape {
  int B = 2, T = 37, H = 3, d_k = 8, d_v = 6, window = 2;
  size_t rows() const { return static_cast<size_t>(B) * T * H; }  // (B, T, H)
};

// Host inputs in float64, drawn as the model feeds them (unit-norm-ish keys, beta in (0, 1)).
struct Inputs {
  std::vector<double> q, k, v, beta, a, p, eta, gamma, dO;
};

Inputs make_inputs(Rule rule, const Shape& s, bool decay, uint32_t seed) {
  const size_t n = s.rows();
  Inputs in;
  in.q = random_vector(n * s.d_k, seed + 1, -0.5, 0.5);
  in.k = random_vector(n * s.d_k, seed + 2, -0.5, 0.5);
  in.v = random_vector(n * s.d_v, seed + 3);
  if (memory::rule_uses_beta(rule)) in.beta = random_vector(n, seed + 4, 0.1, 0.9);
  if (decay) in.a = random_vector(n * memory::retention_width(rule, s.d_k), seed + 5, 0.6, 1.0);
  if (memory::rule_uses_p(rule)) in.p = random_vector(n * s.d_k, seed + 6, -0.5, 0.5);
  if (memory::rule_uses_eta(rule)) in.eta = random_vector(n, seed + 7, 0.0, 0.9);
  if (memory::rule_uses_gamma(rule)) in.gamma = random_vector(n * s.window, seed + 8, 0.1, 0.9);
  in.dO = random_vector(n * s.d_v, seed + 9);
  return in;
}

using Outputs = std::map<std::string, std::vector<double>>;

// One forward and backward on a backend; the state is handed back for the tape checks.
template <class F>
Outputs run(Backend<F>& be, Rule rule, const Schedule& schedule, const Shape& s, const Inputs& in,
            std::unique_ptr<backend::OpState>* state_out = nullptr,
            memory::RuleForm form = memory::RuleForm::recurrent, int chunk = 0) {
  std::vector<F*> owned;
  auto up = [&](const std::vector<double>& x) -> const F* {
    if (x.empty()) return nullptr;
    F* p = be.alloc(x.size());
    const std::vector<F> h(x.begin(), x.end());
    be.upload(p, h.data(), h.size());
    owned.push_back(p);
    return p;
  };
  auto zeros = [&](size_t n) {
    F* p = be.alloc(n);
    owned.push_back(p);
    return p;
  };
  auto down = [&](const F* p, size_t n) {
    std::vector<F> h(n);
    be.synchronize();
    be.download(h.data(), p, n);
    return std::vector<double>(h.begin(), h.end());
  };
  const size_t n = s.rows();
  MemoryRuleArgs<F> args;
  args.rule = rule;
  args.schedule = &schedule;
  args.B = s.B, args.T = s.T, args.H = s.H, args.d_k = s.d_k, args.d_v = s.d_v, args.window = s.window;
  args.q = up(in.q), args.k = up(in.k), args.v = up(in.v), args.beta = up(in.beta), args.a = up(in.a);
  args.p = up(in.p), args.eta = up(in.eta), args.gamma = up(in.gamma);
  args.form = form, args.chunk = chunk;
  F* o = zeros(n * s.d_v);
  auto state = be.memory_rule_forward(o, args);
  MemoryRuleGrads<F> g;
  // Gradient buffers start as garbage: the op must overwrite every element.
  auto garbage = [&](size_t count) {
    F* p = zeros(count);
    be.fill(p, F(123.0), count);
    return p;
  };
  const size_t aw = memory::retention_width(rule, s.d_k);  // a's width: 1, or a row of d_k (gla)
  g.q = garbage(n * s.d_k), g.k = garbage(n * s.d_k), g.v = garbage(n * s.d_v), g.a = garbage(n * aw);
  if (args.beta) g.beta = garbage(n);
  if (args.p) g.p = garbage(n * s.d_k);
  if (args.eta) g.eta = garbage(n);
  if (args.gamma) g.gamma = garbage(n * s.window);
  be.memory_rule_backward(g, up(in.dO), args, *state);
  const int n_blocks = static_cast<int>(schedule.E());
  F* norms = zeros(n * n_blocks);
  be.memory_block_norms(norms, args, *state, n_blocks);
  Outputs out{{"o", down(o, n * s.d_v)},
              {"dq", down(g.q, n * s.d_k)},
              {"dk", down(g.k, n * s.d_k)},
              {"dv", down(g.v, n * s.d_v)},
              {"da", down(g.a, n * aw)},
              {"block_norms", down(norms, n * n_blocks)}};
  if (g.beta) out["dbeta"] = down(g.beta, n);
  if (g.p) out["dp"] = down(g.p, n * s.d_k);
  if (g.eta) out["deta"] = down(g.eta, n);
  if (g.gamma) out["dgamma"] = down(g.gamma, n * s.window);
  for (F* p : owned) be.free(p);
  if (state_out) *state_out = std::move(state);
  return out;
}

// Head (b, h)'s rows of a (B, T, H, width) tensor, gathered into (T, width).
std::vector<double> gather_head(const std::vector<double>& x, int b, int h, const Shape& s, int width) {
  std::vector<double> out;
  if (x.empty()) return out;
  for (int t = 0; t < s.T; ++t) {
    const size_t row = ((static_cast<size_t>(b) * s.T + t) * s.H + h) * width;
    out.insert(out.end(), x.begin() + row, x.begin() + row + width);
  }
  return out;
}

// The float64 reference tapes of every head: (B, H, T+1, D) for S and (titans) Z.
memory::RuleTape<double> reference_tapes(Rule rule, const Schedule& schedule, const Shape& s, const Inputs& in) {
  memory::RuleTape<double> all;
  for (int b = 0; b < s.B; ++b)
    for (int h = 0; h < s.H; ++h) {
      std::vector<double> q = gather_head(in.q, b, h, s, s.d_k), k = gather_head(in.k, b, h, s, s.d_k),
                          v = gather_head(in.v, b, h, s, s.d_v), beta = gather_head(in.beta, b, h, s, 1),
                          a = gather_head(in.a, b, h, s, static_cast<int>(memory::retention_width(rule, s.d_k))),
                          p = gather_head(in.p, b, h, s, s.d_k),
                          eta = gather_head(in.eta, b, h, s, 1), gamma = gather_head(in.gamma, b, h, s, s.window);
      auto ptr = [](const std::vector<double>& x) { return x.empty() ? nullptr : x.data(); };
      memory::RuleInputs<double> ri;
      ri.T = s.T, ri.d_k = s.d_k, ri.d_v = s.d_v, ri.window = memory::rule_uses_gamma(rule) ? s.window : 0;
      ri.q = ptr(q), ri.k = ptr(k), ri.v = ptr(v), ri.beta = ptr(beta), ri.a = ptr(a), ri.p = ptr(p);
      ri.eta = ptr(eta), ri.gamma = ptr(gamma);
      std::vector<double> o(static_cast<size_t>(s.T) * s.d_v);
      memory::RuleTape<double> tape;
      memory::gated_rule_forward<double>(rule, schedule, ri, o.data(), nullptr, &tape);
      all.S.insert(all.S.end(), tape.S.begin(), tape.S.end());
      all.Z.insert(all.Z.end(), tape.Z.begin(), tape.Z.end());
    }
  return all;
}

// Every element past step t's active prefix has the bits it had at step t - 1.
void expect_locked_bits_kept(const std::vector<float>& tape, const Schedule& schedule, const Shape& s,
                             const std::string& what) {
  const int64_t D = static_cast<int64_t>(s.d_k) * s.d_v;
  size_t locked_seen = 0;
  for (int head = 0; head < s.B * s.H; ++head)
    for (int t = 1; t <= s.T; ++t) {
      const float* prev = tape.data() + (static_cast<size_t>(head) * (s.T + 1) + t - 1) * D;
      const float* cur = prev + D;
      const int64_t end = schedule.active_elements(t);
      for (int64_t x = end; x < D; ++x) {
        ++locked_seen;
        ASSERT_EQ(0, std::memcmp(prev + x, cur + x, sizeof(float)))
            << what << ": locked element " << x << " of head " << head << " changed at t = " << t;
      }
    }
  if (schedule.E() > 1) {
    EXPECT_GT(locked_seen, 0u) << what << ": the schedule locked nothing, the check proves nothing";
  }
}

class CudaMemoryRule : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device";
    std::string why;
    gpu_ = cuda::make_cuda_backend(&why);
    if (!gpu_) GTEST_SKIP() << why;
    oracle_ = backend::make_cpu_backend<double>(1);
  }

  // The rules the kernels run (supports): every rule today, gla's row of retentions included.
  std::vector<Rule> kernel_rules() const {
    std::vector<Rule> rules;
    for (Rule rule : memory::all_rules()) {
      backend::OpShape shape;
      shape.rule = rule, shape.B = 1, shape.T = 8, shape.H = 1, shape.d_k = 8, shape.d_v = 8, shape.window = 2;
      if (gpu_->supports(backend::Op::memory_rule, shape)) rules.push_back(rule);
    }
    return rules;
  }

  // GPU against the float64 oracle: every output, gradient, block norm and the state tapes.
  void check_against_oracle(Rule rule, const Schedule& schedule, const Shape& s, bool decay, uint32_t seed) {
    const std::string what = std::string(memory::rule_name(rule)) + " E=" + std::to_string(schedule.E()) +
                             " d_k=" + std::to_string(s.d_k) + " d_v=" + std::to_string(s.d_v) +
                             (decay ? "" : " no decay");
    const Inputs in = make_inputs(rule, s, decay, seed);
    std::unique_ptr<backend::OpState> state;
    const Outputs got = run<float>(*gpu_, rule, schedule, s, in, &state);
    const Outputs want = run<double>(*oracle_, rule, schedule, s, in);
    ASSERT_EQ(got.size(), want.size()) << what;
    for (const auto& [name, w] : want) {
      const auto& g = got.at(name);
      ASSERT_EQ(g.size(), w.size()) << what << " " << name;
      for (size_t i = 0; i < g.size(); ++i) ASSERT_TRUE(std::isfinite(g[i])) << what << " " << name << "[" << i << "]";
      double scale = 0;
      for (double x : w) scale = std::max(scale, std::fabs(x));
      ASSERT_GT(scale, 0.0) << what << " " << name << " is all zeros: the comparison proves nothing";
      const bool forward = name == "o" || name == "block_norms";
      EXPECT_LT(rel_max_error(g, w), forward ? kForwardBound : kGradientBound) << what << " " << name;
    }

    const auto& st = dynamic_cast<const cuda::CudaRuleState&>(*state);
    const auto ref = reference_tapes(rule, schedule, s, in);
    const std::vector<float> S = st.download_S();
    ASSERT_EQ(S.size(), ref.S.size()) << what;
    EXPECT_LT(rel_max_error(S, ref.S), kForwardBound) << what << " state tape S";
    expect_locked_bits_kept(S, schedule, s, what + " S");
    if (rule == Rule::titans) {
      const std::vector<float> Z = st.download_Z();
      ASSERT_EQ(Z.size(), ref.Z.size()) << what;
      EXPECT_LT(rel_max_error(Z, ref.Z), kForwardBound) << what << " momentum tape Z";
      expect_locked_bits_kept(Z, schedule, s, what + " Z");
    }
    // S_0 = 0, so a block that is still locked at step t has norm exactly 0.
    const auto& norms = got.at("block_norms");
    const int E = static_cast<int>(schedule.E());
    for (int head = 0; head < s.B * s.H; ++head)
      for (int t = 1; t <= s.T; ++t)
        for (int blk = static_cast<int>(schedule.active_blocks(t)); blk < E; ++blk)
          ASSERT_EQ(norms[(static_cast<size_t>(head) * s.T + t - 1) * E + blk], 0.0)
              << what << ": locked block " << blk << " of head " << head << " at t = " << t;
  }

  // The chunked kernels against the float64 recurrent oracle (the definition): every output,
  // gradient and block norm (those replayed by the recurrent kernel), and the gradients of key
  // rows still locked at their step exactly 0 (for swla's dk, at the last step whose window reads
  // the key: step t + window - 1 masks it by its own, wider, open rows).
  void check_chunked(Rule rule, int E, const Shape& s, int chunk, uint32_t seed) {
    const std::string what = std::string(memory::rule_name(rule)) + " chunked E=" + std::to_string(E) +
                             " chunk=" + std::to_string(chunk) + " T=" + std::to_string(s.T) +
                             " d_k=" + std::to_string(s.d_k) + " d_v=" + std::to_string(s.d_v);
    const auto schedule = Schedule::uniform(s.d_k * s.d_v, E, s.T - 20);
    ASSERT_TRUE(schedule.row_aligned(s.d_v)) << what;
    const Inputs in = make_inputs(rule, s, true, seed);
    std::unique_ptr<backend::OpState> state;
    const Outputs got = run<float>(*gpu_, rule, schedule, s, in, &state, memory::RuleForm::chunked, chunk);
    ASSERT_EQ(dynamic_cast<const cuda::CudaRuleState*>(state.get()), nullptr) << what << ": ran recurrent";
    const Outputs want = run<double>(*oracle_, rule, schedule, s, in);
    for (const auto& [name, w] : want) {
      const auto& g = got.at(name);
      for (size_t i = 0; i < g.size(); ++i) ASSERT_TRUE(std::isfinite(g[i])) << what << " " << name << "[" << i << "]";
      const bool forward = name == "o" || name == "block_norms";
      EXPECT_LT(rel_max_error(g, w), forward ? kForwardBound : kGradientBound) << what << " " << name;
    }
    for (const char* name : {"dq", "dk", "dp"}) {
      if (!got.count(name)) continue;
      const auto& g = got.at(name);
      const int reach = std::string(name) == "dk" && memory::rule_uses_gamma(rule) ? s.window : 1;
      for (int b = 0; b < s.B; ++b)
        for (int t = 0; t < s.T; ++t)
          for (int h = 0; h < s.H; ++h)
            for (int i = static_cast<int>(schedule.active_rows(std::min(s.T, t + reach), s.d_v)); i < s.d_k; ++i)
              ASSERT_EQ(g[((static_cast<size_t>(b) * s.T + t) * s.H + h) * s.d_k + i], 0.0)
                  << what << " " << name << ": locked row " << i << " at t = " << t + 1;
    }
  }

  std::unique_ptr<Backend<float>> gpu_;
  std::unique_ptr<Backend<double>> oracle_;
};

TEST_F(CudaMemoryRule, ChunkedMatchesTheFloat64ReferenceForLinearDeltaAndComba) {
  Shape s;
  s.B = 2, s.T = 150, s.H = 3, s.d_k = 16, s.d_v = 40;  // chunks 64 + 64 + 22; value tiles 32 + 8
  uint32_t seed = 3000;
  for (Rule rule : {Rule::linear, Rule::delta, Rule::comba})
    for (int E : {1, 4})
      for (int chunk : {0, 16, 5}) check_chunked(rule, E, s, chunk, seed += 10);
  Shape model;  // a model-sized head: d 64, one chunk and a few steps more
  model.B = 1, model.T = 70, model.H = 2, model.d_k = 64, model.d_v = 64;
  for (Rule rule : {Rule::linear, Rule::delta, Rule::comba}) check_chunked(rule, 16, model, 0, seed += 10);
}

// swla's window writes k_{t-j} v_{t-j}^T at step t: writes that read tokens of earlier chunks (one
// chunk back, and two at window 3 with chunks of 1), a ragged last chunk, E in {1, 4}.
TEST_F(CudaMemoryRule, ChunkedMatchesTheFloat64ReferenceForSwla) {
  Shape s;
  s.B = 2, s.T = 150, s.H = 3, s.d_k = 16, s.d_v = 40, s.window = 2;
  uint32_t seed = 4000;
  for (int E : {1, 4})
    for (int chunk : {0, 16, 5}) check_chunked(Rule::swla, E, s, chunk, seed += 10);
  s.window = 3;
  for (int chunk : {1, 2, 7}) check_chunked(Rule::swla, 4, s, chunk, seed += 10);
  Shape model;
  model.B = 1, model.T = 70, model.H = 2, model.d_k = 64, model.d_v = 64, model.window = 2;
  check_chunked(Rule::swla, 16, model, 0, seed += 10);
}

// The self-check's fallback on the real backend: a refused chunked form runs the recurrent kernel.
TEST_F(CudaMemoryRule, ARefusedChunkedFormRunsTheRecurrentKernel) {
  const Shape s;
  const auto schedule = Schedule::uniform(s.d_k * s.d_v, 1, s.T);
  const Inputs in = make_inputs(Rule::delta, s, true, 11);
  std::unique_ptr<backend::OpState> state;
  run<float>(*gpu_, Rule::delta, schedule, s, in, &state, memory::RuleForm::automatic);
  EXPECT_EQ(dynamic_cast<const cuda::CudaRuleState*>(state.get()), nullptr) << "auto runs chunked here";
  gpu_->refuse_chunked_form(Rule::delta);
  run<float>(*gpu_, Rule::delta, schedule, s, in, &state, memory::RuleForm::automatic);
  EXPECT_NE(dynamic_cast<const cuda::CudaRuleState*>(state.get()), nullptr) << "refused: the recurrent kernel";
}

TEST_F(CudaMemoryRule, MatchesTheFloat64ReferenceForEveryRuleAndE) {
  const Shape s;  // D = 48: E = 3 gives blocks of 16 (not whole rows), E = 16 blocks of 3
  uint32_t seed = 100;
  for (Rule rule : kernel_rules())
    for (int E : {1, 3, 16}) {
      const auto schedule = Schedule::uniform(s.d_k * s.d_v, E, s.T - 8);  // the tail past N is all open
      check_against_oracle(rule, schedule, s, /*decay=*/true, seed += 10);
    }
}

TEST_F(CudaMemoryRule, MatchesWithoutDecayAndWithOtherSchedules) {
  const Shape s;
  uint32_t seed = 500;
  for (Rule rule : kernel_rules()) {
    check_against_oracle(rule, Schedule::uniform(s.d_k * s.d_v, 3, s.T), s, /*decay=*/false, seed += 10);
    check_against_oracle(rule, Schedule::geometric(s.d_k * s.d_v, 16, s.T), s, /*decay=*/true, seed += 10);
  }
}

// Widths past the block's 256 threads: the column and row loops wrap.
TEST_F(CudaMemoryRule, MatchesWithStatesWiderThanTheBlock) {
  uint32_t seed = 900;
  for (Rule rule : kernel_rules()) {
    Shape wide_values;
    wide_values.B = 1, wide_values.H = 2, wide_values.T = 13, wide_values.d_k = 4, wide_values.d_v = 300;
    check_against_oracle(rule, Schedule::uniform(4 * 300, 16, 11), wide_values, true, seed += 10);
    Shape wide_keys;
    wide_keys.B = 1, wide_keys.H = 2, wide_keys.T = 13, wide_keys.d_k = 300, wide_keys.d_v = 3;
    check_against_oracle(rule, Schedule::uniform(300 * 3, 7, 11), wide_keys, true, seed += 10);
  }
}

// Opening every block at t = 1 makes the gate all ones: the kernels must then do exactly what
// they do for E = 1 (math.md section 2: E = 1 is the ungated rule bit for bit).
TEST_F(CudaMemoryRule, AllBlocksOpenGivesTheBitsOfEOne) {
  const Shape s;
  const int64_t D = s.d_k * s.d_v;
  for (Rule rule : kernel_rules()) {
    const Inputs in = make_inputs(rule, s, true, 1234);
    const Outputs e1 = run<float>(*gpu_, rule, Schedule::uniform(D, 1, s.T), s, in);
    const Outputs open = run<float>(*gpu_, rule, Schedule::custom(D, 16, s.T, std::vector<int64_t>(16, 1)), s, in);
    for (const auto& [name, x] : e1) {
      if (name == "block_norms") continue;  // 1 block against 16
      EXPECT_EQ(x, open.at(name)) << memory::rule_name(rule) << " " << name;
    }
  }
}

TEST_F(CudaMemoryRule, TwoRunsGiveTheSameBits) {
  const Shape s;
  for (Rule rule : kernel_rules()) {
    const auto schedule = Schedule::uniform(s.d_k * s.d_v, 16, s.T - 8);
    const Inputs in = make_inputs(rule, s, true, 77);
    EXPECT_EQ(run<float>(*gpu_, rule, schedule, s, in), run<float>(*gpu_, rule, schedule, s, in))
        << memory::rule_name(rule);
  }
}

TEST_F(CudaMemoryRule, RejectsAStateFromAnotherShape) {
  const Shape s;
  const Inputs in = make_inputs(Rule::delta, s, true, 5);
  const auto schedule = Schedule::uniform(s.d_k * s.d_v, 3, s.T);
  std::unique_ptr<backend::OpState> state;
  run<float>(*gpu_, Rule::delta, schedule, s, in, &state);
  MemoryRuleArgs<float> args;
  args.rule = Rule::linear;  // not the forward's rule
  args.schedule = &schedule;
  args.B = s.B, args.T = s.T, args.H = s.H, args.d_k = s.d_k, args.d_v = s.d_v;
  float* dummy = gpu_->alloc(s.rows() * s.d_k);
  args.q = args.k = args.v = args.beta = dummy;
  EXPECT_THROW(gpu_->memory_block_norms(dummy, args, *state, 1), InputError);
  gpu_->free(dummy);
}

// gla (a retention per key row) runs on the recurrent kernel, asked for chunked or not, and is
// checked against the oracle with the other rules above. A row of equal retentions is the linear
// rule with that one retention: the same bits for every output and gradient but da, whose rows
// then sum to linear's da.
TEST_F(CudaMemoryRule, GlaRunsTheRecurrentKernelAndARowOfEqualRetentionsIsLinear) {
  backend::OpShape shape;
  shape.rule = Rule::gla, shape.B = 1, shape.T = 8, shape.H = 1, shape.d_k = 8, shape.d_v = 8;
  std::string why;
  EXPECT_TRUE(gpu_->supports(backend::Op::memory_rule, shape, &why)) << why;
  EXPECT_EQ(kernel_rules().size(), memory::all_rules().size());
  const Shape s;
  const auto schedule = Schedule::uniform(s.d_k * s.d_v, 4, s.T - 8);  // row-aligned: chunked would apply
  Inputs linear = make_inputs(Rule::linear, s, true, 21);
  Inputs gla = linear;
  gla.a.clear();
  for (double a : linear.a) gla.a.insert(gla.a.end(), s.d_k, a);
  std::unique_ptr<backend::OpState> state;
  const Outputs got = run<float>(*gpu_, Rule::gla, schedule, s, gla, &state, memory::RuleForm::chunked);
  EXPECT_NE(dynamic_cast<const cuda::CudaRuleState*>(state.get()), nullptr) << "gla runs the recurrent kernel";
  const Outputs want = run<float>(*gpu_, Rule::linear, schedule, s, linear);
  for (const auto& [name, w] : want) {
    if (name == "da") continue;
    EXPECT_EQ(got.at(name), w) << name;
  }
  const auto& da_rows = got.at("da");
  const auto& da = want.at("da");
  ASSERT_EQ(da_rows.size(), da.size() * s.d_k);
  std::vector<double> summed(da.size(), 0.0);
  for (size_t r = 0; r < da.size(); ++r)
    for (int i = 0; i < s.d_k; ++i) summed[r] += da_rows[r * s.d_k + i];
  EXPECT_LT(rel_max_error(summed, da), kForwardBound);
}

// What supports() states is the kernels' real limit: the widest value width it accepts runs
// forward and backward, the next one is refused by supports() and by the op itself.
TEST_F(CudaMemoryRule, SupportsStatesTheKernelsRealLimit) {
  Shape s;
  s.B = 1, s.T = 3, s.H = 1, s.d_k = 1;
  backend::OpShape shape;
  shape.rule = Rule::delta;
  shape.B = s.B, shape.T = s.T, shape.H = s.H, shape.d_k = s.d_k;
  std::string why;
  shape.d_v = s.d_v = cuda::kMaxRuleValueWidth;
  ASSERT_TRUE(gpu_->supports(backend::Op::memory_rule, shape, &why)) << why;
  const Inputs in = make_inputs(Rule::delta, s, true, 9);
  const auto schedule = Schedule::uniform(s.d_k * s.d_v, 1, s.T);
  EXPECT_NO_THROW(run<float>(*gpu_, Rule::delta, schedule, s, in));
  shape.d_v = s.d_v = cuda::kMaxRuleValueWidth + 1;
  EXPECT_FALSE(gpu_->supports(backend::Op::memory_rule, shape, &why));
  EXPECT_NE(why.find("value width"), std::string::npos) << why;
  const Inputs wide = make_inputs(Rule::delta, s, true, 10);
  const auto wide_schedule = Schedule::uniform(s.d_k * s.d_v, 1, s.T);
  EXPECT_THROW(run<float>(*gpu_, Rule::delta, wide_schedule, s, wide), InputError);
}

}  // namespace
