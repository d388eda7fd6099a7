// Unlock-point edits: re-spread by linear interpolation in block index, drags clamped between
// neighbours.
#include "core/memory/schedule_edit.hpp"

#include <algorithm>
#include <cmath>

namespace proteus::memory {

std::vector<int64_t> respread_unlocks(const std::vector<int64_t>& u, int64_t E, int64_t N) {
  if (u.empty() || E < 1) return {};
  std::vector<int64_t> out(static_cast<size_t>(E));
  const int64_t E_old = static_cast<int64_t>(u.size());
  for (int64_t j = 0; j < E; ++j) {
    const double x = E > 1 ? double(j) / double(E) * double(E_old) : 0.0;  // fractional index into u
    const int64_t i = std::min<int64_t>(E_old - 1, static_cast<int64_t>(std::floor(x)));
    const double f = x - double(i);
    const double next = i + 1 < E_old ? double(u[i + 1]) : double(N);
    out[j] = static_cast<int64_t>(std::llround(double(u[i]) + f * (next - double(u[i]))));
  }
  out[0] = 1;
  for (size_t j = 1; j < out.size(); ++j) out[j] = std::clamp<int64_t>(out[j], out[j - 1], std::max<int64_t>(N, 1));
  return out;
}

std::pair<int64_t, int64_t> unlock_drag_range(const std::vector<int64_t>& u, int j, int64_t N) {
  if (j <= 0 || j >= static_cast<int>(u.size())) return {1, 1};
  const int64_t lo = u[j - 1];
  const int64_t hi = j + 1 < static_cast<int>(u.size()) ? u[j + 1] : N;
  return {lo, std::max(lo, hi)};
}

int64_t drag_unlock(std::vector<int64_t>& u, int j, int64_t position, int64_t N) {
  if (j <= 0 || j >= static_cast<int>(u.size())) return j == 0 ? 1 : -1;
  const auto [lo, hi] = unlock_drag_range(u, j, N);
  u[j] = std::clamp(position, lo, hi);
  return u[j];
}

void clamp_unlocks(std::vector<int64_t>& u, int64_t N) {
  for (auto& x : u) x = std::min(x, N);
}

}  // namespace proteus::memory
