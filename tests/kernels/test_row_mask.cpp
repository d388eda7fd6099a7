// The row-mask kernels against their CPU twins (core/memory/row_mask.hpp). Label `gpu`:
// without a device every test skips.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "core/memory/row_mask.hpp"
#include "kernels/device.hpp"
#include "kernels/row_mask.cuh"

namespace {

using proteus::memory::Schedule;

template <class T>
struct DeviceBuffer {
  T* ptr = nullptr;
  explicit DeviceBuffer(size_t n) { proteus::cuda::check(cudaMalloc(&ptr, n * sizeof(T) + 1), "cudaMalloc"); }
  ~DeviceBuffer() { cudaFree(ptr); }
  void upload(const std::vector<T>& h) {
    proteus::cuda::check(cudaMemcpy(ptr, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice), "upload");
  }
  std::vector<T> download(size_t n) const {
    std::vector<T> h(n);
    proteus::cuda::check(cudaMemcpy(h.data(), ptr, n * sizeof(T), cudaMemcpyDeviceToHost), "download");
    return h;
  }
};

class RowMaskKernel : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!proteus::cuda::device_available()) GTEST_SKIP() << "no CUDA device";
  }
};

TEST_F(RowMaskKernel, MaskMatchesCpuBitForBit) {
  const int64_t B = 3, T = 301, H = 4, d_k = 64, d_v = 32;
  const auto schedule = Schedule::uniform(d_k * d_v, 16, 256);  // horizon inside T: the tail is full
  const auto rows = proteus::memory::active_rows_table(schedule, T, d_v);
  std::mt19937 rng(7);
  std::normal_distribution<float> normal;
  std::vector<float> x(B * T * H * d_k);
  for (auto& e : x) e = normal(rng);
  std::vector<float> want(x.size());
  proteus::memory::row_mask_forward(x.data(), rows.data(), B, T, H, d_k, want.data());

  DeviceBuffer<float> dx(x.size()), dout(x.size());
  DeviceBuffer<int32_t> drows(rows.size());
  dx.upload(x);
  drows.upload(rows);
  proteus::cuda::row_mask_forward(dx.ptr, drows.ptr, B, T, H, d_k, dout.ptr);
  proteus::cuda::check(cudaDeviceSynchronize(), "row_mask_forward");
  const auto got = dout.download(x.size());
  EXPECT_EQ(0, std::memcmp(got.data(), want.data(), want.size() * sizeof(float)));
}

TEST_F(RowMaskKernel, LogDecayMatchesCpu) {
  const int64_t B = 2, T = 129, H = 3, d_k = 32, d_v = 16;
  const auto schedule = Schedule::geometric(d_k * d_v, 8, T);
  const auto rows = proteus::memory::active_rows_table(schedule, T, d_v);
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> unit(0.05f, 1.0f);
  std::vector<float> a(B * T * H);
  for (auto& e : a) e = unit(rng);
  a[5] = 1.0f;  // no decay must give exactly 0
  std::vector<float> want(a.size() * d_k);
  proteus::memory::masked_log_decay(a.data(), rows.data(), B, T, H, d_k, want.data());

  DeviceBuffer<float> da(a.size()), dout(want.size());
  DeviceBuffer<int32_t> drows(rows.size());
  da.upload(a);
  drows.upload(rows);
  proteus::cuda::masked_log_decay(da.ptr, drows.ptr, B, T, H, d_k, dout.ptr);
  proteus::cuda::check(cudaDeviceSynchronize(), "masked_log_decay");
  const auto got = dout.download(want.size());
  for (size_t n = 0; n < want.size(); ++n) {
    if (want[n] == 0.0f) {
      ASSERT_EQ(got[n], 0.0f) << "locked or undecayed element " << n;
    } else {
      ASSERT_NEAR(got[n], want[n], 2e-6f * std::fabs(want[n]) + 1e-7f) << "element " << n;
    }
  }
}

}  // namespace
