// The CPU backend's loops read and write subnormal floats as zero (a locked value_rows column's
// gradient decays through that range, at ~100x the cost), and the caller's own mode returns
// after them, so code outside the backend (the window, the tests' references) keeps IEEE's.
#include <gtest/gtest.h>

#include <cfloat>
#include <vector>

#include "core/backend/cpu/cpu_backend.hpp"
#include "core/backend/cpu/flush_subnormals.hpp"

namespace {

// Through volatile, so the compiler cannot fold the product at compile time.
float times_one(float x) {
  volatile float one = 1.0f;
  return x * one;
}

TEST(FlushSubnormals, ASubnormalIsZeroInsideTheScopeAndItselfAfter) {
#if !defined(__SSE__)
  GTEST_SKIP() << "x86 only";
#else
  const float tiny = FLT_MIN / 4;  // subnormal
  ASSERT_NE(times_one(tiny), 0.0f) << "outside the scope: IEEE subnormals";
  {
    const proteus::backend::FlushSubnormals flush;
    EXPECT_EQ(times_one(tiny), 0.0f) << "read as zero";
    EXPECT_EQ(times_one(FLT_MIN) * 0.25f, 0.0f) << "a result in the subnormal range is written as zero";
    EXPECT_EQ(times_one(FLT_MIN), FLT_MIN) << "normal floats untouched";
  }
  EXPECT_EQ(times_one(tiny), tiny) << "the caller's mode is back";
#endif
}

// The backend's own ops enter the scope (on the calling thread and on the pool's workers) and give
// the caller's mode back: a product that lands in the subnormal range comes out zero, and after
// the op the caller still sees IEEE subnormals. Without the scope the products would be FLT_MIN/4.
TEST(FlushSubnormals, TheCpuBackendsOpsFlushAndGiveTheCallersModeBack) {
#if !defined(__SSE__)
  GTEST_SKIP() << "x86 only";
#else
  const float tiny = FLT_MIN / 4;
  for (int threads : {1, 2}) {
    auto be = proteus::backend::make_cpu_backend<float>(threads);
    const size_t n = size_t{1} << 16;  // enough pieces for the pool's workers
    const std::vector<float> x(n, FLT_MIN), quarter(n, 0.25f);
    float* dx = be->alloc(n);
    float* dq = be->alloc(n);
    float* dout = be->alloc(n);
    be->upload(dx, x.data(), n);
    be->upload(dq, quarter.data(), n);
    be->multiply(dout, dx, dq, n);
    std::vector<float> out(n, 1.0f);
    be->download(out.data(), dout, n);
    size_t flushed = 0;
    for (float v : out) flushed += v == 0.0f;
    EXPECT_EQ(flushed, n) << threads << " thread(s): FLT_MIN x 0.25 is written as zero inside the op";
    // A matrix product (Eigen) over subnormal inputs: read as zero.
    const int N = 64, IC = 64, OC = 64;
    const std::vector<float> sub(size_t(N) * IC, tiny), ones(size_t(OC) * IC, 1.0f);
    float* din = be->alloc(sub.size());
    float* dw = be->alloc(ones.size());
    float* dmm = be->alloc(size_t(N) * OC);
    be->upload(din, sub.data(), sub.size());
    be->upload(dw, ones.data(), ones.size());
    be->matmul_forward(dmm, din, dw, N, IC, OC);
    std::vector<float> mm(size_t(N) * OC, 1.0f);
    be->download(mm.data(), dmm, mm.size());
    for (float v : mm) ASSERT_EQ(v, 0.0f) << threads << " thread(s): subnormal inputs are read as zero";
    EXPECT_EQ(times_one(tiny), tiny) << threads << " thread(s): the caller's mode is back after the ops";
    for (float* p : {dx, dq, dout, din, dw, dmm}) be->free(p);
  }
#endif
}

}  // namespace
