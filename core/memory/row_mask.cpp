#include "core/memory/row_mask.hpp"

#include <cmath>

namespace proteus::memory {

std::vector<int32_t> active_rows_table(const Schedule& schedule, int64_t T, int64_t d_v) {
  if (!schedule.row_aligned(d_v))
    throw InputError("E", "blocks of E = " + std::to_string(schedule.E()) + " over D = " +
                              std::to_string(schedule.D()) + " do not fall on rows of d_v = " +
                              std::to_string(d_v) + " (the block size D / E must be a multiple of d_v, e.g. E dividing d_k)");
  std::vector<int32_t> rows(T);
  for (int64_t n = 0; n < T; ++n) rows[n] = static_cast<int32_t>(schedule.active_rows(n + 1, d_v));
  return rows;
}

template <class T>
void row_mask_forward(const T* x, const int32_t* rows, int64_t B, int64_t Tn, int64_t H, int64_t d_k, T* out) {
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < Tn; ++t)
      for (int64_t h = 0; h < H; ++h) {
        const int64_t base = ((b * Tn + t) * H + h) * d_k;
        for (int64_t i = 0; i < d_k; ++i) out[base + i] = i < rows[t] ? x[base + i] : T(0);
      }
}

template <class T>
void masked_log_decay(const T* a, const int32_t* rows, int64_t B, int64_t Tn, int64_t H, int64_t d_k, T* out) {
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < Tn; ++t)
      for (int64_t h = 0; h < H; ++h) {
        const int64_t bth = (b * Tn + t) * H + h;
        const T log_a = std::log(a[bth]);
        for (int64_t i = 0; i < d_k; ++i) out[bth * d_k + i] = i < rows[t] ? log_a : T(0);
      }
}

template void row_mask_forward<float>(const float*, const int32_t*, int64_t, int64_t, int64_t, int64_t, float*);
template void row_mask_forward<double>(const double*, const int32_t*, int64_t, int64_t, int64_t, int64_t, double*);
template void masked_log_decay<float>(const float*, const int32_t*, int64_t, int64_t, int64_t, int64_t, float*);
template void masked_log_decay<double>(const double*, const int32_t*, int64_t, int64_t, int64_t, int64_t, double*);

}  // namespace proteus::memory
