// Comba's query op on the CPU: forward values, both gradients against central finite differences
// in float64 (dp accumulating, ddh accumulating), and in float the same bits as the per-head axpy
// loop the model ran before the op existed (same seed, same result across the change).
#include <gtest/gtest.h>

#include <vector>

#include "core/backend/cpu/cpu_backend.hpp"
#include "tests/backend/op_check.hpp"

namespace {

using namespace proteus::backend;
using namespace proteus::backend::testing;

constexpr int N = 7, H = 3, d = 5, n = N * H * d;

TEST(CpuCombaQuery, ForwardAndGradients) {
  auto be = make_cpu_backend<double>(2);
  auto q = random_vector(n, 1), p = random_vector(n, 2), dh = random_vector(H, 3, -1.5, 1.5);
  const auto rw = random_vector(n, 4);
  std::vector<double> out(n);
  auto loss = [&] {
    be->comba_query_forward(out.data(), q.data(), p.data(), dh.data(), N, H, d);
    return dot(rw, out);
  };
  loss();
  for (int r = 0; r < N; ++r)
    for (int h = 0; h < H; ++h)
      for (int i = 0; i < d; ++i) {
        const size_t at = (static_cast<size_t>(r) * H + h) * d + i;
        EXPECT_DOUBLE_EQ(out[at], q[at] - dh[h] * p[at]);
      }
  const auto dp_before = random_vector(n, 5), dd_before = random_vector(H, 6);
  auto dp = dp_before, dd = dd_before;
  be->comba_query_backward(dp.data(), dd.data(), rw.data(), p.data(), dh.data(), N, H, d);
  for (int i = 0; i < n; ++i) dp[i] -= dp_before[i];  // both accumulate
  for (int h = 0; h < H; ++h) dd[h] -= dd_before[h];
  expect_gradient("dp", p, dp, loss);
  expect_gradient("dd", dh, dd, loss);
}

TEST(CpuCombaQuery, SameBitsAsThePerHeadAxpyLoopItReplaced) {
  auto be = make_cpu_backend<float>(2);
  const auto q = to<float>(random_vector(n, 7)), p = to<float>(random_vector(n, 8));
  const auto dh = to<float>(random_vector(H, 9, -1.5, 1.5)), dout = to<float>(random_vector(n, 10));
  // The model's former forward: q copied, then axpy(-d_h) per (row, head).
  std::vector<float> before = q;
  for (int r = 0; r < N; ++r)
    for (int h = 0; h < H; ++h) {
      const size_t off = (static_cast<size_t>(r) * H + h) * d;
      be->axpy(before.data() + off, -dh[h], p.data() + off, d);
    }
  std::vector<float> out(n);
  be->comba_query_forward(out.data(), q.data(), p.data(), dh.data(), N, H, d);
  EXPECT_TRUE(same_bits(out, before));

  // Its former backward: axpy(-d_h) into dp per (row, head); dd summed in float, rows then width.
  const auto dp0 = to<float>(random_vector(n, 11)), dd0 = to<float>(random_vector(H, 12));
  std::vector<float> dp_before = dp0, ddh(H, 0.0f);
  for (int r = 0; r < N; ++r)
    for (int h = 0; h < H; ++h) {
      const size_t off = (static_cast<size_t>(r) * H + h) * d;
      be->axpy(dp_before.data() + off, -dh[h], dout.data() + off, d);
      for (int i = 0; i < d; ++i) ddh[h] -= dout[off + i] * p[off + i];
    }
  std::vector<float> dd_before = dd0;
  for (int h = 0; h < H; ++h) dd_before[h] += ddh[h];
  std::vector<float> dp = dp0, dd = dd0;
  be->comba_query_backward(dp.data(), dd.data(), dout.data(), p.data(), dh.data(), N, H, d);
  EXPECT_TRUE(same_bits(dp, dp_before));
  EXPECT_TRUE(same_bits(dd, dd_before));
}

}  // namespace
