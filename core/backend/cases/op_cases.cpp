#include "core/backend/cases/op_cases.hpp"

#include <algorithm>
#include <random>
#include <stdexcept>
#include <tuple>
#include <type_traits>
#include <utility>

#include "core/backend/ops/open_widths_rule.hpp"
#include "core/memory/block_axis.hpp"
#include "core/memory/chunked_rule.hpp"
#include "core/memory/schedule.hpp"

namespace proteus::backend {
namespace {

// Uniform in [lo, hi) from a fixed seed, rounded to float so both precisions see the same values.
std::vector<double> values(size_t n, uint32_t seed, double lo = -1.0, double hi = 1.0) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> x(n);
  for (auto& e : x) e = static_cast<float>(u(rng));
  return x;
}

CaseOutput plain(std::vector<double> v) { return {std::move(v), {}}; }

// Every element must match the oracle exactly (copies, fills: no arithmetic).
CaseOutput exact(std::vector<double> v) {
  std::vector<uint8_t> m(v.size(), 1);
  return {std::move(v), std::move(m)};
}

// One generic body, run in both precisions.
template <class Body>
OpCase make_case(std::string name, Op op, OpShape shape, double max_nmse, Body body) {
  return {std::move(name), op, shape, max_nmse, std::nullopt, [body](CaseBuffers<float>& s) { return body(s); },
          [body](CaseBuffers<double>& s) { return body(s); }};
}

template <class S>
using Scalar = std::remove_reference_t<decltype(*std::declval<S&>().output("", 0))>;

// The shape of an op over n elements (elementwise ops, fill, copy, reductions, adamw).
OpShape elements(int64_t n) {
  OpShape sh;
  sh.n = n;
  return sh;
}

constexpr int N = 37, C = 24, OC = 19, B = 2, T = 11, H = 2, d = 6, V = 29;
constexpr size_t kLong = 1001;  // elementwise ops: a ragged tail after any power of two

// The dense ops, one function each: its cases at the parity shapes.
void fill_cases(std::vector<OpCase>& cases) {
  cases.push_back(make_case("fill", Op::fill, elements(kLong), 0.0, [](auto& s) {
    using F = Scalar<decltype(s)>;
    auto* all = s.output("all", kLong);
    s.backend().fill(all, F(2.5), kLong);
    auto* part = s.output("part", kLong);
    s.backend().fill(part + 3, F(-1.25), kLong - 10);  // the rest keeps its garbage
    return CaseOutputs{{"all", exact(s.read(all, kLong))}, {"part", exact(s.read(part, kLong))}};
  }));
}

void copy_cases(std::vector<OpCase>& cases) {
  cases.push_back(make_case("copy", Op::copy, elements(kLong), 0.0, [](auto& s) {
    const auto x = values(kLong, 1);
    auto* dst = s.output("dst", kLong);
    s.backend().copy(dst, s.input("src", x), kLong);
    // Overlapping ranges, both ways: memmove semantics.
    auto* up = s.inout("up", x);
    s.backend().copy(up + 5, up, kLong - 5);
    auto* down = s.inout("down", x);
    s.backend().copy(down, down + 5, kLong - 5);
    return CaseOutputs{{"dst", exact(s.read(dst, kLong))},
                       {"overlap_up", exact(s.read(up, kLong))},
                       {"overlap_down", exact(s.read(down, kLong))}};
  }));
}

void embedding_cases(std::vector<OpCase>& cases) {
  OpShape sh;
  sh.N = N, sh.C = C, sh.V = V;
  cases.push_back(make_case("embedding", Op::embedding, sh, 1e-12, [](auto& s) {
    const int used = 23;  // rows [23, V) of the table are never looked up: their gradient stays as it was
    std::vector<int32_t> tokens(N);
    for (int n = 0; n < N; ++n) tokens[n] = (n * 7 + 3) % used;
    const int32_t* ids = s.ids("tokens", tokens);
    auto* out = s.output("out", N * C);
    s.backend().embedding_forward(out, ids, s.input("wte", values(V * C, 1)), N, C);
    auto* dwte = s.inout("dwte", values(V * C, 3));
    s.backend().embedding_backward(dwte, s.input("dout", values(N * C, 2)), ids, N, C);
    CaseOutput d = plain(s.read(dwte, V * C));
    d.masked.assign(V * C, 0);
    for (int i = used * C; i < V * C; ++i) d.masked[i] = 1;
    return CaseOutputs{{"out", exact(s.read(out, N * C))}, {"dwte", std::move(d)}};
  }));
}

void rmsnorm_cases(std::vector<OpCase>& cases) {
  OpShape sh;
  sh.N = N, sh.C = C;
  cases.push_back(make_case("rmsnorm", Op::rmsnorm, sh, 1e-10, [](auto& s) {
    const auto* in = s.input("in", values(N * C, 3));
    const auto* w = s.input("w", values(C, 4, 0.5, 1.5));
    auto *out = s.output("out", N * C), *rstd = s.output("rstd", N), *din = s.output("din", N * C);
    auto* dw = s.inout("dw", values(C, 45));
    s.backend().rmsnorm_forward(out, rstd, in, w, N, C, 1e-5);
    s.backend().rmsnorm_backward(din, dw, s.input("dout", values(N * C, 5)), in, w, rstd, N, C);
    return CaseOutputs{{"out", plain(s.read(out, N * C))},
                       {"rstd", plain(s.read(rstd, N))},
                       {"din", plain(s.read(din, N * C))},
                       {"dw", plain(s.read(dw, C))}};
  }));
}

void matmul_cases(std::vector<OpCase>& cases) {
  OpShape sh;
  sh.N = N, sh.C = C, sh.OC = OC;
  cases.push_back(make_case("matmul", Op::matmul, sh, 1e-10, [](auto& s) {
    const auto* in = s.input("in", values(N * C, 6));
    const auto* w = s.input("w", values(OC * C, 7));
    auto *out = s.output("out", N * OC), *din = s.output("din", N * C);
    auto* dw = s.inout("dw", values(OC * C, 46));
    s.backend().matmul_forward(out, in, w, N, C, OC);
    s.backend().matmul_backward(din, dw, s.input("dout", values(N * OC, 8)), in, w, N, C, OC);
    return CaseOutputs{{"out", plain(s.read(out, N * OC))},
                       {"din", plain(s.read(din, N * C))},
                       {"dw", plain(s.read(dw, OC * C))}};
  }));
}

void conv_silu_cases(std::vector<OpCase>& cases) {
  OpShape sh;
  sh.B = B, sh.T = T, sh.C = 5;
  cases.push_back(make_case("conv_silu", Op::conv_silu, sh, 1e-10, [](auto& s) {
    const int Ch = 5, K = 4, n = B * T * Ch;
    const auto* in = s.input("in", values(n, 9));
    const auto* w = s.input("w", values(Ch * K, 10));
    auto *out = s.output("out", n), *pre = s.output("pre", n), *din = s.output("din", n);
    auto* dw = s.inout("dw", values(Ch * K, 47));
    s.backend().conv_silu_forward(out, pre, in, w, B, T, Ch, K);
    s.backend().conv_silu_backward(din, dw, s.input("dout", values(n, 11)), in, w, pre, B, T, Ch, K);
    return CaseOutputs{{"out", plain(s.read(out, n))},
                       {"pre", plain(s.read(pre, n))},
                       {"din", plain(s.read(din, n))},
                       {"dw", plain(s.read(dw, Ch * K))}};
  }));
}

void l2norm_cases(std::vector<OpCase>& cases) {
  OpShape sh;
  sh.N = N, sh.C = d;
  cases.push_back(make_case("l2norm", Op::l2norm, sh, 1e-10, [](auto& s) {
    const auto* in = s.input("in", values(N * d, 12));
    auto *out = s.output("out", N * d), *rn = s.output("rnorm", N), *din = s.output("din", N * d);
    s.backend().l2norm_forward(out, rn, in, N, d, 1e-6);
    s.backend().l2norm_backward(din, s.input("dout", values(N * d, 13)), out, rn, N, d);
    return CaseOutputs{{"out", plain(s.read(out, N * d))},
                       {"rnorm", plain(s.read(rn, N))},
                       {"din", plain(s.read(din, N * d))}};
  }));
}

void prefix_renorm_cases(std::vector<OpCase>& cases) {
  for (bool capped : {false, true}) {
    // Open rows vary over positions: 1, 2, ..., full (copied). Rows with small open norms exercise
    // the floor (capped) and large ones the normalising branch.
    OpShape sh;
    sh.B = B, sh.T = T, sh.H = H, sh.d = d;
    cases.push_back(make_case(capped ? "prefix_renorm_capped" : "prefix_renorm", Op::prefix_renorm, sh, 1e-10,
                              [capped](auto& s) {
      const int n = B * T * H * d;
      std::vector<int32_t> open(T);
      for (int t = 0; t < T; ++t) open[t] = std::min(d, 1 + t / 2);
      const int32_t* rows = s.ids("rows", open);
      auto x = values(n, 70);
      for (int i = 0; i < n; i += 7) x[i] = static_cast<float>(x[i] * 0.05);  // little open energy; float-exact
      const auto* in = s.input("in", x);
      auto *out = s.output("out", n), *nm = s.output("norm", B * T * H), *din = s.output("din", n);
      s.backend().prefix_renorm_forward(out, nm, in, rows, B, T, H, d, capped, 1e-6);
      s.backend().prefix_renorm_backward(din, s.input("dout", values(n, 71)), out, nm, rows, B, T, H, d, capped, 1e-6);
      // Copied elements (past the open rows, and whole rows once every row is open) are exact.
      CaseOutput o = plain(s.read(out, n)), g = plain(s.read(din, n));
      o.masked.assign(n, 0);
      for (int row = 0; row < B * T * H; ++row) {
        const int r = open[(row / H) % T];
        for (int i = (r >= d ? 0 : r); i < d; ++i) o.masked[static_cast<size_t>(row) * d + i] = 1;
      }
      g.masked = o.masked;
      return CaseOutputs{{"out", std::move(o)}, {"norm", plain(s.read(nm, B * T * H))}, {"din", std::move(g)}};
    }));
  }
}

// Open widths from 0 (a locked row) to d, per position and head: every element is a selection, so every one must be exact.
void prefix_mask_cases(std::vector<OpCase>& cases) {
  OpShape sh;
  sh.B = B, sh.T = T, sh.H = H, sh.d = d;
  cases.push_back(make_case("prefix_mask", Op::prefix_mask, sh, 0.0, [](auto& s) {
    const int n = B * T * H * d;
    std::vector<int32_t> open(T * H);  // head 1 trails head 0 by two positions
    for (int t = 0; t < T; ++t)
      for (int h = 0; h < H; ++h) open[t * H + h] = std::clamp(t / 2 - h, 0, d);
    auto* out = s.output("out", n);
    s.backend().prefix_mask(out, s.input("in", values(n, 72)), s.ids("rows", open), B, T, H, d);
    return CaseOutputs{{"out", exact(s.read(out, n))}};
  }));
}

void sigmoid_cases(std::vector<OpCase>& cases) {
  cases.push_back(make_case("sigmoid", Op::sigmoid, elements(kLong), 1e-12, [](auto& s) {
    const auto* in = s.input("in", values(kLong, 14, -6, 6));
    auto *out = s.output("out", kLong), *din = s.output("din", kLong);
    s.backend().sigmoid_forward(out, in, kLong);
    s.backend().sigmoid_backward(din, s.input("dout", values(kLong, 15)), out, kLong);
    return CaseOutputs{{"out", plain(s.read(out, kLong))}, {"din", plain(s.read(din, kLong))}};
  }));
}

void decay_cases(std::vector<OpCase>& cases) {
  OpShape sh;
  sh.N = N, sh.H = H;
  cases.push_back(make_case("decay", Op::decay, sh, 1e-10, [](auto& s) {
    const auto* in = s.input("in", values(N * H, 16, -3, 25));  // past 20 too: softplus's linear branch
    const auto* A = s.input("A_log", values(H, 17, 0, 2));
    const auto* dt = s.input("dt_bias", values(H, 18, -4, -1));
    auto *a = s.output("a", N * H), *din = s.output("din", N * H);
    auto* dA = s.inout("dA_log", values(H, 48));
    auto* ddt = s.inout("ddt_bias", values(H, 49));
    s.backend().decay_forward(a, in, A, dt, N, H);
    s.backend().decay_backward(din, dA, ddt, s.input("da", values(N * H, 19)), a, in, A, dt, N, H);
    return CaseOutputs{{"a", plain(s.read(a, N * H))},
                       {"din", plain(s.read(din, N * H))},
                       {"dA_log", plain(s.read(dA, H))},
                       {"ddt_bias", plain(s.read(ddt, H))}};
  }));
}

void swiglu_cases(std::vector<OpCase>& cases) {
  cases.push_back(make_case("swiglu", Op::swiglu, elements(kLong), 1e-12, [](auto& s) {
    const auto* g = s.input("gate", values(kLong, 20, -3, 3));
    const auto* u = s.input("up", values(kLong, 21));
    auto *out = s.output("out", kLong), *dg = s.output("dgate", kLong), *du = s.output("dup", kLong);
    s.backend().swiglu_forward(out, g, u, kLong);
    s.backend().swiglu_backward(dg, du, s.input("dout", values(kLong, 22)), g, u, kLong);
    return CaseOutputs{{"out", plain(s.read(out, kLong))},
                       {"dgate", plain(s.read(dg, kLong))},
                       {"dup", plain(s.read(du, kLong))}};
  }));
}

// The product and its backward (two products), with out aliasing an input as the output gate's does.
void multiply_cases(std::vector<OpCase>& cases) {
  cases.push_back(make_case("multiply", Op::multiply, elements(kLong), 1e-14, [](auto& s) {
    const auto* x = s.input("x", values(kLong, 73, -3, 3));
    auto* y = s.inout("y", values(kLong, 74));
    auto* out = s.output("out", kLong);
    s.backend().multiply(out, x, y, kLong);
    s.backend().multiply(y, y, out, kLong);  // in place: y <- y ⊙ (x ⊙ y)
    return CaseOutputs{{"out", plain(s.read(out, kLong))}, {"y", plain(s.read(y, kLong))}};
  }));
}

void add_cases(std::vector<OpCase>& cases) {
  cases.push_back(make_case("add", Op::add, elements(kLong), 1e-14, [](auto& s) {
    const auto x = values(kLong, 50);
    const auto* y = s.input("y", values(kLong, 51));
    auto* out = s.output("out", kLong);
    s.backend().add(out, s.input("x", x), y, kLong);
    auto* in_place = s.inout("in_place", x);  // out = x: the residual stream's pattern
    s.backend().add(in_place, in_place, y, kLong);
    return CaseOutputs{{"out", plain(s.read(out, kLong))}, {"in_place", plain(s.read(in_place, kLong))}};
  }));
}

void axpy_cases(std::vector<OpCase>& cases) {
  cases.push_back(make_case("axpy", Op::axpy, elements(kLong), 1e-14, [](auto& s) {
    using F = Scalar<decltype(s)>;
    auto* y = s.inout("y", values(kLong, 52));
    s.backend().axpy(y, F(-0.75), s.input("x", values(kLong, 53)), kLong);
    return CaseOutputs{{"y", plain(s.read(y, kLong))}};
  }));
}

void scale_cases(std::vector<OpCase>& cases) {
  cases.push_back(make_case("scale", Op::scale, elements(kLong), 1e-14, [](auto& s) {
    using F = Scalar<decltype(s)>;
    auto* x = s.inout("x", values(kLong, 54));
    s.backend().scale(x, F(1.5), kLong);
    return CaseOutputs{{"x", plain(s.read(x, kLong))}};
  }));
}

void comba_query_cases(std::vector<OpCase>& cases) {
  OpShape sh;
  sh.N = N, sh.H = H, sh.d = d;
  cases.push_back(make_case("comba_query", Op::comba_query, sh, 1e-12, [](auto& s) {
    const int n = N * H * d;
    const auto* q = s.input("q", values(n, 55));
    const auto* p = s.input("p", values(n, 56));
    const auto* dh = s.input("d", values(H, 57, -1.5, 1.5));
    auto* out = s.output("out", n);
    s.backend().comba_query_forward(out, q, p, dh, N, H, d);
    auto* dp = s.inout("dp", values(n, 58));  // p = k: its other gradient terms are already there
    auto* ddh = s.inout("dd", values(H, 59));
    s.backend().comba_query_backward(dp, ddh, s.input("dout", values(n, 60)), p, dh, N, H, d);
    return CaseOutputs{
        {"out", plain(s.read(out, n))}, {"dp", plain(s.read(dp, n))}, {"dd", plain(s.read(ddh, H))}};
  }));
}

void xent_cases(std::vector<OpCase>& cases) {
  OpShape sh;
  sh.N = N, sh.V = V;
  cases.push_back(make_case("xent", Op::xent, sh, 1e-10, [](auto& s) {
    std::vector<int32_t> targets(N);
    for (int n = 0; n < N; ++n) targets[n] = (n * 11 + 1) % V;
    const int skipped = 3;
    targets[skipped] = -1;  // a weight-0 row: its target is never read
    std::vector<double> weight(N, 1.0);
    weight[skipped] = 0.0;
    weight[5] = 2.0;
    const int32_t* ids = s.ids("targets", targets);
    const auto* logits = s.input("logits", values(N * V, 23, -3, 3));
    const auto* w = s.input("weight", weight);
    auto *losses = s.output("losses", N), *probs = s.output("probs", N * V), *dlogits = s.output("dlogits", N * V);
    s.backend().xent_forward(losses, probs, logits, ids, w, N, V);
    s.backend().xent_backward(dlogits, probs, ids, w, 1.0 / N, N, V);
    CaseOutput l = plain(s.read(losses, N)), dl = plain(s.read(dlogits, N * V));
    l.masked.assign(N, 0);
    l.masked[skipped] = 1;
    dl.masked.assign(N * V, 0);
    for (int v = 0; v < V; ++v) dl.masked[skipped * V + v] = 1;
    return CaseOutputs{{"losses", std::move(l)}, {"probs", plain(s.read(probs, N * V))}, {"dlogits", std::move(dl)}};
  }));
}

void attention_cases(std::vector<OpCase>& cases) {
  OpShape sh;
  sh.B = B, sh.T = T, sh.H = H, sh.d = d;
  cases.push_back(make_case("attention", Op::attention, sh, 1e-10, [](auto& s) {
    const int n = B * T * H * d;
    const auto* q = s.input("q", values(n, 24));
    const auto* k = s.input("k", values(n, 25));
    const auto* v = s.input("v", values(n, 26));
    auto *out = s.output("out", n), *probs = s.output("probs", B * H * T * T);
    auto *dq = s.output("dq", n), *dk = s.output("dk", n), *dv = s.output("dv", n);
    s.backend().attention_forward(out, probs, q, k, v, B, T, H, d);
    s.backend().attention_backward(dq, dk, dv, s.input("dout", values(n, 27)), probs, q, k, v, B, T, H, d);
    return CaseOutputs{{"out", plain(s.read(out, n))},
                       {"dq", plain(s.read(dq, n))},
                       {"dk", plain(s.read(dk, n))},
                       {"dv", plain(s.read(dv, n))}};
  }));
}

// A reduction to one number: 5003 elements, several partial sums on a GPU, and a ragged tail.
template <class Reduce>
void reduction_case(std::vector<OpCase>& cases, const std::string& name, Op op, Reduce reduce) {
  cases.push_back(make_case(name, op, elements(5003), 1e-14, [name, reduce](auto& s) {
    const auto* x = s.input("x", values(5003, 44));
    return CaseOutputs{{name, plain({reduce(s.backend(), x)})}};
  }));
}

void sum_cases(std::vector<OpCase>& cases) {
  reduction_case(cases, "sum", Op::sum, [](auto& be, const auto* x) { return be.sum(x, 5003); });
}

void sum_squares_cases(std::vector<OpCase>& cases) {
  reduction_case(cases, "sum_squares", Op::sum_squares, [](auto& be, const auto* x) { return be.sum_squares(x, 5003); });
}

void adamw_cases(std::vector<OpCase>& cases) {
  cases.push_back(make_case("adamw", Op::adamw, elements(257), 1e-10, [](auto& s) {
    const int n = 257;
    std::vector<double> mask(n, 1.0), decay(n, 1.0);
    for (int i = 0; i < n; i += 5) mask[i] = 0.0;
    for (int i = 0; i < n; i += 3) decay[i] = 0.0;
    auto* p = s.inout("params", values(n, 40));
    auto* m = s.inout("m", values(n, 41, -0.1, 0.1));
    auto* v = s.inout("v", values(n, 42, 0.0, 0.1));
    s.backend().adamw_update(p, s.input("grads", values(n, 43)), m, v, s.input("update_mask", mask),
                             s.input("decay_mask", decay), n, 1e-2, 0.9, 0.95, 1e-8, 0.1, 7);
    std::vector<uint8_t> frozen(n);
    for (int i = 0; i < n; ++i) frozen[i] = mask[i] == 0.0;  // the parameter schedule: every bit stays
    return CaseOutputs{{"params", {s.read(p, n), frozen}}, {"m", {s.read(m, n), frozen}}, {"v", {s.read(v, n), frozen}}};
  }));
}

// ---- the memory rules ----

constexpr int kDk = 4, kDv = 3, kWindow = 2;

// The sizes of a memory-rule case. kSmall runs every rule and form in microseconds; kWide is
// large enough to see what kSmall cannot: several value tiles of a GPU state pass (d_v 40 > 32),
// loops that take more than one pass, several chunks with a ragged last one, and (window writes) a
// window wider than the chunk.
struct RuleDims {
  int B, T, H, d_k, d_v, window;
};
constexpr RuleDims kSmall{B, T, H, kDk, kDv, kWindow};
constexpr RuleDims kWide{1, 70, 2, 8, 40, 3};

// Flags the elements of a (B, T, H, d_k) gradient whose key row stays locked for as long as its
// position's input is read: the rule never touches such a row, so its gradient is exactly 0 on
// every backend. A step's q, k, p are read at that step only, except a windowed rule's k, which the
// next `window - 1` steps read again (its sum over k_{t-j}): `reach` is how many steps one is read.
std::vector<uint8_t> locked_rows(const memory::Schedule& schedule, const RuleDims& r, int reach = 1) {
  std::vector<uint8_t> m(static_cast<size_t>(r.B) * r.T * r.H * r.d_k, 0);
  for (int b = 0; b < r.B; ++b)
    for (int t = 0; t < r.T; ++t) {
      const int last = std::min(r.T - 1, t + reach - 1);  // the schedule only opens rows: the last read has the most
      const int64_t end = schedule.active_elements(last + 1);
      for (int h = 0; h < r.H; ++h)
        for (int i = 0; i < r.d_k; ++i)
          m[((static_cast<size_t>(b) * r.T + t) * r.H + h) * r.d_k + i] = int64_t(i) * r.d_v >= end;
    }
  return m;
}

// The rule's inputs as the model feeds them: unit-norm-ish keys, beta in (0, 1), retention a
// (0 at the steps `zero_retention` names: a retention that underflowed).
template <class S>
MemoryRuleArgs<Scalar<S>> rule_inputs(S& s, memory::Rule rule, const memory::Schedule& schedule,
                                      const RuleDims& r = kSmall, const std::vector<int>& zero_retention = {}) {
  const int n = r.B * r.T * r.H;
  MemoryRuleArgs<Scalar<S>> args;
  args.rule = rule;
  args.schedule = &schedule;
  args.B = r.B, args.T = r.T, args.H = r.H, args.d_k = r.d_k, args.d_v = r.d_v, args.window = r.window;
  args.q = s.input("q", values(n * r.d_k, 30, -0.5, 0.5));
  args.k = s.input("k", values(n * r.d_k, 31, -0.5, 0.5));
  args.v = s.input("v", values(n * r.d_v, 32));
  args.beta = memory::rule_uses_beta(rule) ? s.input("beta", values(n, 33, 0.1, 0.9)) : nullptr;
  const int aw = static_cast<int>(memory::retention_width(rule, r.d_k));  // a's width: 1, or d_k
  auto a = values(n * aw, 34, 0.6, 1.0);
  for (int b = 0; b < r.B; ++b)
    for (int t : zero_retention)
      for (int h = 0; h < r.H; ++h)
        for (int i = 0; i < aw; ++i) a[((static_cast<size_t>(b) * r.T + t) * r.H + h) * aw + i] = 0.0;
  args.a = s.input("a", a);
  args.p = memory::rule_uses_p(rule) ? s.input("p", values(n * r.d_k, 35, -0.5, 0.5)) : nullptr;
  args.eta = memory::rule_uses_eta(rule) ? s.input("eta", values(n, 36, 0.0, 0.9)) : nullptr;
  args.gamma = memory::rule_uses_gamma(rule) ? s.input("gamma", values(n * r.window, 37, 0.1, 0.9)) : nullptr;
  return args;
}

OpShape rule_shape(memory::Rule rule, int n_blocks, const RuleDims& r = kSmall) {
  OpShape sh;
  sh.rule = rule;
  sh.B = r.B, sh.T = r.T, sh.H = r.H, sh.d_k = r.d_k, sh.d_v = r.d_v, sh.window = r.window, sh.n_blocks = n_blocks;
  return sh;
}

constexpr int kHorizon = T - 3;  // every block open before the end

// The gradient buffers of every input `args` has (activation gradients: all overwritten).
template <class S>
MemoryRuleGrads<Scalar<S>> rule_grads(S& s, const MemoryRuleArgs<Scalar<S>>& args, const RuleDims& r) {
  const int n = r.B * r.T * r.H;
  MemoryRuleGrads<Scalar<S>> g;
  g.q = s.output("dq", n * r.d_k), g.k = s.output("dk", n * r.d_k), g.v = s.output("dv", n * r.d_v);
  g.a = s.output("da", n * memory::retention_width(args.rule, r.d_k));
  if (args.beta) g.beta = s.output("dbeta", n);
  if (args.p) g.p = s.output("dp", n * r.d_k);
  if (args.eta) g.eta = s.output("deta", n);
  if (args.gamma) g.gamma = s.output("dgamma", n * r.window);
  return g;
}

// The output o and every gradient g holds, read back whole (no element excused).
template <class S>
CaseOutputs rule_outputs(S& s, memory::Rule rule, const Scalar<S>* o, const MemoryRuleGrads<Scalar<S>>& g,
                         const RuleDims& r) {
  const int n = r.B * r.T * r.H;
  CaseOutputs out{{"o", plain(s.read(o, n * r.d_v))},
                  {"dq", plain(s.read(g.q, n * r.d_k))},
                  {"dk", plain(s.read(g.k, n * r.d_k))},
                  {"dv", plain(s.read(g.v, n * r.d_v))},
                  {"da", plain(s.read(g.a, n * memory::retention_width(rule, r.d_k)))}};
  if (g.beta) out["dbeta"] = plain(s.read(g.beta, n));
  if (g.p) out["dp"] = plain(s.read(g.p, n * r.d_k));
  if (g.eta) out["deta"] = plain(s.read(g.eta, n));
  if (g.gamma) out["dgamma"] = plain(s.read(g.gamma, n * r.window));
  return out;
}

// One memory-rule case: forward, then backward, every output and gradient with its locked rows.
struct RuleCase {
  memory::Rule rule;
  memory::RuleForm form;
  int E;
  int chunk;  // 0: the backend's own
  RuleDims dims = kSmall;
  int horizon = kHorizon;
  std::vector<int> zero_retention = {};
};

OpCase rule_case(const std::string& name, const RuleCase& rc) {
  const RuleDims r = rc.dims;
  return make_case(name, Op::memory_rule, rule_shape(rc.rule, 0, r), 1e-9, [=](auto& s) {
    const int n = r.B * r.T * r.H;
    const auto schedule = memory::Schedule::uniform(r.d_k * r.d_v, rc.E, rc.horizon);
    auto args = rule_inputs(s, rc.rule, schedule, r, rc.zero_retention);
    args.form = rc.form;
    args.chunk = rc.chunk;
    auto* o = s.output("o", n * r.d_v);
    auto state = s.backend().memory_rule_forward(o, args);
    const auto g = rule_grads(s, args, r);
    s.backend().memory_rule_backward(g, s.input("dO", values(n * r.d_v, 38)), args, *state);
    const auto locked = locked_rows(schedule, r);
    CaseOutputs out = rule_outputs(s, rc.rule, o, g, r);
    out["dq"].masked = locked;  // locked key rows take exactly 0
    const int aw = static_cast<int>(memory::retention_width(rc.rule, r.d_k));
    if (aw > 1) out["da"].masked = locked;  // a locked row does not decay
    out["dk"].masked = locked_rows(schedule, r, memory::rule_uses_gamma(rc.rule) ? r.window : 1);
    if (g.p) out["dp"].masked = locked;
    // At a zero retention the chunked form gives its floor's gradient (0), the recurrent the true
    // one: a rule sent back to its recurrent form must still pass, so those few are left out.
    for (int b = 0; b < r.B; ++b)
      for (int t : rc.zero_retention)
        for (int h = 0; h < r.H; ++h)
          for (int i = 0; i < aw; ++i) out["da"].values[((static_cast<size_t>(b) * r.T + t) * r.H + h) * aw + i] = 0.0;
    return out;
  });
}

// The rule under block_axis value_rows or layer (E = 4 at kWide: 10 value dimensions, or 4 key rows
// of a head, per block) as the model composes it: the rule gated by the table of open widths on a
// backend that takes it (the CPU, and the float64 oracle), else the ungated rule between the
// prefix masks (n ⊙ v in, n ⊙ o out, n ⊙ dO and n ⊙ dv; layer m_h ⊙ q, k, p and their gradients).
// Both must give the same outputs and gradients. A backend that refuses window writes here skips them.
OpCase axis_rule_case(const std::string& name, memory::Rule rule, memory::BlockAxis axis, memory::RuleForm form) {
  const RuleDims r = kWide;
  OpShape shape = rule_shape(rule, 0, r);
  shape.open_widths = true;
  return make_case(name, Op::memory_rule, shape, 1e-9, [=](auto& s) {
    const int n = r.B * r.T * r.H;
    const auto gated = memory::Schedule::uniform(r.d_k * r.d_v, 4, 50);
    const auto schedule = memory::rule_schedule(axis, gated);
    auto args = rule_inputs(s, rule, schedule, r);
    args.form = form;
    args.chunk = 16;
    const bool by_rows = axis == memory::BlockAxis::layer;
    const int32_t* widths = s.ids("open_widths", memory::open_widths_table(axis, gated, r.T, r.H, r.d_k, r.d_v));
    args.open_widths = widths;
    args.open_widths_of = by_rows ? memory::OpenWidths::key_rows : memory::OpenWidths::value_columns;
    OpenWidthsRule rule(s.backend());  // the model's composition: the table, or the masks
    auto* o = s.output("o", n * r.d_v);
    auto state = rule.forward(o, args);
    const auto* dO = s.input("dO", values(n * r.d_v, 38));
    const auto g = rule_grads(s, args, r);
    rule.backward(g, dO, args, *state);
    return rule_outputs(s, args.rule, o, g, r);
  });
}

void memory_rule_cases(std::vector<OpCase>& cases) {
  // E = 3 cuts rows (blocks of 4 elements in rows of 3): the recurrent form. E = 4 is one row per
  // block: the chunked form where the rule has one, under auto; "_recurrent" asks for the other,
  // and "_chunked" asks for the chunked form at the backend's own chunk size (one chunk of T on
  // the CPU, a padded one on the GPU).
  using memory::RuleForm;
  for (memory::Rule rule : memory::all_rules()) {
    for (int E : {1, 3, 4})
      for (RuleForm form : {RuleForm::automatic, RuleForm::recurrent, RuleForm::chunked}) {
        const bool chunked_applies =
            memory::chunked_form_applies(rule, memory::Schedule::uniform(kDk * kDv, E, kHorizon), kDv);
        if (form == RuleForm::recurrent && !chunked_applies) continue;  // auto is already recurrent there
        if (form == RuleForm::chunked && !chunked_applies) continue;    // an input error, not a case
        const std::string name = "memory_rule_" + std::string(memory::rule_name(rule)) + "_E" + std::to_string(E) +
                                 (form == RuleForm::automatic ? "" : "_" + std::string(memory::rule_form_name(form)));
        OpCase c = rule_case(name, {rule, form, E, form == RuleForm::chunked ? 0 : 3});  // 3: a ragged last chunk
        if (form != RuleForm::recurrent && chunked_applies) c.chunked_rule = rule;
        cases.push_back(std::move(c));
      }
    if (!memory::chunked_form_applies(rule, memory::Schedule::uniform(kDk * kDv, 4, kHorizon), kDv)) continue;
    const std::string rule_prefix = "memory_rule_" + std::string(memory::rule_name(rule));
    // The chunked form at kWide (E 4: two key rows per block; chunks of 16, the last of 6), ...
    OpCase wide = rule_case(rule_prefix + "_E4_wide_chunked", {rule, RuleForm::chunked, 4, 16, kWide, 50});
    wide.chunked_rule = rule;
    cases.push_back(std::move(wide));
    // ... window writes with chunks of 2 inside a window of 3 (a write reads two chunks back), ...
    if (memory::rule_uses_gamma(rule)) {
      OpCase narrow = rule_case(rule_prefix + "_E4_wide_chunk2", {rule, RuleForm::chunked, 4, 2, kWide, 50});
      narrow.chunked_rule = rule;
      cases.push_back(std::move(narrow));
    }
    // ... and retentions that underflowed to 0 (the first step, two in a row, a chunk start), where
    // the log-retention is floored (core/memory/log_retention.hpp) instead of giving NaN.
    OpCase zero = rule_case(rule_prefix + "_E4_zero_retention", {rule, RuleForm::chunked, 4, 3, kSmall, kHorizon,
                                                                  {0, 4, 5, 6}});
    zero.chunked_rule = rule;
    cases.push_back(std::move(zero));
  }
  // The block axes (model.mixer.block_axis): the cases each rule's descriptor row names (together
  // each family, both forms, and window writes under both axes).
  for (const memory::RuleDescriptor& row : memory::rule_descriptors())
    for (const auto& [axis, form] : row.parity_axes) {
      OpCase c = axis_rule_case("memory_rule_" + std::string(row.name) + "_E4_" +
                                    std::string(memory::block_axis_name(axis)) + "_" +
                                    std::string(memory::rule_form_name(form)),
                                row.rule, axis, form);
      if (form == RuleForm::chunked) c.chunked_rule = row.rule;
      cases.push_back(std::move(c));
    }
}

// The first rule of each family (rule_traits.hpp) in the descriptor table's order: the occupancy
// cases read one state of each kind.
std::vector<memory::Rule> one_rule_per_family() {
  std::vector<memory::Rule> rules;
  for (memory::Rule r : memory::all_rules()) {
    bool seen = false;
    for (memory::Rule s : rules) seen |= memory::rule_traits(s).family == memory::rule_traits(r).family;
    if (!seen) rules.push_back(r);
  }
  return rules;
}

// Block occupancy, read from the forward's state. With one block per element the norms are
// |S_t[e]|: every locked element must still hold S_0 = 0, bit for bit. Five blocks of 12
// elements leave a remainder that the last block absorbs.
void memory_block_norms_cases(std::vector<OpCase>& cases) {
  for (memory::Rule rule : one_rule_per_family()) {
    const int D = kDk * kDv;
    const std::string name = "memory_block_norms_" + std::string(memory::rule_name(rule)) + "_E3";
    cases.push_back(make_case(name, Op::memory_block_norms, rule_shape(rule, D), 1e-9, [=](auto& s) {
      const int n = B * T * H;
      const auto schedule = memory::Schedule::uniform(D, 3, kHorizon);
      const auto args = rule_inputs(s, rule, schedule);
      auto state = s.backend().memory_rule_forward(s.output("o", n * kDv), args);
      auto* elements = s.output("norms_elements", n * D);  // (B, H, T, D)
      s.backend().memory_block_norms(elements, args, *state, D);
      auto* five = s.output("norms_5", n * 5);
      s.backend().memory_block_norms(five, args, *state, 5);
      CaseOutput e = plain(s.read(elements, n * D));
      e.masked.assign(e.values.size(), 0);
      for (int bh = 0; bh < B * H; ++bh)
        for (int t = 0; t < T; ++t) {
          const int64_t end = schedule.active_elements(t + 1);
          for (int x = 0; x < D; ++x) e.masked[(static_cast<size_t>(bh) * T + t) * D + x] = x >= end;
        }
      return CaseOutputs{{"norms_elements", std::move(e)}, {"norms_5", plain(s.read(five, n * 5))}};
    }));
  }
  // The norms replayed from a chunked forward's chunk-start states (kWide: chunks of 16, ragged).
  const RuleDims r = kWide;
  const int D = r.d_k * r.d_v;
  OpCase c = make_case("memory_block_norms_" + std::string(memory::rule_name(memory::kDefaultRule)) + "_E4_wide_chunked",
                       Op::memory_block_norms,
                       rule_shape(memory::kDefaultRule, 4, r), 1e-9, [=](auto& s) {
                         const int n = r.B * r.T * r.H;
                         const auto schedule = memory::Schedule::uniform(D, 4, 50);
                         auto args = rule_inputs(s, memory::kDefaultRule, schedule, r);
                         args.form = memory::RuleForm::chunked;
                         args.chunk = 16;
                         auto state = s.backend().memory_rule_forward(s.output("o", n * r.d_v), args);
                         auto* four = s.output("norms_4", n * 4);
                         s.backend().memory_block_norms(four, args, *state, 4);
                         return CaseOutputs{{"norms_4", plain(s.read(four, n * 4))}};
                       });
  c.chunked_rule = memory::kDefaultRule;
  cases.push_back(std::move(c));
}

}  // namespace

void add_op_cases(Op op, std::vector<OpCase>& cases) {
  switch (op) {
    case Op::fill: return fill_cases(cases);
    case Op::copy: return copy_cases(cases);
    case Op::embedding: return embedding_cases(cases);
    case Op::rmsnorm: return rmsnorm_cases(cases);
    case Op::matmul: return matmul_cases(cases);
    case Op::conv_silu: return conv_silu_cases(cases);
    case Op::l2norm: return l2norm_cases(cases);
    case Op::prefix_renorm: return prefix_renorm_cases(cases);
    case Op::prefix_mask: return prefix_mask_cases(cases);
    case Op::sigmoid: return sigmoid_cases(cases);
    case Op::decay: return decay_cases(cases);
    case Op::swiglu: return swiglu_cases(cases);
    case Op::multiply: return multiply_cases(cases);
    case Op::add: return add_cases(cases);
    case Op::axpy: return axpy_cases(cases);
    case Op::scale: return scale_cases(cases);
    case Op::comba_query: return comba_query_cases(cases);
    case Op::xent: return xent_cases(cases);
    case Op::attention: return attention_cases(cases);
    case Op::memory_rule: return memory_rule_cases(cases);
    case Op::memory_block_norms: return memory_block_norms_cases(cases);
    case Op::sum: return sum_cases(cases);
    case Op::sum_squares: return sum_squares_cases(cases);
    case Op::adamw: return adamw_cases(cases);
  }
  throw std::logic_error(std::string("no parity cases for op ") + op_name(op));
}

namespace {

// The op table's parity instantiation: each op's cases, in the table's order.
std::vector<OpCase> build() {
  std::vector<OpCase> cases;
  for (Op op : all_ops()) add_op_cases(op, cases);
  return cases;
}

}  // namespace

const std::vector<OpCase>& op_cases() {
  static const std::vector<OpCase> cases = build();
  return cases;
}

}  // namespace proteus::backend
