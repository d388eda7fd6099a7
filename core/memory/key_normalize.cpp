#include "core/memory/key_normalize.hpp"

#include <algorithm>

namespace proteus::memory {

const std::vector<common::Named<KeyNormalize>>& name_table(KeyNormalize) {
  static const std::vector<common::Named<KeyNormalize>> table = {
      {KeyNormalize::normalize_then_mask, "normalize_then_mask"},
      {KeyNormalize::mask_then_normalize, "mask_then_normalize"},
      {KeyNormalize::capped_renormalize, "capped_renormalize"}};
  return table;
}

const std::vector<std::string>& key_normalize_names() {
  static const std::vector<std::string> names = common::choice_names<KeyNormalize>();
  return names;
}

std::string_view key_normalize_name(KeyNormalize variant) { return common::choice_name(variant); }
std::optional<KeyNormalize> key_normalize_from_name(std::string_view name) {
  return common::choice_from_name<KeyNormalize>(name);
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
