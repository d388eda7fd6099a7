#include "core/memory/key_normalize.hpp"

#include <algorithm>

namespace proteus::memory {

const std::vector<std::string>& key_normalize_names() {
  static const std::vector<std::string> names = {"normalize_then_mask", "mask_then_normalize", "capped_renormalize"};
  return names;
}

std::string_view key_normalize_name(KeyNormalize variant) {
  return key_normalize_names()[static_cast<size_t>(variant)];
}

std::optional<KeyNormalize> key_normalize_from_name(std::string_view name) {
  const auto& names = key_normalize_names();
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end()) return std::nullopt;
  return static_cast<KeyNormalize>(it - names.begin());
}

void renormalize_sequence(KeyNormalize variant, const Schedule& schedule, int64_t T, int64_t d_k, int64_t d_v,
                          const double* x, double* out, double* norms) {
  const bool capped = variant == KeyNormalize::capped_renormalize;
  for (int64_t n = 0; n < T; ++n) {
    const int64_t r = renormalizes(variant) ? schedule.active_rows(n + 1, d_v) : d_k;
    norms[n] = renormalize_open_rows(x + n * d_k, out + n * d_k, r, d_k, capped, kKeyNormEps);
  }
}

void renormalize_sequence_backward(KeyNormalize variant, const Schedule& schedule, int64_t T, int64_t d_k,
                                   int64_t d_v, const double* dout, const double* out, const double* norms,
                                   double* din) {
  const bool capped = variant == KeyNormalize::capped_renormalize;
  for (int64_t n = 0; n < T; ++n) {
    const int64_t r = renormalizes(variant) ? schedule.active_rows(n + 1, d_v) : d_k;
    renormalize_open_rows_backward(din + n * d_k, dout + n * d_k, out + n * d_k, norms[n], r, d_k, capped,
                                   kKeyNormEps);
  }
}

}  // namespace proteus::memory
