// The CPU backend's ops one by one: every backward against central finite differences in float64
// on small odd shapes (loss = sum(random_weights * out)), parameter gradients accumulating and
// activation gradients overwriting, causality of attention and the convolution, and the plain
// forward values of the ops that have no backward.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "core/backend/cpu/cpu_backend.hpp"
#include "tests/backend/op_check.hpp"

namespace {

using namespace proteus::backend;
using namespace proteus::backend::testing;

constexpr double kJunk = 1e30;  // pre-fills activation gradients: an op must overwrite them

class CpuOps : public ::testing::Test {
 protected:
  std::unique_ptr<Backend<double>> be = make_cpu_backend<double>(2);
};

TEST_F(CpuOps, AllocIsZeroedAndAligned) {
  for (size_t n : {1, 3, 17, 1000}) {
    double* p = be->alloc(n);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u) << n;
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(p[i], 0.0) << n;
    be->fill(p, 2.5, n);
    EXPECT_EQ(p[n - 1], 2.5);
    be->free(p);
  }
}

TEST_F(CpuOps, Embedding) {
  const int N = 7, C = 5, V = 4;
  const std::vector<int32_t> tokens = {0, 3, 1, 3, 2, 0, 3};  // repeats: the backward must add them
  auto wte = random_vector(V * C, 1), rw = random_vector(N * C, 2);
  std::vector<double> out(N * C);
  auto loss = [&] {
    be->embedding_forward(out.data(), tokens.data(), wte.data(), N, C);
    return dot(rw, out);
  };
  loss();
  for (int n = 0; n < N; ++n)
    for (int c = 0; c < C; ++c) EXPECT_EQ(out[n * C + c], wte[tokens[n] * C + c]);
  const auto before = random_vector(V * C, 3);
  auto dwte = before;
  be->embedding_backward(dwte.data(), rw.data(), tokens.data(), N, C);
  for (size_t i = 0; i < dwte.size(); ++i) dwte[i] -= before[i];  // accumulates
  expect_gradient("dwte", wte, dwte, loss);
}

TEST_F(CpuOps, RmsNorm) {
  const int N = 3, C = 5;
  const double eps = 1e-5;
  auto in = random_vector(N * C, 4), w = random_vector(C, 5, 0.5, 1.5), rw = random_vector(N * C, 6);
  std::vector<double> out(N * C), rstd(N);
  auto loss = [&] {
    be->rmsnorm_forward(out.data(), rstd.data(), in.data(), w.data(), N, C, eps);
    return dot(rw, out);
  };
  loss();
  for (int n = 0; n < N; ++n) {
    double ss = 0;
    for (int c = 0; c < C; ++c) ss += in[n * C + c] * in[n * C + c];
    EXPECT_NEAR(rstd[n], 1.0 / std::sqrt(ss / C + eps), 1e-14);  // eps inside the sqrt
  }
  std::vector<double> din(N * C, kJunk);
  const auto before = random_vector(C, 7);
  auto dw = before;
  be->rmsnorm_backward(din.data(), dw.data(), rw.data(), in.data(), w.data(), rstd.data(), N, C);
  for (int c = 0; c < C; ++c) dw[c] -= before[c];
  expect_gradient("din", in, din, loss);
  expect_gradient("dw", w, dw, loss);
}

TEST_F(CpuOps, Matmul) {
  const int N = 7, IC = 5, OC = 3;
  auto in = random_vector(N * IC, 8), w = random_vector(OC * IC, 9), rw = random_vector(N * OC, 10);
  std::vector<double> out(N * OC);
  auto loss = [&] {
    be->matmul_forward(out.data(), in.data(), w.data(), N, IC, OC);
    return dot(rw, out);
  };
  loss();
  std::vector<double> din(N * IC, kJunk);
  const auto before = random_vector(OC * IC, 11);
  auto dw = before;
  be->matmul_backward(din.data(), dw.data(), rw.data(), in.data(), w.data(), N, IC, OC);
  for (size_t i = 0; i < dw.size(); ++i) dw[i] -= before[i];
  expect_gradient("din", in, din, loss);
  expect_gradient("dw", w, dw, loss);

  // din may be null: dw alone, the same numbers.
  auto dw2 = before;
  be->matmul_backward(nullptr, dw2.data(), rw.data(), in.data(), w.data(), N, IC, OC);
  for (size_t i = 0; i < dw2.size(); ++i) EXPECT_DOUBLE_EQ(dw2[i] - before[i], dw[i]);
}

TEST_F(CpuOps, MatmulSplitIntoPiecesMatchesNaiveLoops) {
  // Big enough that rows and dw are cut into several GEMM pieces; odd sizes leave ragged tails. A
  // narrow dw (97 rows) is split over N into partials, a wide one (800 rows) over its rows.
  struct Shape {
    int N, IC, OC;
  };
  for (const Shape sh : {Shape{1001, 67, 97}, Shape{300, 70, 800}}) {
    const int N = sh.N, IC = sh.IC, OC = sh.OC;
    SCOPED_TRACE("OC " + std::to_string(OC));
    const auto in = random_vector(N * IC, 12), w = random_vector(OC * IC, 13), dout = random_vector(N * OC, 14);
    const auto before = random_vector(OC * IC, 15);  // dw accumulates onto what it holds
    std::vector<double> out(N * OC), din(N * IC, kJunk), dw = before;
    be->matmul_forward(out.data(), in.data(), w.data(), N, IC, OC);
    be->matmul_backward(din.data(), dw.data(), dout.data(), in.data(), w.data(), N, IC, OC);
    std::vector<double> ref_out(N * OC, 0.0), ref_din(N * IC, 0.0), ref_dw = before;
    for (int n = 0; n < N; ++n)
      for (int o = 0; o < OC; ++o)
        for (int i = 0; i < IC; ++i) {
          ref_out[n * OC + o] += in[n * IC + i] * w[o * IC + i];
          ref_din[n * IC + i] += dout[n * OC + o] * w[o * IC + i];
          ref_dw[o * IC + i] += dout[n * OC + o] * in[n * IC + i];
        }
    EXPECT_LT(rel_max_error(out, ref_out), 1e-13);
    EXPECT_LT(rel_max_error(din, ref_din), 1e-13);
    EXPECT_LT(rel_max_error(dw, ref_dw), 1e-13);
  }
}

struct ConvShape {
  int B, Tn, Ch, K;
};

class CpuConv : public CpuOps, public ::testing::WithParamInterface<ConvShape> {};

TEST_P(CpuConv, ConvSilu) {
  const auto [B, Tn, Ch, K] = GetParam();
  const int n = B * Tn * Ch;
  auto in = random_vector(n, 15, -2, 2), w = random_vector(Ch * K, 16), rw = random_vector(n, 17);
  std::vector<double> out(n), pre(n);
  auto loss = [&] {
    be->conv_silu_forward(out.data(), pre.data(), in.data(), w.data(), B, Tn, Ch, K);
    return dot(rw, out);
  };
  loss();
  // w[c][K-1] multiplies the current token.
  const int b = B - 1, t = Tn - 1, c = Ch - 1;
  double expect = 0;
  for (int j = 0; j < K; ++j)
    if (t - (K - 1) + j >= 0) expect += w[c * K + j] * in[((b * Tn) + t - (K - 1) + j) * Ch + c];
  EXPECT_NEAR(pre[(b * Tn + t) * Ch + c], expect, 1e-14);
  EXPECT_NEAR(out[(b * Tn + t) * Ch + c], expect / (1 + std::exp(-expect)), 1e-14);

  std::vector<double> din(n, kJunk);
  const auto before = random_vector(Ch * K, 18);
  auto dw = before;
  be->conv_silu_backward(din.data(), dw.data(), rw.data(), in.data(), w.data(), pre.data(), B, Tn, Ch, K);
  for (size_t i = 0; i < dw.size(); ++i) dw[i] -= before[i];
  expect_gradient("din", in, din, loss);
  expect_gradient("dw", w, dw, loss);
}

INSTANTIATE_TEST_SUITE_P(Shapes, CpuConv,
                         ::testing::Values(ConvShape{2, 7, 5, 4}, ConvShape{1, 3, 2, 4}, ConvShape{3, 5, 1, 1}));

TEST_F(CpuOps, ConvIsCausal) {
  const int B = 2, Tn = 9, Ch = 3, K = 4, n = B * Tn * Ch;
  auto in = random_vector(n, 19), w = random_vector(Ch * K, 20);
  std::vector<double> out(n), pre(n), out2(n), pre2(n);
  be->conv_silu_forward(out.data(), pre.data(), in.data(), w.data(), B, Tn, Ch, K);
  const int b = 1, t0 = 5;
  for (int c = 0; c < Ch; ++c) in[(b * Tn + t0) * Ch + c] += 0.75;
  be->conv_silu_forward(out2.data(), pre2.data(), in.data(), w.data(), B, Tn, Ch, K);
  int changed = 0;
  for (int bb = 0; bb < B; ++bb)
    for (int t = 0; t < Tn; ++t)
      for (int c = 0; c < Ch; ++c) {
        const int i = (bb * Tn + t) * Ch + c;
        if (bb != b || t < t0) {
          EXPECT_EQ(out[i], out2[i]) << "b " << bb << " t " << t << " saw token " << t0;
        } else {
          changed += out[i] != out2[i];
        }
      }
  EXPECT_EQ(changed, K * Ch);  // the changed token reaches exactly K positions per channel
}

TEST_F(CpuOps, L2Norm) {
  const int N = 3, d = 5;
  const double eps = 1e-6;
  auto in = random_vector(N * d, 21), rw = random_vector(N * d, 22);
  std::vector<double> out(N * d), rnorm(N);
  auto loss = [&] {
    be->l2norm_forward(out.data(), rnorm.data(), in.data(), N, d, eps);
    return dot(rw, out);
  };
  loss();
  double ss = 0;
  for (int i = 0; i < d; ++i) ss += in[i] * in[i];
  EXPECT_NEAR(rnorm[0], 1.0 / std::sqrt(ss + eps), 1e-14);
  std::vector<double> din(N * d, kJunk);
  be->l2norm_backward(din.data(), rw.data(), out.data(), rnorm.data(), N, d);
  expect_gradient("din", in, din, loss);
}

TEST_F(CpuOps, PrefixRenorm) {
  // B 1, T 4, H 2, d 4; open rows 1, 2, 3, 4 over the positions (the last: every row, a copy).
  const int B = 1, T = 4, H = 2, d = 4, n = B * T * H * d;
  const std::vector<int32_t> rows = {1, 2, 3, 4};
  for (bool capped : {false, true}) {
    auto in = random_vector(n, 40), rw = random_vector(n, 41);
    in[1 * d + 0] = 0.1;  // position 0, head 1: one open row with little energy (the floor when capped)
    std::vector<double> out(n), norm(B * T * H);
    auto loss = [&] {
      be->prefix_renorm_forward(out.data(), norm.data(), in.data(), rows.data(), B, T, H, d, capped, 1e-6);
      return dot(rw, out);
    };
    loss();
    for (int row = 0; row < B * T * H; ++row) {
      const int r = rows[(row / H) % T];
      const double* x = in.data() + row * d;
      const double* y = out.data() + row * d;
      double ss = 0;
      for (int i = 0; i < r; ++i) ss += x[i] * x[i];
      const double floor = capped ? std::sqrt(double(r) / d) : 1e-6;
      const double s = r == d ? 1.0 : 1.0 / std::max(std::sqrt(ss), floor);
      for (int i = 0; i < d; ++i) EXPECT_NEAR(y[i], i < r ? x[i] * s : x[i], 1e-15) << "row " << row << " i " << i;
      for (int i = r; i < d; ++i) EXPECT_EQ(y[i], x[i]) << "closed rows are copied";
    }
    // The small open key: full strength when re-normalised, held at the floor when capped.
    EXPECT_NEAR(std::fabs(out[1 * d]), capped ? 0.1 / std::sqrt(0.25) : 1.0, 1e-12);
    std::vector<double> din(n, kJunk);
    be->prefix_renorm_backward(din.data(), rw.data(), out.data(), norm.data(), rows.data(), B, T, H, d, capped, 1e-6);
    expect_gradient(capped ? "din (capped)" : "din", in, din, loss);
  }
}

TEST_F(CpuOps, Sigmoid) {
  const size_t n = 9;
  auto in = random_vector(n, 23, -4, 4), rw = random_vector(n, 24);
  in[0] = -40;  // the stable branch
  in[1] = 40;
  std::vector<double> out(n);
  auto loss = [&] {
    be->sigmoid_forward(out.data(), in.data(), n);
    return dot(rw, out);
  };
  loss();
  EXPECT_GT(out[0], 0.0);
  EXPECT_LT(out[0], 1e-16);
  EXPECT_EQ(out[1], 1.0);
  std::vector<double> din(n, kJunk);
  be->sigmoid_backward(din.data(), rw.data(), out.data(), n);
  expect_gradient("din", in, din, loss);
}

TEST_F(CpuOps, Decay) {
  const int N = 7, H = 3;
  auto in = random_vector(N * H, 25, -3, 3), A_log = random_vector(H, 26), dt_bias = random_vector(H, 27),
       rw = random_vector(N * H, 28);
  in[4] = 19.5;  // past the softplus switch at 20 once dt_bias is added
  in[5] = 24.0;
  std::vector<double> a(N * H);
  auto loss = [&] {
    be->decay_forward(a.data(), in.data(), A_log.data(), dt_bias.data(), N, H);
    return dot(rw, a);
  };
  loss();
  for (int n = 0; n < N; ++n)
    for (int h = 0; h < H; ++h) {
      const double z = in[n * H + h] + dt_bias[h];
      EXPECT_NEAR(a[n * H + h], std::exp(-std::exp(A_log[h]) * std::log1p(std::exp(z))), 1e-12);
      EXPECT_GT(a[n * H + h], 0.0);
      EXPECT_LE(a[n * H + h], 1.0);
    }
  std::vector<double> din(N * H, kJunk);
  const auto bA = random_vector(H, 29), bdt = random_vector(H, 30);
  auto dA = bA, ddt = bdt;
  be->decay_backward(din.data(), dA.data(), ddt.data(), rw.data(), a.data(), in.data(), A_log.data(),
                     dt_bias.data(), N, H);
  for (int h = 0; h < H; ++h) dA[h] -= bA[h], ddt[h] -= bdt[h];
  expect_gradient("din", in, din, loss);
  expect_gradient("dA_log", A_log, dA, loss);
  expect_gradient("ddt_bias", dt_bias, ddt, loss);
}

TEST_F(CpuOps, SwiGlu) {
  const size_t n = 11;
  auto gate = random_vector(n, 31, -3, 3), up = random_vector(n, 32), rw = random_vector(n, 33);
  std::vector<double> out(n);
  auto loss = [&] {
    be->swiglu_forward(out.data(), gate.data(), up.data(), n);
    return dot(rw, out);
  };
  loss();
  EXPECT_NEAR(out[3], gate[3] / (1 + std::exp(-gate[3])) * up[3], 1e-15);
  std::vector<double> dgate(n, kJunk), dup(n, kJunk);
  be->swiglu_backward(dgate.data(), dup.data(), rw.data(), gate.data(), up.data(), n);
  expect_gradient("dgate", gate, dgate, loss);
  expect_gradient("dup", up, dup, loss);
}

TEST_F(CpuOps, AddAxpyScale) {
  const size_t n = 40000;  // more than one elementwise piece
  const auto x = random_vector(n, 34), y = random_vector(n, 35);
  std::vector<double> out(n), z = y;
  be->add(out.data(), x.data(), y.data(), n);
  be->axpy(z.data(), 0.5, x.data(), n);
  auto s = x;
  be->scale(s.data(), -3.0, n);
  for (size_t i = 0; i < n; i += 997) {
    EXPECT_EQ(out[i], x[i] + y[i]);
    EXPECT_EQ(z[i], y[i] + 0.5 * x[i]);
    EXPECT_EQ(s[i], -3.0 * x[i]);
  }
  EXPECT_EQ(out[n - 1], x[n - 1] + y[n - 1]);
}

TEST_F(CpuOps, SumsAccumulateInDouble) {
  auto f = make_cpu_backend<float>(2);
  std::vector<float> x(1 << 20, 0.1f);
  x[0] = 3e7f;  // float accumulation would lose every 0.1 against it
  EXPECT_NEAR(f->sum(x.data(), x.size()), 3e7 + (x.size() - 1) * double(0.1f), 1e-3);
  const std::vector<double> y = {1, -2, 3};
  EXPECT_EQ(be->sum(y.data(), y.size()), 2.0);
  EXPECT_EQ(be->sum_squares(y.data(), y.size()), 14.0);
}

TEST_F(CpuOps, CrossEntropy) {
  const int N = 5, V = 7;
  auto logits = random_vector(N * V, 36, -3, 3);
  const std::vector<int32_t> targets = {2, 6, 0, 3, 5};
  const std::vector<double> weight = {1.0, 0.0, 2.0, 0.5, 1.0};  // row 1 is skipped
  const double scale = 0.3;
  std::vector<double> losses(N), probs(N * V);
  auto loss = [&] {
    be->xent_forward(losses.data(), probs.data(), logits.data(), targets.data(), weight.data(), N, V);
    double L = 0;
    for (double l : losses) L += l;
    return scale * L;
  };
  loss();
  for (int n = 0; n < N; ++n) {
    double se = 0;
    for (int v = 0; v < V; ++v) se += std::exp(logits[n * V + v]);
    EXPECT_NEAR(losses[n], weight[n] * (std::log(se) - logits[n * V + targets[n]]), 1e-13);
  }
  EXPECT_EQ(losses[1], 0.0);
  std::vector<double> dlogits(N * V, kJunk);
  be->xent_backward(dlogits.data(), probs.data(), targets.data(), weight.data(), scale, N, V);
  for (int v = 0; v < V; ++v) EXPECT_EQ(dlogits[1 * V + v], 0.0);
  expect_gradient("dlogits", logits, dlogits, loss);
}

TEST_F(CpuOps, CrossEntropyIsStableForLargeLogits) {
  const int V = 4;
  const std::vector<double> logits = {1000, 1001, 999, -1000};
  const std::vector<int32_t> target = {1};
  const std::vector<double> weight = {1};
  std::vector<double> loss(1), probs(V);
  be->xent_forward(loss.data(), probs.data(), logits.data(), target.data(), weight.data(), 1, V);
  const double expect = std::log(std::exp(-1.0) + 1 + std::exp(-2.0));
  EXPECT_NEAR(loss[0], expect, 1e-12);
  EXPECT_NEAR(probs[1], std::exp(-expect), 1e-12);
  EXPECT_EQ(probs[3], 0.0);
}

TEST_F(CpuOps, Attention) {
  const int B = 2, Tn = 7, H = 2, d = 3, n = B * Tn * H * d;
  auto q = random_vector(n, 37, -2, 2), k = random_vector(n, 38, -2, 2), v = random_vector(n, 39),
       rw = random_vector(n, 40);
  std::vector<double> out(n), probs(B * H * Tn * Tn, kJunk);
  auto loss = [&] {
    be->attention_forward(out.data(), probs.data(), q.data(), k.data(), v.data(), B, Tn, H, d);
    return dot(rw, out);
  };
  loss();
  // One output by hand: b = 1, h = 1, t = 4, scale 1/sqrt(d).
  const int b = 1, h = 1, t = 4;
  auto at = [&](const std::vector<double>& x, int tt, int i) { return x[((b * Tn + tt) * H + h) * d + i]; };
  std::vector<double> s(t + 1);
  double mx = -1e300, se = 0;
  for (int j = 0; j <= t; ++j) {
    s[j] = 0;
    for (int i = 0; i < d; ++i) s[j] += at(q, t, i) * at(k, j, i) / std::sqrt(double(d));
    mx = std::max(mx, s[j]);
  }
  for (int j = 0; j <= t; ++j) se += std::exp(s[j] - mx);
  for (int i = 0; i < d; ++i) {
    double o = 0;
    for (int j = 0; j <= t; ++j) o += std::exp(s[j] - mx) / se * at(v, j, i);
    EXPECT_NEAR(at(out, t, i), o, 1e-13);
  }
  for (int bh = 0; bh < B * H; ++bh)
    for (int i = 0; i < Tn; ++i)
      for (int j = i + 1; j < Tn; ++j) EXPECT_EQ(probs[(bh * Tn + i) * Tn + j], 0.0);

  std::vector<double> dq(n, kJunk), dk(n, kJunk), dv(n, kJunk);
  be->attention_backward(dq.data(), dk.data(), dv.data(), rw.data(), probs.data(), q.data(), k.data(), v.data(), B,
                         Tn, H, d);
  expect_gradient("dq", q, dq, loss);
  expect_gradient("dk", k, dk, loss);
  expect_gradient("dv", v, dv, loss);
}

TEST_F(CpuOps, AttentionIsCausal) {
  const int B = 2, Tn = 8, H = 3, d = 4, n = B * Tn * H * d;
  auto q = random_vector(n, 41), k = random_vector(n, 42), v = random_vector(n, 43);
  std::vector<double> out(n), out2(n), probs(B * H * Tn * Tn);
  be->attention_forward(out.data(), probs.data(), q.data(), k.data(), v.data(), B, Tn, H, d);
  const int b = 0, t0 = 5;
  for (int i = 0; i < H * d; ++i) {  // every head of token t0: its q, k and v
    const size_t at = (b * Tn + t0) * H * d + i;
    q[at] += 0.5, k[at] -= 0.7, v[at] += 1.1;
  }
  be->attention_forward(out2.data(), probs.data(), q.data(), k.data(), v.data(), B, Tn, H, d);
  int changed = 0;
  for (int bb = 0; bb < B; ++bb)
    for (int t = 0; t < Tn; ++t)
      for (int i = 0; i < H * d; ++i) {
        const size_t at = (bb * Tn + t) * H * d + i;
        if (bb != b || t < t0) {
          EXPECT_EQ(out[at], out2[at]) << "b " << bb << " t " << t << " saw token " << t0;
        } else {
          changed += out[at] != out2[at];
        }
      }
  EXPECT_EQ(changed, (Tn - t0) * H * d);
}

TEST(CpuFloatVsDouble, MatmulAndAttentionAgree) {
  auto bf = make_cpu_backend<float>(2);
  auto bd = make_cpu_backend<double>(2);
  {
    const int N = 64, IC = 48, OC = 40;
    const auto in = random_vector(N * IC, 44), w = random_vector(OC * IC, 45);
    std::vector<double> out(N * OC);
    std::vector<float> outf(N * OC);
    bd->matmul_forward(out.data(), in.data(), w.data(), N, IC, OC);
    bf->matmul_forward(outf.data(), to<float>(in).data(), to<float>(w).data(), N, IC, OC);
    EXPECT_LT(rel_max_error(outf, out), 1e-5);
    EXPECT_GT(rel_max_error(outf, out), 0.0);  // float really ran in float
  }
  {
    const int B = 2, Tn = 33, H = 2, d = 16, n = B * Tn * H * d;
    const auto q = random_vector(n, 46), k = random_vector(n, 47), v = random_vector(n, 48);
    std::vector<double> out(n), probs(B * H * Tn * Tn);
    std::vector<float> outf(n), probsf(B * H * Tn * Tn);
    bd->attention_forward(out.data(), probs.data(), q.data(), k.data(), v.data(), B, Tn, H, d);
    bf->attention_forward(outf.data(), probsf.data(), to<float>(q).data(), to<float>(k).data(), to<float>(v).data(),
                          B, Tn, H, d);
    EXPECT_LT(rel_max_error(outf, out), 1e-5);
  }
}

TEST(CpuAdamW, MaskedElementsKeepTheirBitsAndActiveOnesTakeAStep) {
  auto be = make_cpu_backend<double>(2);
  const size_t n = 6;
  auto params = random_vector(n, 49), m = random_vector(n, 50, -0.1, 0.1), v = random_vector(n, 51, 0.0, 0.01),
       grads = random_vector(n, 52);
  const std::vector<double> update = {1, 0, 1, 0, 1, 1}, decay = {1, 1, 0, 1, 1, 0};
  grads[1] = std::numeric_limits<double>::quiet_NaN();  // a locked element must not even read it
  const auto p0 = params, m0 = m, v0 = v;
  const double lr = 0.01, b1 = 0.9, b2 = 0.95, eps = 1e-8, wd = 0.1;
  const int step = 3;
  be->adamw_update(params.data(), grads.data(), m.data(), v.data(), update.data(), decay.data(), n, lr, b1, b2, eps,
                   wd, step);
  for (size_t i = 0; i < n; ++i) {
    if (update[i] == 0) {
      EXPECT_EQ(std::memcmp(&params[i], &p0[i], sizeof(double)), 0) << i;
      EXPECT_EQ(std::memcmp(&m[i], &m0[i], sizeof(double)), 0) << i;
      EXPECT_EQ(std::memcmp(&v[i], &v0[i], sizeof(double)), 0) << i;
      continue;
    }
    const double mi = b1 * m0[i] + (1 - b1) * grads[i];
    const double vi = b2 * v0[i] + (1 - b2) * grads[i] * grads[i];
    const double mh = mi / (1 - std::pow(b1, step)), vh = vi / (1 - std::pow(b2, step));
    const double pi = p0[i] - lr * (mh / (std::sqrt(vh) + eps) + wd * decay[i] * p0[i]);
    EXPECT_NEAR(m[i], mi, 1e-15) << i;
    EXPECT_NEAR(v[i], vi, 1e-15) << i;
    EXPECT_NEAR(params[i], pi, 1e-14) << i;
    EXPECT_NE(params[i], p0[i]) << i;
  }
  // No masks: everything moves, decay everywhere.
  auto p2 = p0, m2 = m0, v2 = v0;
  grads[1] = 0.5;
  be->adamw_update(p2.data(), grads.data(), m2.data(), v2.data(), nullptr, nullptr, n, lr, b1, b2, eps, wd, 1);
  const double mi = (1 - b1) * grads[2] + b1 * m0[2], vi = (1 - b2) * grads[2] * grads[2] + b2 * v0[2];
  EXPECT_NEAR(p2[2], p0[2] - lr * (mi / (1 - b1) / (std::sqrt(vi / (1 - b2)) + eps) + wd * p0[2]), 1e-14);
  EXPECT_NE(p2[1], p0[1]);
}

}  // namespace
