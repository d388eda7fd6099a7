// The dense ops' parity cases, a function an op: apart from the memory rule's, which share only case_making.hpp.
#include "core/backend/cases/dense_op_cases.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "core/backend/cases/case_making.hpp"

namespace proteus::backend::parity {

// One function an op: its cases at the parity shapes.
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

}  // namespace proteus::backend::parity
