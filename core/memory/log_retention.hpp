// The chunked forms carry a retention a_t as its log (cumulative decays g_t, factors e^{g_t - g_s}).
// A retention that underflows to 0 would give log 0 = -inf and then inf - inf = NaN, where the
// recurrent forms simply wipe the state; so the log is floored at kLogRetentionFloor (e^-30, about
// 1e-13: below float's resolution beside 1, and far enough from it that sums of a few floored steps
// keep their precision). Shared by the CPU chunked form and its CUDA twin, so the two cannot drift.
#pragma once
#include <cmath>

#include "core/common/host_device.hpp"

namespace proteus::memory {

inline constexpr double kLogRetentionFloor = -30.0;
inline constexpr double kRetentionFloor = 9.357622968840175e-14;  // e^kLogRetentionFloor

PROTEUS_HOST_DEVICE inline float clamped_log_retention(float a) {
  return a > static_cast<float>(kRetentionFloor) ? logf(a) : static_cast<float>(kLogRetentionFloor);
}
PROTEUS_HOST_DEVICE inline double clamped_log_retention(double a) {
  return a > kRetentionFloor ? log(a) : kLogRetentionFloor;
}

// dL/da from dL/dlog(a): divided by a above the floor, 0 below it (the floor's own gradient), so a
// retention of 0 gives a finite gradient instead of x / 0.
PROTEUS_HOST_DEVICE inline float retention_grad(float dlog_a, float a) {
  return a > static_cast<float>(kRetentionFloor) ? dlog_a / a : 0.0f;
}
PROTEUS_HOST_DEVICE inline double retention_grad(double dlog_a, double a) {
  return a > kRetentionFloor ? dlog_a / a : 0.0;
}

}  // namespace proteus::memory
