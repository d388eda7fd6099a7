// Backend parity in the manner of ggml's test-backend-ops: ONE table of op cases; each case runs
// forward and backward on the backend under test (float) and on the CPU backend in float64 (the
// oracle), and every output and gradient is compared by normalised MSE, sum (a-b)^2 / sum b^2,
// under the case's bound, after checking there is no NaN. Every backend the build registers
// (backend::registered_backends(): the CPU always, CUDA when built and a GPU is present) runs the
// same table, so a new backend is checked by adding nothing here.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/backend/cpu_backend.hpp"
#include "core/backend/registry.hpp"
#include "tests/backend/op_check.hpp"

namespace {

using namespace proteus;
using namespace proteus::backend;
using backend::testing::random_vector;

using Outputs = std::map<std::string, std::vector<double>>;

// Host <-> backend in either precision; buffers are owned by the case's scope.
template <class T>
struct Scope {
  Backend<T>& be;
  std::vector<T*> owned;
  explicit Scope(Backend<T>& b) : be(b) {}
  ~Scope() {
    for (T* p : owned) be.free(p);
  }
  T* up(const std::vector<double>& x) {
    T* p = be.alloc(x.size());
    const std::vector<T> h(x.begin(), x.end());
    be.upload(p, h.data(), h.size());
    owned.push_back(p);
    return p;
  }
  T* zeros(size_t n) {
    T* p = be.alloc(n);
    owned.push_back(p);
    return p;
  }
  std::vector<double> down(const T* p, size_t n) {
    std::vector<T> h(n);
    be.synchronize();
    be.download(h.data(), p, n);
    return std::vector<double>(h.begin(), h.end());
  }
};

struct OpCase {
  std::string name;
  double max_nmse;  // float against float64
  std::function<Outputs(Backend<float>&)> run_float;
  std::function<Outputs(Backend<double>&)> run_double;
};

// One generic body, instantiated for both precisions.
template <class Body>
OpCase make_case(std::string name, double max_nmse, Body body) {
  return {std::move(name), max_nmse,
          [body](Backend<float>& be) {
            Scope<float> s(be);
            return body(s);
          },
          [body](Backend<double>& be) {
            Scope<double> s(be);
            return body(s);
          }};
}

std::vector<OpCase> op_cases() {
  std::vector<OpCase> cases;
  const int N = 37, C = 24, OC = 19, B = 2, T = 11, H = 2, d = 6, V = 29;

  cases.push_back(make_case("embedding", 1e-12, [=](auto& s) {
    std::vector<int32_t> tokens(N);
    for (int n = 0; n < N; ++n) tokens[n] = (n * 7 + 3) % V;
    auto* wte = s.up(random_vector(V * C, 1));
    auto* out = s.zeros(N * C);
    s.be.embedding_forward(out, tokens.data(), wte, N, C);
    auto* dwte = s.zeros(V * C);
    s.be.embedding_backward(dwte, s.up(random_vector(N * C, 2)), tokens.data(), N, C);
    return Outputs{{"out", s.down(out, N * C)}, {"dwte", s.down(dwte, V * C)}};
  }));
  cases.push_back(make_case("rmsnorm", 1e-10, [=](auto& s) {
    auto* in = s.up(random_vector(N * C, 3));
    auto* w = s.up(random_vector(C, 4, 0.5, 1.5));
    auto *out = s.zeros(N * C), *rstd = s.zeros(N), *din = s.zeros(N * C), *dw = s.zeros(C);
    s.be.rmsnorm_forward(out, rstd, in, w, N, C, 1e-5);
    s.be.rmsnorm_backward(din, dw, s.up(random_vector(N * C, 5)), in, w, rstd, N, C);
    return Outputs{{"out", s.down(out, N * C)}, {"din", s.down(din, N * C)}, {"dw", s.down(dw, C)}};
  }));
  cases.push_back(make_case("matmul", 1e-10, [=](auto& s) {
    auto* in = s.up(random_vector(N * C, 6));
    auto* w = s.up(random_vector(OC * C, 7));
    auto *out = s.zeros(N * OC), *din = s.zeros(N * C), *dw = s.zeros(OC * C);
    s.be.matmul_forward(out, in, w, N, C, OC);
    s.be.matmul_backward(din, dw, s.up(random_vector(N * OC, 8)), in, w, N, C, OC);
    return Outputs{{"out", s.down(out, N * OC)}, {"din", s.down(din, N * C)}, {"dw", s.down(dw, OC * C)}};
  }));
  cases.push_back(make_case("conv_silu", 1e-10, [=](auto& s) {
    const int Ch = 5, K = 4, n = B * T * Ch;
    auto* in = s.up(random_vector(n, 9));
    auto* w = s.up(random_vector(Ch * K, 10));
    auto *out = s.zeros(n), *pre = s.zeros(n), *din = s.zeros(n), *dw = s.zeros(Ch * K);
    s.be.conv_silu_forward(out, pre, in, w, B, T, Ch, K);
    s.be.conv_silu_backward(din, dw, s.up(random_vector(n, 11)), in, w, pre, B, T, Ch, K);
    return Outputs{{"out", s.down(out, n)}, {"din", s.down(din, n)}, {"dw", s.down(dw, Ch * K)}};
  }));
  cases.push_back(make_case("l2norm", 1e-10, [=](auto& s) {
    auto* in = s.up(random_vector(N * d, 12));
    auto *out = s.zeros(N * d), *rn = s.zeros(N), *din = s.zeros(N * d);
    s.be.l2norm_forward(out, rn, in, N, d, 1e-6);
    s.be.l2norm_backward(din, s.up(random_vector(N * d, 13)), out, rn, N, d);
    return Outputs{{"out", s.down(out, N * d)}, {"din", s.down(din, N * d)}};
  }));
  cases.push_back(make_case("sigmoid", 1e-12, [=](auto& s) {
    auto* in = s.up(random_vector(N, 14, -4, 4));
    auto *out = s.zeros(N), *din = s.zeros(N);
    s.be.sigmoid_forward(out, in, N);
    s.be.sigmoid_backward(din, s.up(random_vector(N, 15)), out, N);
    return Outputs{{"out", s.down(out, N)}, {"din", s.down(din, N)}};
  }));
  cases.push_back(make_case("decay", 1e-10, [=](auto& s) {
    auto* in = s.up(random_vector(N * H, 16, -3, 3));
    auto* A = s.up(random_vector(H, 17, 0, 2));
    auto* dt = s.up(random_vector(H, 18, -4, -1));
    auto *a = s.zeros(N * H), *din = s.zeros(N * H), *dA = s.zeros(H), *ddt = s.zeros(H);
    s.be.decay_forward(a, in, A, dt, N, H);
    s.be.decay_backward(din, dA, ddt, s.up(random_vector(N * H, 19)), a, in, A, dt, N, H);
    return Outputs{{"a", s.down(a, N * H)}, {"din", s.down(din, N * H)}, {"dA_log", s.down(dA, H)},
                   {"ddt_bias", s.down(ddt, H)}};
  }));
  cases.push_back(make_case("swiglu", 1e-12, [=](auto& s) {
    const int n = N * C;
    auto* g = s.up(random_vector(n, 20, -3, 3));
    auto* u = s.up(random_vector(n, 21));
    auto *out = s.zeros(n), *dg = s.zeros(n), *du = s.zeros(n);
    s.be.swiglu_forward(out, g, u, n);
    s.be.swiglu_backward(dg, du, s.up(random_vector(n, 22)), g, u, n);
    return Outputs{{"out", s.down(out, n)}, {"dgate", s.down(dg, n)}, {"dup", s.down(du, n)}};
  }));
  cases.push_back(make_case("xent", 1e-10, [=](auto& s) {
    std::vector<int32_t> targets(N);
    for (int n = 0; n < N; ++n) targets[n] = (n * 11 + 1) % V;
    std::vector<double> weight(N, 1.0);
    weight[3] = 0.0;  // a skipped row
    auto* logits = s.up(random_vector(N * V, 23, -3, 3));
    auto* w = s.up(weight);
    auto *losses = s.zeros(N), *probs = s.zeros(N * V), *dlogits = s.zeros(N * V);
    s.be.xent_forward(losses, probs, logits, targets.data(), w, N, V);
    s.be.xent_backward(dlogits, probs, targets.data(), w, 1.0 / N, N, V);
    return Outputs{{"losses", s.down(losses, N)}, {"dlogits", s.down(dlogits, N * V)}};
  }));
  cases.push_back(make_case("attention", 1e-10, [=](auto& s) {
    const int n = B * T * H * d;
    auto* q = s.up(random_vector(n, 24));
    auto* k = s.up(random_vector(n, 25));
    auto* v = s.up(random_vector(n, 26));
    auto *out = s.zeros(n), *probs = s.zeros(B * H * T * T), *dq = s.zeros(n), *dk = s.zeros(n), *dv = s.zeros(n);
    s.be.attention_forward(out, probs, q, k, v, B, T, H, d);
    s.be.attention_backward(dq, dk, dv, s.up(random_vector(n, 27)), probs, q, k, v, B, T, H, d);
    return Outputs{{"out", s.down(out, n)}, {"dq", s.down(dq, n)}, {"dk", s.down(dk, n)}, {"dv", s.down(dv, n)}};
  }));
  for (memory::Rule rule : memory::all_rules())
    for (int E : {1, 3}) {
      cases.push_back(make_case(
          "memory_rule_" + std::string(memory::rule_name(rule)) + "_E" + std::to_string(E), 1e-9, [=](auto& s) {
            using Scalar = std::remove_pointer_t<decltype(s.zeros(1))>;
            const int dk = 4, dv = 3, c = 2, n = B * T * H;
            static_assert(std::is_floating_point_v<Scalar>);
            const auto schedule = memory::Schedule::uniform(dk * dv, E, T - 3);
            MemoryRuleArgs<Scalar> args;
            args.rule = rule;
            args.schedule = &schedule;
            args.B = B, args.T = T, args.H = H, args.d_k = dk, args.d_v = dv, args.window = c;
            // Unit-norm-ish keys and beta in (0, 1), as the model feeds them.
            args.q = s.up(random_vector(n * dk, 30, -0.5, 0.5));
            args.k = s.up(random_vector(n * dk, 31, -0.5, 0.5));
            args.v = s.up(random_vector(n * dv, 32));
            args.beta = memory::rule_uses_beta(rule) ? s.up(random_vector(n, 33, 0.1, 0.9)) : nullptr;
            args.a = s.up(random_vector(n, 34, 0.6, 1.0));
            args.p = memory::rule_uses_p(rule) ? s.up(random_vector(n * dk, 35, -0.5, 0.5)) : nullptr;
            args.eta = memory::rule_uses_eta(rule) ? s.up(random_vector(n, 36, 0.0, 0.9)) : nullptr;
            args.gamma = memory::rule_uses_gamma(rule) ? s.up(random_vector(n * c, 37, 0.1, 0.9)) : nullptr;
            auto* o = s.zeros(n * dv);
            auto state = s.be.memory_rule_forward(o, args);
            MemoryRuleGrads<Scalar> g;
            g.q = s.zeros(n * dk), g.k = s.zeros(n * dk), g.v = s.zeros(n * dv), g.a = s.zeros(n);
            if (args.beta) g.beta = s.zeros(n);
            if (args.p) g.p = s.zeros(n * dk);
            if (args.eta) g.eta = s.zeros(n);
            if (args.gamma) g.gamma = s.zeros(n * c);
            s.be.memory_rule_backward(g, s.up(random_vector(n * dv, 38)), args, *state);
            Outputs out{{"o", s.down(o, n * dv)},   {"dq", s.down(g.q, n * dk)}, {"dk", s.down(g.k, n * dk)},
                        {"dv", s.down(g.v, n * dv)}, {"da", s.down(g.a, n)}};
            if (g.beta) out["dbeta"] = s.down(g.beta, n);
            if (g.p) out["dp"] = s.down(g.p, n * dk);
            if (g.eta) out["deta"] = s.down(g.eta, n);
            if (g.gamma) out["dgamma"] = s.down(g.gamma, n * c);
            return out;
          }));
    }
  cases.push_back(make_case("reductions", 1e-12, [=](auto& s) {
    const int n = 5003;  // several partial sums on a GPU, and a ragged tail
    auto* x = s.up(random_vector(n, 44));
    s.be.synchronize();
    return Outputs{{"sum", {s.be.sum(x, n)}}, {"sum_squares", {s.be.sum_squares(x, n)}}};
  }));
  cases.push_back(make_case("adamw", 1e-10, [=](auto& s) {
    const int n = 257;
    std::vector<double> mask(n, 1.0), decay(n, 1.0);
    for (int i = 0; i < n; i += 5) mask[i] = 0.0;
    for (int i = 0; i < n; i += 3) decay[i] = 0.0;
    auto* p = s.up(random_vector(n, 40));
    auto* m = s.up(random_vector(n, 41, -0.1, 0.1));
    auto* v = s.up(random_vector(n, 42, 0.0, 0.1));
    s.be.adamw_update(p, s.up(random_vector(n, 43)), m, v, s.up(mask), s.up(decay), n, 1e-2, 0.9, 0.95, 1e-8, 0.1, 7);
    return Outputs{{"params", s.down(p, n)}, {"m", s.down(m, n)}, {"v", s.down(v, n)}};
  }));
  return cases;
}

double nmse(const std::vector<double>& got, const std::vector<double>& want) {
  double num = 0, den = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    num += (got[i] - want[i]) * (got[i] - want[i]);
    den += want[i] * want[i];
  }
  return den > 0 ? num / den : num;
}

struct Param {
  std::string backend;
  size_t op;
};

class BackendParity : public ::testing::TestWithParam<Param> {};

TEST_P(BackendParity, MatchesTheFloat64Oracle) {
  static const auto cases = op_cases();
  const auto& c = cases[GetParam().op];
  auto choice = make_backend(GetParam().backend, 2);
  if (choice.device != GetParam().backend) GTEST_SKIP() << choice.message;
  auto oracle = make_cpu_backend<double>(1);
  const auto want = c.run_double(*oracle);
  const auto got = c.run_float(*choice.backend);
  ASSERT_EQ(got.size(), want.size());
  for (const auto& [name, w] : want) {
    const auto& g = got.at(name);
    ASSERT_EQ(g.size(), w.size()) << name;
    for (size_t i = 0; i < g.size(); ++i) ASSERT_FALSE(std::isnan(g[i])) << c.name << "." << name << "[" << i << "]";
    const double e = nmse(g, w);
    EXPECT_LT(e, c.max_nmse) << c.name << "." << name << " on " << GetParam().backend;
    double scale = 0;
    for (double x : w) scale = std::max(scale, std::fabs(x));
    EXPECT_TRUE(scale > 0 || name == "losses") << c.name << "." << name << " is all zeros: the comparison proves nothing";
  }
}

std::vector<Param> all_params() {
  std::vector<Param> ps;
  const size_t n = op_cases().size();
  for (const auto& b : registered_backends())
    for (size_t i = 0; i < n; ++i) ps.push_back({b, i});
  return ps;
}

INSTANTIATE_TEST_SUITE_P(Ops, BackendParity, ::testing::ValuesIn(all_params()), [](const auto& info) {
  static const auto cases = op_cases();
  return info.param.backend + "_" + cases[info.param.op].name;
});

}  // namespace
