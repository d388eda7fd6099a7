// The chunked row-aligned form computes the same function as the recurrent reference
// (gated_rule_forward): outputs and final state, for linear and delta, with and without decay,
// for schedules whose unlocks fall inside chunks and horizons shorter than the sequence.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "core/memory/chunked_delta_rule.hpp"
#include "core/memory/gated_rule.hpp"
#include "tests/memory/random_rule_inputs.hpp"

namespace {

using namespace proteus::memory;
using proteus::InputError;
using proteus::memory::testing::RandomRuleInputs;

// max |got - want| / max |want|, with a floor so an all-zero reference does not divide by zero.
template <class A, class B>
double relative_error(const std::vector<A>& got, const std::vector<B>& want) {
  double diff = 0, scale = 0;
  for (size_t x = 0; x < want.size(); ++x) {
    diff = std::max(diff, std::abs(double(got[x]) - double(want[x])));
    scale = std::max(scale, std::abs(double(want[x])));
  }
  return diff / std::max(scale, 1e-300);
}

enum class Kind { uniform, geometric, custom };

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::uniform: return "uniform";
    case Kind::geometric: return "geometric";
    case Kind::custom: return "custom";
  }
  return "?";
}

// Custom unlocks at positions that are not multiples of 3 or 16, so k(t) changes mid-chunk.
Schedule make_schedule(Kind kind, int64_t D, int64_t E, int64_t N) {
  static const std::vector<int64_t> unlocks = {1, 5, 7, 11, 13, 17, 19, 22};  // all <= N below
  switch (kind) {
    case Kind::uniform: return Schedule::uniform(D, E, N);
    case Kind::geometric: return Schedule::geometric(D, E, N);
    case Kind::custom: {
      std::vector<int64_t> u(unlocks.begin(), unlocks.begin() + E);
      return Schedule::custom(D, E, N, u);
    }
  }
  return Schedule::uniform(D, E, N);
}

// True when some chunk of size C holds tokens with different active row counts.
bool rows_change_inside_a_chunk(const Schedule& s, int64_t T, int64_t d_v, int64_t C) {
  for (int64_t n = 1; n < T; ++n)
    if (n % C != 0 && s.active_rows(n, d_v) != s.active_rows(n + 1, d_v)) return true;
  return false;
}

struct Errors {
  double o = 0, S = 0;
};

// Chunked in F against the double recurrent reference on the same (F-rounded) inputs.
template <class F>
Errors compare_to_reference(Rule rule, const Schedule& s, const RandomRuleInputs<F>& r, int64_t chunk) {
  const int64_t D = r.d_k * r.d_v;
  std::vector<F> o(r.T * r.d_v, F(0)), S(D, F(0));  // (T, d_v), (d_k, d_v)
  chunked_rule_forward<F>(rule, s, r.view(), chunk, o.data(), S.data());

  auto widen = [](const std::vector<F>& x) { return std::vector<double>(x.begin(), x.end()); };
  const std::vector<double> q = widen(r.q), k = widen(r.k), v = widen(r.v), beta = widen(r.beta), a = widen(r.a),
                            S0 = widen(r.S0);
  RuleInputs<double> in;
  in.T = r.T;
  in.d_k = r.d_k;
  in.d_v = r.d_v;
  in.q = q.data();
  in.k = k.data();
  in.v = v.data();
  in.beta = beta.data();
  in.a = a.empty() ? nullptr : a.data();
  in.S0 = S0.empty() ? nullptr : S0.data();
  std::vector<double> o_ref(r.T * r.d_v), S_ref(D);  // (T, d_v), (d_k, d_v)
  gated_rule_forward<double>(rule, s, in, o_ref.data(), S_ref.data(), nullptr);
  return {relative_error(o, o_ref), relative_error(S, S_ref)};
}

TEST(ChunkedDeltaRule, DoubleMatchesRecurrentReference) {
  const int64_t T = 37, d_k = 8, d_v = 3, D = d_k * d_v, N = 23;  // N < T: full memory past the horizon
  double worst_o = 0, worst_S = 0;
  int64_t mid_chunk_unlocks = 0;
  for (Rule rule : {Rule::linear, Rule::delta})
    for (bool decay : {true, false})
      for (int64_t E : {int64_t(1), int64_t(2), int64_t(4), d_k})
        for (Kind kind : {Kind::uniform, Kind::geometric, Kind::custom})
          for (int64_t chunk : {int64_t(1), int64_t(3), int64_t(16), int64_t(64), T + 5}) {
            const Schedule s = make_schedule(kind, D, E, N);
            ASSERT_TRUE(s.row_aligned(d_v));
            const RandomRuleInputs<double> r(rule, T, d_k, d_v, 7 + 31 * uint32_t(E), decay);
            const Errors err = compare_to_reference(rule, s, r, chunk);
            SCOPED_TRACE(std::string(rule_name(rule)) + " decay=" + std::to_string(decay) + " E=" +
                         std::to_string(E) + " " + kind_name(kind) + " chunk=" + std::to_string(chunk));
            EXPECT_LT(err.o, 1e-10);
            EXPECT_LT(err.S, 1e-10);
            worst_o = std::max(worst_o, err.o);
            worst_S = std::max(worst_S, err.S);
            mid_chunk_unlocks += rows_change_inside_a_chunk(s, T, d_v, chunk);
          }
  EXPECT_GT(mid_chunk_unlocks, 0);  // the sweep must exercise k(t) changing inside a chunk
  RecordProperty("worst_o", std::to_string(worst_o));
  RecordProperty("worst_S", std::to_string(worst_S));
  std::printf("double: worst relative error o %.3g, S %.3g\n", worst_o, worst_S);
}

TEST(ChunkedDeltaRule, LongSequenceMatchesRecurrentReference) {
  const int64_t T = 301, d_k = 16, d_v = 8, D = d_k * d_v, N = 200;
  for (Rule rule : {Rule::linear, Rule::delta})
    for (int64_t chunk : {int64_t(16), int64_t(64)}) {
      const Schedule s = Schedule::geometric(D, 4, N);
      const RandomRuleInputs<double> r(rule, T, d_k, d_v, 1234);
      const Errors err = compare_to_reference(rule, s, r, chunk);
      SCOPED_TRACE(std::string(rule_name(rule)) + " chunk=" + std::to_string(chunk));
      EXPECT_LT(err.o, 1e-10);
      EXPECT_LT(err.S, 1e-10);
    }
}

// Row alignment without E dividing d_k: the last block absorbs a remainder of whole rows.
TEST(ChunkedDeltaRule, RemainderBlockMatchesRecurrentReference) {
  struct Shape {
    int64_t d_k, d_v, E;
  };
  const int64_t T = 29, N = 17;
  for (const Shape& shape : {Shape{5, 2, 4}, Shape{6, 1, 4}, Shape{7, 3, 7}})
    for (Rule rule : {Rule::linear, Rule::delta})
      for (int64_t chunk : {int64_t(3), int64_t(8)}) {
        const int64_t D = shape.d_k * shape.d_v;
        const Schedule s = Schedule::uniform(D, shape.E, N);
        ASSERT_TRUE(s.row_aligned(shape.d_v));
        const RandomRuleInputs<double> r(rule, T, shape.d_k, shape.d_v, 77);
        const Errors err = compare_to_reference(rule, s, r, chunk);
        SCOPED_TRACE(std::string(rule_name(rule)) + " d_k=" + std::to_string(shape.d_k) + " d_v=" +
                     std::to_string(shape.d_v) + " E=" + std::to_string(shape.E) + " chunk=" + std::to_string(chunk));
        EXPECT_LT(err.o, 1e-10);
        EXPECT_LT(err.S, 1e-10);
      }
}

TEST(ChunkedDeltaRule, FloatMatchesRecurrentReference) {
  const int64_t T = 37, d_k = 8, d_v = 3, D = d_k * d_v, N = 23;
  double worst = 0;
  for (Rule rule : {Rule::linear, Rule::delta})
    for (bool decay : {true, false})
      for (int64_t E : {int64_t(1), int64_t(4), d_k})
        for (int64_t chunk : {int64_t(1), int64_t(3), int64_t(16), T + 5}) {
          const Schedule s = make_schedule(Kind::custom, D, E, N);
          const RandomRuleInputs<float> r(rule, T, d_k, d_v, 99 + uint32_t(E), decay);
          const Errors err = compare_to_reference(rule, s, r, chunk);
          SCOPED_TRACE(std::string(rule_name(rule)) + " decay=" + std::to_string(decay) + " E=" +
                       std::to_string(E) + " chunk=" + std::to_string(chunk));
          EXPECT_LT(err.o, 1e-4);
          EXPECT_LT(err.S, 1e-4);
          worst = std::max({worst, err.o, err.S});
        }
  std::printf("float: worst relative error %.3g\n", worst);
}

TEST(ChunkedDeltaRule, ZeroInitialStateMatchesRecurrentReference) {
  const int64_t T = 20, d_k = 4, d_v = 5, D = d_k * d_v;
  for (Rule rule : {Rule::linear, Rule::delta}) {
    const RandomRuleInputs<double> r(rule, T, d_k, d_v, 5, /*decay=*/true, /*nonzero_S0=*/false);
    const Errors err = compare_to_reference(rule, Schedule::uniform(D, 2, 12), r, 3);
    EXPECT_LT(err.o, 1e-10) << rule_name(rule);
    EXPECT_LT(err.S, 1e-10) << rule_name(rule);
  }
}

// Rows that never unlock are neither read nor written: they keep S_0's exact bits, and a NaN
// parked there never reaches an output.
TEST(ChunkedDeltaRule, LockedRowsKeepTheirExactBits) {
  const int64_t T = 30, d_k = 8, d_v = 3, D = d_k * d_v, E = 4;
  const Schedule s = Schedule::custom(D, E, 100, {1, 4, 9, 50});  // the last block stays locked for t <= 30
  for (Rule rule : {Rule::linear, Rule::delta}) {
    RandomRuleInputs<double> r(rule, T, d_k, d_v, 11);
    const int64_t locked_from = s.end(3);  // first element of the last block
    r.S0[D - 1] = -0.0;  // a signed zero survives only if the element is never written
    r.S0[locked_from] = std::nan("");
    std::vector<double> o(T * d_v), S(D);  // (T, d_v), (d_k, d_v)
    chunked_rule_forward<double>(rule, s, r.view(), 7, o.data(), S.data());
    EXPECT_TRUE(std::all_of(o.begin(), o.end(), [](double x) { return std::isfinite(x); })) << rule_name(rule);
    for (int64_t x = locked_from; x < D; ++x)
      EXPECT_EQ(std::memcmp(&S[x], &r.S0[x], sizeof(double)), 0) << rule_name(rule) << " element " << x;
    EXPECT_TRUE(std::signbit(S[D - 1]));
  }
}

TEST(ChunkedDeltaRule, EmptySequenceReturnsInitialState) {
  const int64_t d_k = 4, d_v = 2, D = d_k * d_v;
  const RandomRuleInputs<double> r(Rule::delta, 0, d_k, d_v, 3);
  RuleInputs<double> in = r.view();
  const double unread = 0;  // required inputs stay required, as in the reference, even when T = 0
  in.q = in.k = in.v = in.beta = &unread;
  std::vector<double> S(D, 7.0);
  chunked_rule_forward<double>(Rule::delta, Schedule::uniform(D, 2, 10), in, 4, nullptr, S.data());
  EXPECT_EQ(S, r.S0);
}

// Runs the chunked form and returns the field of the InputError it throws ("" when none).
std::string thrown_field(Rule rule, const Schedule& s, const RuleInputs<double>& in, int64_t chunk) {
  std::vector<double> o(std::max<int64_t>(in.T, 1) * in.d_v), S(in.d_k * in.d_v);
  try {
    chunked_rule_forward<double>(rule, s, in, chunk, o.data(), S.data());
  } catch (const InputError& e) {
    return e.field();
  }
  return "";
}

TEST(ChunkedDeltaRule, RejectsWhatItCannotCompute) {
  const int64_t T = 6, d_k = 4, d_v = 6, D = d_k * d_v;
  const RandomRuleInputs<double> r(Rule::comba, T, d_k, d_v, 2);
  const RuleInputs<double> in = r.view();
  const Schedule aligned = Schedule::uniform(D, 2, 4);
  EXPECT_EQ(thrown_field(Rule::delta, aligned, in, 2), "");
  EXPECT_EQ(thrown_field(Rule::comba, aligned, in, 2), "rule");
  EXPECT_EQ(thrown_field(Rule::titans, aligned, in, 2), "rule");
  EXPECT_EQ(thrown_field(Rule::swla, aligned, in, 2), "rule");
  EXPECT_EQ(thrown_field(Rule::delta, aligned, in, 0), "chunk_size");
  EXPECT_EQ(thrown_field(Rule::linear, aligned, in, -3), "chunk_size");
  // E = 3 gives blocks of 8 elements: the first boundary falls inside the second row of 6.
  EXPECT_EQ(thrown_field(Rule::delta, Schedule::uniform(D, 3, 4), in, 2), "E");
  EXPECT_EQ(thrown_field(Rule::delta, Schedule::uniform(D - 4, 2, 4), in, 2), "D");

  RuleInputs<double> missing = in;
  missing.q = nullptr;
  EXPECT_EQ(thrown_field(Rule::delta, aligned, missing, 2), "q");
  missing = in;
  missing.k = nullptr;
  EXPECT_EQ(thrown_field(Rule::delta, aligned, missing, 2), "k");
  missing = in;
  missing.v = nullptr;
  EXPECT_EQ(thrown_field(Rule::linear, aligned, missing, 2), "v");
  missing = in;
  missing.beta = nullptr;
  EXPECT_EQ(thrown_field(Rule::linear, aligned, missing, 2), "beta");
}

}  // namespace
