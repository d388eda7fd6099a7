// The chunked form (chunked_rule.hpp) and the checkpointed recurrent form (checkpointed_rule.hpp)
// against the taped recurrent reference (gated_rule_forward/backward): outputs, final state and
// every gradient, for linear, delta and comba, with and without decay, E from 1 to one row per
// block, schedules whose unlocks fall inside chunks, horizons shorter than the sequence and
// sequence lengths that are not a multiple of the chunk. The checkpointed form must agree bit for
// bit, for every rule and any E; the chunked form to float64 rounding.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/memory/checkpointed_rule.hpp"
#include "core/memory/chunked_rule.hpp"
#include "core/memory/gated_rule.hpp"
#include "core/memory/rule_form.hpp"
#include "tests/memory/random_rule_inputs.hpp"

namespace {

using namespace proteus::memory;
using proteus::InputError;
using proteus::memory::testing::RandomRuleInputs;

// Everything a form returns for one head: o, S_T and the gradient of every input.
template <class F>
struct Result {
  std::vector<F> o, S, q, k, v, beta, a, p, eta, gamma;
};

template <class F>
struct Upstream {
  std::vector<F> dO, dS;
  Upstream(int64_t T, int64_t d_k, int64_t d_v, uint32_t seed) : dO(T * d_v), dS(d_k * d_v) {
    std::mt19937 rng(seed);
    std::normal_distribution<double> normal;
    for (auto& e : dO) e = F(normal(rng));
    for (auto& e : dS) e = F(normal(rng));
  }
};

template <class F>
RuleGrads<F> grads_into(Result<F>& r, const RandomRuleInputs<F>& in) {
  r.q.assign(in.q.size(), F(0)), r.k.assign(in.k.size(), F(0)), r.v.assign(in.v.size(), F(0));
  r.beta.assign(in.T, F(0)), r.a.assign(in.a.size(), F(0)), r.p.assign(in.p.size(), F(0));
  r.eta.assign(in.eta.size(), F(0)), r.gamma.assign(in.gamma.size(), F(0));
  return RuleGrads<F>{r.q.data(), r.k.data(), r.v.data(), r.beta.data(), r.a.data(),
                      r.p.data(), r.eta.data(), r.gamma.data(), nullptr};
}

// Every rule with a chunked form (rule_traits.hpp), in the table's order.
std::vector<Rule> chunked_rules() {
  std::vector<Rule> rules;
  for (Rule rule : all_rules())
    if (rule_has_chunked_form(rule)) rules.push_back(rule);
  return rules;
}

enum class Form { taped, checkpointed, chunked };

// `view`: the inputs as the form sees them, when they are not in.view() (open widths on top).
template <class F>
Result<F> run(Form form, Rule rule, const Schedule& s, const RandomRuleInputs<F>& in, const Upstream<F>& up,
              int64_t chunk, const RuleInputs<F>* view = nullptr) {
  const RuleInputs<F> seen = view ? *view : in.view();
  Result<F> r;
  r.o.assign(in.T * in.d_v, F(0));
  r.S.assign(in.d_k * in.d_v, F(0));
  const RuleGrads<F> g = grads_into(r, in);
  if (form == Form::taped) {
    RuleTape<F> tape;
    gated_rule_forward<F>(rule, s, seen, r.o.data(), r.S.data(), &tape);
    gated_rule_backward<F>(rule, s, seen, tape, up.dO.data(), up.dS.data(), g);
  } else if (form == Form::checkpointed) {
    StateCheckpoints<F> ck;
    checkpointed_rule_forward<F>(rule, s, seen, chunk, r.o.data(), r.S.data(), &ck);
    checkpointed_rule_backward<F>(rule, s, seen, ck, up.dO.data(), up.dS.data(), g);
  } else {
    StateCheckpoints<F> ck;
    chunked_rule_forward<F>(rule, s, seen, chunk, r.o.data(), r.S.data(), &ck);
    chunked_rule_backward<F>(rule, s, seen, ck, up.dO.data(), up.dS.data(), g);
  }
  return r;
}

// max |got - want| / max |want| (0 when both are empty or all zero).
template <class A, class B>
double relative_error(const std::vector<A>& got, const std::vector<B>& want) {
  double diff = 0, scale = 0;
  for (size_t x = 0; x < want.size(); ++x) {
    diff = std::max(diff, std::abs(double(got[x]) - double(want[x])));
    scale = std::max(scale, std::abs(double(want[x])));
  }
  return scale == 0 ? diff : diff / scale;
}

template <class A, class B>
void expect_close(const Result<A>& got, const Result<B>& want, double tol, const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_LT(relative_error(got.o, want.o), tol) << "o";
  EXPECT_LT(relative_error(got.S, want.S), tol) << "S_T";
  EXPECT_LT(relative_error(got.q, want.q), tol) << "dq";
  EXPECT_LT(relative_error(got.k, want.k), tol) << "dk";
  EXPECT_LT(relative_error(got.v, want.v), tol) << "dv";
  EXPECT_LT(relative_error(got.beta, want.beta), tol) << "dbeta";
  EXPECT_LT(relative_error(got.a, want.a), tol) << "da";
  EXPECT_LT(relative_error(got.p, want.p), tol) << "dp";
  EXPECT_LT(relative_error(got.gamma, want.gamma), tol) << "dgamma";
}

template <class F>
bool same_bits(const std::vector<F>& x, const std::vector<F>& y) {
  return x.size() == y.size() && (x.empty() || std::memcmp(x.data(), y.data(), x.size() * sizeof(F)) == 0);
}

enum class Kind { uniform, geometric, custom };

// Custom unlocks at positions that are not multiples of 3 or 16, so k(t) changes mid-chunk.
Schedule make_schedule(Kind kind, int64_t D, int64_t E, int64_t N) {
  static const std::vector<int64_t> unlocks = {1, 5, 7, 11, 13, 17, 19, 22};
  switch (kind) {
    case Kind::uniform: return Schedule::uniform(D, E, N);
    case Kind::geometric: return Schedule::geometric(D, E, N);
    case Kind::custom: return Schedule::custom(D, E, N, std::vector<int64_t>(unlocks.begin(), unlocks.begin() + E));
  }
  return Schedule::uniform(D, E, N);
}

TEST(ChunkedRule, MatchesTheRecurrentReferenceInDouble) {
  const int64_t T = 37, d_k = 8, d_v = 3, D = d_k * d_v, N = 23;  // N < T: full memory past the horizon
  int compared = 0, mid_chunk_unlocks = 0;
  for (Rule rule : chunked_rules())
    for (bool decay : {true, false})
      for (int64_t E : {int64_t(1), int64_t(2), int64_t(4), d_k})
        for (Kind kind : {Kind::uniform, Kind::geometric, Kind::custom})
          for (int64_t chunk : {int64_t(1), int64_t(3), int64_t(16), T + 5}) {
            const Schedule s = make_schedule(kind, D, E, N);
            const RandomRuleInputs<double> in(rule, T, d_k, d_v, 7 + 31 * uint32_t(E), decay, /*nonzero_S0=*/false);
            const Upstream<double> up(T, d_k, d_v, 5 + uint32_t(chunk));
            const auto want = run(Form::taped, rule, s, in, up, chunk);
            const auto got = run(Form::chunked, rule, s, in, up, chunk);
            expect_close(got, want, 1e-10,
                         std::string(rule_name(rule)) + " decay=" + std::to_string(decay) + " E=" + std::to_string(E) +
                             " kind=" + std::to_string(int(kind)) + " chunk=" + std::to_string(chunk));
            ++compared;
            for (int64_t n = 1; n < T; ++n)
              mid_chunk_unlocks += n % chunk != 0 && s.active_rows(n, d_v) != s.active_rows(n + 1, d_v);
          }
  EXPECT_EQ(compared, static_cast<int>(chunked_rules().size()) * 2 * 4 * 3 * 4);
  EXPECT_GT(mid_chunk_unlocks, 0);  // the sweep exercises k(t) changing inside a chunk
}

// Row-aligned without E dividing d_k (the last block absorbs whole rows), and E = 16 at d_k = 16.
TEST(ChunkedRule, MatchesTheReferenceForRemainderBlocksAndOneRowPerBlock) {
  struct Shape {
    int64_t d_k, d_v, E, T;
  };
  for (const Shape& sh : {Shape{5, 2, 4, 29}, Shape{7, 3, 7, 29}, Shape{16, 16, 16, 70}})
    for (Rule rule : chunked_rules())
      for (int64_t chunk : {int64_t(3), int64_t(16)}) {
        const Schedule s = Schedule::uniform(sh.d_k * sh.d_v, sh.E, sh.T / 2);
        ASSERT_TRUE(s.row_aligned(sh.d_v));
        const RandomRuleInputs<double> in(rule, sh.T, sh.d_k, sh.d_v, 77, true, false);
        const Upstream<double> up(sh.T, sh.d_k, sh.d_v, 8);
        expect_close(run(Form::chunked, rule, s, in, up, chunk), run(Form::taped, rule, s, in, up, chunk), 1e-10,
                     std::string(rule_name(rule)) + " d_k=" + std::to_string(sh.d_k) + " E=" + std::to_string(sh.E) +
                         " chunk=" + std::to_string(chunk));
      }
}

// Under block_axis value_rows (open value columns) and layer (open key rows), widths that grow
// inside chunks, for every chunked rule whose masks are its gates (window writes read earlier
// tokens under step t's widths: swla's value_rows and layer run otherwise, value_rows_rule.hpp).
TEST(ChunkedRule, FollowsTheOpenWidthsOfBothBlockAxes) {
  const int64_t T = 29, d_k = 6, d_v = 4, D = d_k * d_v;
  int compared = 0;
  for (Rule rule : chunked_rules())
    for (OpenWidths of : {OpenWidths::value_columns, OpenWidths::key_rows})
      for (int64_t chunk : {int64_t(1), int64_t(4), int64_t(16)}) {
        if (!rule_masks_as_gates(rule)) continue;
        const Schedule s = Schedule::uniform(D, 2, 20);
        const RandomRuleInputs<double> in(rule, T, d_k, d_v, 17, true, false);
        const Upstream<double> up(T, d_k, d_v, 6);
        const int64_t widest = of == OpenWidths::key_rows ? d_k : d_v;
        std::vector<int32_t> widths(T);
        for (int64_t t = 0; t < T; ++t) widths[t] = static_cast<int32_t>(std::min<int64_t>(widest, 1 + t / 5));
        RuleInputs<double> view = in.view();
        view.open_widths = widths.data(), view.open_widths_of = of;
        expect_close(run(Form::chunked, rule, s, in, up, chunk, &view), run(Form::taped, rule, s, in, up, chunk, &view),
                     1e-10, std::string(rule_name(rule)) + (of == OpenWidths::key_rows ? " key rows" : " value columns") +
                                " chunk=" + std::to_string(chunk));
        ++compared;
      }
  EXPECT_GT(compared, 0);
}

// d_v 16 and 40: value rows of one and of two and a half 16-float vectors, where float runs the
// chunk products through rows_product's register tiles on an AVX-512 build (rows_product.hpp).
TEST(ChunkedRule, FloatAgreesWithTheDoubleReferenceToFloatRounding) {
  const int64_t T = 200, d_k = 16;
  for (Rule rule : chunked_rules())
    for (int64_t d_v : {int64_t(16), int64_t(40)})
      for (int64_t E : {int64_t(1), int64_t(16)}) {
        const int64_t D = d_k * d_v;
        const Schedule s = Schedule::uniform(D, E, 128);
        const RandomRuleInputs<float> f(rule, T, d_k, d_v, 21, true, false);
        const Upstream<float> upf(T, d_k, d_v, 4);
        // The reference on the same (float-representable) numbers, widened.
        const RandomRuleInputs<double> d(rule, T, d_k, d_v, 21, true, false);
        RandomRuleInputs<double> w = d;
        auto widen = [](const std::vector<float>& x) { return std::vector<double>(x.begin(), x.end()); };
        w.q = widen(f.q), w.k = widen(f.k), w.v = widen(f.v), w.beta = widen(f.beta), w.a = widen(f.a), w.p = widen(f.p);
        w.gamma = widen(f.gamma);
        Upstream<double> upd(T, d_k, d_v, 4);
        upd.dO = widen(upf.dO), upd.dS = widen(upf.dS);
        expect_close(run(Form::chunked, rule, s, f, upf, 32), run(Form::taped, rule, s, w, upd, 32), 2e-4,
                     std::string(rule_name(rule)) + " d_v=" + std::to_string(d_v) + " E=" + std::to_string(E));
      }
}

// A retention that underflows to 0 wipes the state in the recurrent forms; the chunked form works
// with log retentions, where log 0 would make e^{g_t - g_s} inf - inf = NaN. The log is floored
// (log_retention.hpp): outputs, state and every gradient but da at the zero steps agree with the
// recurrent reference, and those da are finite (0: the floor's own gradient).
TEST(ChunkedRule, ARetentionOfZeroWipesTheStateLikeTheRecurrentForm) {
  const int64_t T = 37, d_k = 8, d_v = 3, D = d_k * d_v;
  const std::vector<int64_t> zeros = {0, 5, 6, 16, 30};  // the first step, two in a row, a chunk start
  for (Rule rule : {Rule::linear, Rule::delta, Rule::comba, Rule::swla})
    for (int64_t chunk : {int64_t(1), int64_t(4), int64_t(16)}) {
      const std::string what = std::string(rule_name(rule)) + " chunk=" + std::to_string(chunk);
      const Schedule s = Schedule::uniform(D, 4, 23);
      RandomRuleInputs<double> in(rule, T, d_k, d_v, 41, /*decay=*/true, false);
      for (int64_t n : zeros) in.a[n] = 0.0;
      const Upstream<double> up(T, d_k, d_v, 12);
      const auto want = run(Form::taped, rule, s, in, up, chunk);
      auto got = run(Form::chunked, rule, s, in, up, chunk);
      for (int64_t n : zeros) {
        EXPECT_EQ(got.a[n], 0.0) << what << " da at t=" << n + 1;
        got.a[n] = want.a[n];  // the floor's gradient, not the recurrent one: compared above
      }
      expect_close(got, want, 1e-10, what);
      // In float too: every value finite.
      RandomRuleInputs<float> f(rule, T, d_k, d_v, 41, true, false);
      for (int64_t n : zeros) f.a[n] = 0.0f;
      const auto fr = run(Form::chunked, rule, s, f, Upstream<float>(T, d_k, d_v, 12), chunk);
      for (const auto* x : {&fr.o, &fr.S, &fr.q, &fr.k, &fr.v, &fr.beta, &fr.a, &fr.p, &fr.gamma})
        for (float e : *x) ASSERT_TRUE(std::isfinite(e)) << what << " (float)";
    }
}

// The chunked backward on its own against central finite differences of its own forward.
TEST(ChunkedRule, GradientsMatchFiniteDifferences) {
  const int64_t T = 13, d_k = 4, d_v = 3, D = d_k * d_v, chunk = 5;
  for (Rule rule : chunked_rules())
    for (int64_t E : {int64_t(1), int64_t(4)}) {
      RandomRuleInputs<double> in(rule, T, d_k, d_v, 31 + uint32_t(E), true, false);
      const Schedule s = Schedule::uniform(D, E, 9);
      const Upstream<double> up(T, d_k, d_v, 2);
      const auto analytic = run(Form::chunked, rule, s, in, up, chunk);
      auto loss = [&] {
        std::vector<double> o(T * d_v), S(D);
        chunked_rule_forward<double>(rule, s, in.view(), chunk, o.data(), S.data(), nullptr);
        double L = 0;
        for (size_t n = 0; n < o.size(); ++n) L += up.dO[n] * o[n];
        for (size_t x = 0; x < S.size(); ++x) L += up.dS[x] * S[x];
        return L;
      };
      struct Input {
        const char* name;
        std::vector<double>* x;
        const std::vector<double>* g;
      };
      const std::vector<Input> inputs = {{"q", &in.q, &analytic.q}, {"k", &in.k, &analytic.k},
                                         {"v", &in.v, &analytic.v}, {"beta", &in.beta, &analytic.beta},
                                         {"a", &in.a, &analytic.a}, {"p", &in.p, &analytic.p},
                                         {"gamma", &in.gamma, &analytic.gamma}};
      const double h = 1e-6;
      for (const auto& input : inputs) {
        double worst = 0, scale = 1e-3;
        for (size_t n = 0; n < input.x->size(); ++n) {
          double& x = (*input.x)[n];
          const double x0 = x;
          x = x0 + h;
          const double hi = loss();
          x = x0 - h;
          const double lo = loss();
          x = x0;
          const double numeric = (hi - lo) / (2 * h);
          worst = std::max(worst, std::fabs(numeric - (*input.g)[n]));
          scale = std::max(scale, std::fabs(numeric));
        }
        EXPECT_LT(worst / scale, 1e-7) << rule_name(rule) << " E=" << E << " d" << input.name;
      }
    }
}

// Rows that never unlock stay exactly 0 in the state, and their q, k (and p) gradients are exactly 0.
TEST(ChunkedRule, LockedRowsStayZeroAndGetNoGradient) {
  const int64_t T = 30, d_k = 8, d_v = 3, D = d_k * d_v;
  const Schedule s = Schedule::custom(D, 4, 100, {1, 4, 9, 50});  // the last two rows stay locked for t <= 30
  for (Rule rule : chunked_rules()) {
    const RandomRuleInputs<double> in(rule, T, d_k, d_v, 11, true, false);
    const Upstream<double> up(T, d_k, d_v, 3);
    const auto r = run(Form::chunked, rule, s, in, up, 7);
    const int64_t locked_row = s.end(3) / d_v;
    for (int64_t x = locked_row * d_v; x < D; ++x) EXPECT_EQ(r.S[x], 0.0) << rule_name(rule);
    // swla writes k_t again at the next window - 1 steps, under their (wider) masks.
    const int64_t reach = rule == Rule::swla ? in.window - 1 : 0;
    for (int64_t n = 0; n < T; ++n) {
      for (int64_t i = s.active_rows(n + 1, d_v); i < d_k; ++i)
        EXPECT_EQ(r.q[n * d_k + i], 0.0) << rule_name(rule) << " t=" << n + 1 << " row " << i;
      for (int64_t i = s.active_rows(std::min(T, n + 1 + reach), d_v); i < d_k; ++i) {
        EXPECT_EQ(r.k[n * d_k + i], 0.0) << rule_name(rule) << " t=" << n + 1 << " row " << i;
        if (rule == Rule::comba) {
          EXPECT_EQ(r.p[n * d_k + i], 0.0);
        }
      }
    }
  }
}

TEST(ChunkedRule, SameInputsSameBits) {
  const int64_t T = 50, d_k = 16, d_v = 16;
  const Schedule s = Schedule::uniform(d_k * d_v, 16, 40);
  const RandomRuleInputs<float> in(Rule::delta, T, d_k, d_v, 9, true, false);
  const Upstream<float> up(T, d_k, d_v, 1);
  const auto x = run(Form::chunked, Rule::delta, s, in, up, 16), y = run(Form::chunked, Rule::delta, s, in, up, 16);
  EXPECT_TRUE(same_bits(x.o, y.o) && same_bits(x.S, y.S) && same_bits(x.q, y.q) && same_bits(x.k, y.k) &&
              same_bits(x.v, y.v) && same_bits(x.a, y.a) && same_bits(x.beta, y.beta));
}

// The forward keeps each chunk's products for the backward (chunk_products_kept); a backward
// without them makes them again. Both give the same gradients (to rounding: the forward forms the
// erase's residual in one product with the output's, the remaking backward alone), and the kept
// products are the ones read.
TEST(ChunkedRule, KeptProductsGiveTheRecomputedGradients) {
  const int64_t T = 50, d_k = 16, d_v = 16, chunk = 16;  // a short last chunk; blocks open mid-chunk
  const Schedule s = Schedule::uniform(d_k * d_v, 4, 40);
  for (Rule rule : chunked_rules()) {
    SCOPED_TRACE(rule_name(rule));
    const RandomRuleInputs<double> in(rule, T, d_k, d_v, 21, true, false);
    const Upstream<double> up(T, d_k, d_v, 22);
    std::vector<double> o(T * d_v);
    StateCheckpoints<double> kept;
    chunked_rule_forward<double>(rule, s, in.view(), chunk, o.data(), nullptr, &kept);
    const bool keeps = chunk_products_kept(rule, chunk, d_v) > 0;
    EXPECT_EQ(kept.products_at.size(), size_t(keeps ? checkpoint_ranges(T, chunk) + 1 : 1));
    EXPECT_EQ(kept.products.empty(), !keeps);
    auto backward = [&](const StateCheckpoints<double>& ck) {
      Result<double> r;
      chunked_rule_backward<double>(rule, s, in.view(), ck, up.dO.data(), up.dS.data(), grads_into(r, in));
      return r;
    };
    StateCheckpoints<double> remade = kept;
    remade.products.clear(), remade.products_at.clear();
    const Result<double> x = backward(kept), y = backward(remade);
    expect_close(x, y, 1e-12, "kept against remade");
    if (!keeps) continue;
    StateCheckpoints<double> doubled = kept;  // the kept products are what the backward reads
    for (double& e : doubled.products) e *= 2;
    EXPECT_GT(relative_error(backward(doubled).q, x.q), 1e-3);
  }
}

// E = 1 is one code path with every row open: the same bits as no schedule at all would give.
TEST(ChunkedRule, OneBlockIsTheUngatedRule) {
  const int64_t T = 40, d_k = 8, d_v = 8, D = d_k * d_v;
  const RandomRuleInputs<float> in(Rule::delta, T, d_k, d_v, 4, true, false);
  const Upstream<float> up(T, d_k, d_v, 6);
  // A custom schedule with every block open from step 1 is the ungated rule by definition.
  const auto one = run(Form::chunked, Rule::delta, Schedule::uniform(D, 1, T), in, up, 16);
  const auto all_open = run(Form::chunked, Rule::delta, Schedule::custom(D, 8, T, {1, 1, 1, 1, 1, 1, 1, 1}), in, up, 16);
  EXPECT_TRUE(same_bits(one.o, all_open.o));
  EXPECT_TRUE(same_bits(one.k, all_open.k));
}

// Runs the chunked forward and returns the field of the InputError it throws ("" when none).
std::string thrown_field(Rule rule, const Schedule& s, const RuleInputs<double>& in, int64_t chunk) {
  std::vector<double> o(std::max<int64_t>(in.T, 1) * in.d_v), S(in.d_k * in.d_v);
  try {
    chunked_rule_forward<double>(rule, s, in, chunk, o.data(), S.data(), nullptr);
  } catch (const InputError& e) {
    return e.field();
  }
  return "";
}

TEST(ChunkedRule, RejectsWhatItCannotCompute) {
  const int64_t T = 6, d_k = 4, d_v = 6, D = d_k * d_v;
  const RandomRuleInputs<double> r(Rule::comba, T, d_k, d_v, 2, true, false);
  const RuleInputs<double> in = r.view();
  const Schedule aligned = Schedule::uniform(D, 2, 4);
  EXPECT_EQ(thrown_field(Rule::delta, aligned, in, 2), "");
  EXPECT_EQ(thrown_field(Rule::comba, aligned, in, 2), "");
  EXPECT_EQ(thrown_field(Rule::titans, aligned, in, 2), "rule");
  EXPECT_EQ(thrown_field(Rule::swla, aligned, in, 2), "gamma");  // checked as the reference checks, first
  const RandomRuleInputs<double> window(Rule::swla, T, d_k, d_v, 2, true, false);
  EXPECT_EQ(thrown_field(Rule::swla, aligned, window.view(), 2), "");
  EXPECT_EQ(thrown_field(Rule::delta, aligned, in, 0), "chunk_size");
  // E = 3 gives blocks of 8 elements: the first boundary falls inside the second row of 6.
  EXPECT_EQ(thrown_field(Rule::delta, Schedule::uniform(D, 3, 4), in, 2), "E");
  EXPECT_EQ(thrown_field(Rule::delta, Schedule::uniform(D - 4, 2, 4), in, 2), "D");
  RuleInputs<double> with_state = in;
  const std::vector<double> S0(D, 0.5);
  with_state.S0 = S0.data();
  EXPECT_EQ(thrown_field(Rule::delta, aligned, with_state, 2), "S0");
  RuleInputs<double> missing = in;
  missing.beta = nullptr;
  EXPECT_EQ(thrown_field(Rule::linear, aligned, missing, 2), "beta");
}

// Gradients written to interleaved heads' rows (RuleGrads::interleave, the CPU backend's): head 1
// of three in (T, 3, width) tensors gets the bits of a contiguous run, by either form that has
// them, and the other heads' rows are left alone.
TEST(ChunkedRule, WritesGradientsToInterleavedRows) {
  const int64_t T = 23, d_k = 8, d_v = 8, heads = 3, chunk = 8;
  const Schedule s = Schedule::uniform(d_k * d_v, 4, 17);
  for (Rule rule : chunked_rules())
    for (Form form : {Form::chunked, Form::checkpointed}) {
      SCOPED_TRACE(std::string(rule_name(rule)) + (form == Form::chunked ? " chunked" : " checkpointed"));
      const RandomRuleInputs<double> in(rule, T, d_k, d_v, 31, true, false);
      Upstream<double> up(T, d_k, d_v, 32);
      std::fill(up.dS.begin(), up.dS.end(), 0.0);
      const Result<double> want = run(form, rule, s, in, up, chunk);
      const int64_t a_width = static_cast<int64_t>(in.a.size()) / T;
      std::vector<double> gq(T * heads * d_k, 7.0), gk(gq), gv(T * heads * d_v, 7.0), gbeta(T * heads, 7.0),
          ga(T * heads * a_width, 7.0), gp(gq), ggamma(T * heads * in.window, 7.0);
      RuleGrads<double> g{gq.data() + d_k, gk.data() + d_k, gv.data() + d_v, gbeta.data() + 1, ga.data() + a_width,
                          gp.data() + d_k, nullptr, in.window ? ggamma.data() + in.window : nullptr, nullptr};
      g.interleave = heads;
      const RuleInputs<double> view = in.view();
      std::vector<double> o(T * d_v);
      StateCheckpoints<double> ck;
      if (form == Form::chunked) {
        chunked_rule_forward<double>(rule, s, view, chunk, o.data(), nullptr, &ck);
        chunked_rule_backward<double>(rule, s, view, ck, up.dO.data(), nullptr, g);
      } else {
        checkpointed_rule_forward<double>(rule, s, view, chunk, o.data(), nullptr, &ck);
        checkpointed_rule_backward<double>(rule, s, view, ck, up.dO.data(), nullptr, g);
      }
      auto head1 = [&](const std::vector<double>& all, int64_t width) {
        std::vector<double> x(T * width);
        for (int64_t n = 0; n < T; ++n)
          std::copy(all.begin() + (n * heads + 1) * width, all.begin() + (n * heads + 2) * width, x.begin() + n * width);
        for (size_t e = 0; e < all.size(); ++e) {  // heads 0 and 2: untouched
          if ((e / width) % heads != 1) {
            EXPECT_EQ(all[e], 7.0) << "element " << e << " of another head was written";
          }
        }
        return x;
      };
      EXPECT_TRUE(same_bits(head1(gq, d_k), want.q)) << "dq";
      EXPECT_TRUE(same_bits(head1(gk, d_k), want.k)) << "dk";
      EXPECT_TRUE(same_bits(head1(gv, d_v), want.v)) << "dv";
      EXPECT_TRUE(same_bits(head1(gbeta, 1), want.beta)) << "dbeta";
      EXPECT_TRUE(same_bits(head1(ga, a_width), want.a)) << "da";
      if (rule_uses_p(rule)) {
        EXPECT_TRUE(same_bits(head1(gp, d_k), want.p)) << "dp";
      }
      if (rule_uses_gamma(rule)) {
        EXPECT_TRUE(same_bits(head1(ggamma, in.window), want.gamma)) << "dgamma";
      }
    }
  // Rows less than one apart are refused by name.
  const RandomRuleInputs<double> in(Rule::delta, T, d_k, d_v, 3, true, false);
  const Upstream<double> up(T, d_k, d_v, 4);
  Result<double> r;
  RuleGrads<double> g = grads_into(r, in);
  g.interleave = 0;
  std::vector<double> o(T * d_v);
  StateCheckpoints<double> ck;
  chunked_rule_forward<double>(Rule::delta, s, in.view(), chunk, o.data(), nullptr, &ck);
  try {
    chunked_rule_backward<double>(Rule::delta, s, in.view(), ck, up.dO.data(), nullptr, g);
    ADD_FAILURE() << "gradient rows 0 apart were accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "interleave");
  }
}

// ---- the recurrent form with checkpoints: the taped reference's bits, any rule, any E ----

TEST(CheckpointedRule, EqualsTheTapedReferenceBitForBit) {
  const int64_t T = 23, d_k = 4, d_v = 4, D = d_k * d_v;
  int compared = 0;
  for (Rule rule : all_rules())
    for (int64_t E : {int64_t(1), int64_t(3), int64_t(16)})
      for (int64_t every : {int64_t(1), int64_t(5), T + 2}) {
        const Schedule s = Schedule::uniform(D, E, 17);
        const RandomRuleInputs<double> in(rule, T, d_k, d_v, 3 + uint32_t(E), true, /*nonzero_S0=*/true);
        const Upstream<double> up(T, d_k, d_v, 12);
        const auto want = run(Form::taped, rule, s, in, up, every);
        const auto got = run(Form::checkpointed, rule, s, in, up, every);
        SCOPED_TRACE(std::string(rule_name(rule)) + " E=" + std::to_string(E) + " every=" + std::to_string(every));
        EXPECT_TRUE(same_bits(got.o, want.o));
        EXPECT_TRUE(same_bits(got.S, want.S));
        EXPECT_TRUE(same_bits(got.q, want.q));
        EXPECT_TRUE(same_bits(got.k, want.k));
        EXPECT_TRUE(same_bits(got.v, want.v));
        EXPECT_TRUE(same_bits(got.beta, want.beta));
        EXPECT_TRUE(same_bits(got.a, want.a));
        EXPECT_TRUE(same_bits(got.p, want.p));
        EXPECT_TRUE(same_bits(got.eta, want.eta));
        EXPECT_TRUE(same_bits(got.gamma, want.gamma));
        ++compared;
      }
  EXPECT_EQ(compared, kRuleCount * 3 * 3);
}

TEST(CheckpointedRule, ReplayVisitsEveryStateOfTheTape) {
  const int64_t T = 19, d_k = 3, d_v = 4, D = d_k * d_v;
  for (Rule rule : all_rules()) {
    const Schedule s = Schedule::uniform(D, 3, 12);
    const RandomRuleInputs<double> in(rule, T, d_k, d_v, 8);
    RuleTape<double> tape;
    std::vector<double> o(T * d_v);
    gated_rule_forward<double>(rule, s, in.view(), o.data(), nullptr, &tape);
    StateCheckpoints<double> ck;
    checkpointed_rule_forward<double>(rule, s, in.view(), 4, o.data(), nullptr, &ck);
    int64_t visited = 0;
    replay_rule_states<double>(rule, s, in.view(), ck, [&](int64_t n, const double* S) {
      EXPECT_EQ(n, visited + 1);
      EXPECT_EQ(std::memcmp(S, tape.S.data() + n * D, D * sizeof(double)), 0) << rule_name(rule) << " n=" << n;
      ++visited;
    });
    EXPECT_EQ(visited, T) << rule_name(rule);
  }
}

TEST(CheckpointedRule, RejectsCheckpointsOfAnotherShape) {
  const int64_t T = 10, d_k = 2, d_v = 2, D = d_k * d_v;
  const Schedule s = Schedule::uniform(D, 2, 8);
  const RandomRuleInputs<double> in(Rule::titans, T, d_k, d_v, 1);
  StateCheckpoints<double> ck;
  std::vector<double> o(T * d_v), dO(T * d_v, 1.0);
  checkpointed_rule_forward<double>(Rule::titans, s, in.view(), 3, o.data(), nullptr, &ck);
  ck.Z.clear();  // titans needs its momentum checkpoints
  RuleGrads<double> g;
  EXPECT_THROW(checkpointed_rule_backward<double>(Rule::titans, s, in.view(), ck, dO.data(), nullptr, g), InputError);
  EXPECT_THROW(checkpointed_rule_forward<double>(Rule::titans, s, in.view(), 0, o.data(), nullptr, &ck), InputError);
}

// ---- which form runs ----

TEST(RuleForm, AutoPicksTheChunkedFormWhereItApplies) {
  const int64_t d = 16, D = d * d;
  EXPECT_EQ(resolve_rule_form(RuleForm::automatic, Rule::delta, Schedule::uniform(D, 16, 64), d), RuleForm::chunked);
  EXPECT_EQ(resolve_rule_form(RuleForm::automatic, Rule::comba, Schedule::uniform(D, 1, 64), d), RuleForm::chunked);
  EXPECT_EQ(resolve_rule_form(RuleForm::automatic, Rule::titans, Schedule::uniform(D, 16, 64), d), RuleForm::recurrent);
  EXPECT_EQ(resolve_rule_form(RuleForm::automatic, Rule::swla, Schedule::uniform(D, 1, 64), d), RuleForm::chunked);
  EXPECT_EQ(resolve_rule_form(RuleForm::automatic, Rule::delta, Schedule::uniform(D, 32, 64), d), RuleForm::recurrent);
  EXPECT_EQ(resolve_rule_form(RuleForm::automatic, Rule::delta, Schedule::uniform(D, 4, 64), d, /*has_S0=*/true),
            RuleForm::recurrent);
  EXPECT_EQ(resolve_rule_form(RuleForm::recurrent, Rule::delta, Schedule::uniform(D, 4, 64), d), RuleForm::recurrent);
  try {
    resolve_rule_form(RuleForm::chunked, Rule::titans, Schedule::uniform(D, 4, 64), d);
    FAIL() << "chunked titans must be refused";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "form");
    EXPECT_NE(std::string(e.what()).find("titans"), std::string::npos) << e.what();
  }
  for (RuleForm f : all_rule_forms()) EXPECT_EQ(rule_form_from_name(rule_form_name(f)), f);
  EXPECT_FALSE(rule_form_from_name("fast").has_value());
}

}  // namespace
