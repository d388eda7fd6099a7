// How the mask meets the L2 normalisation of q and k (the model's `model.mixer.normalize`):
//   normalize_then_mask  q, k normalised over all d_k rows, then masked by the gate (the paper's)
//   mask_then_normalize  re-normalised over the open key rows r(t): an early write has full strength
//   capped_renormalize   the same, but never scaled up past what an evenly spread unit key puts
//                        there (the norm's floor is sqrt(r / d))
// One row's arithmetic lives here so that the CPU backend's prefix_renorm op (the model),
// memory-op and the teaching panel share it; the CUDA kernel is checked against the CPU backend.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/name_table.hpp"
#include "core/memory/schedule.hpp"

namespace proteus::memory {

enum class KeyNormalize { normalize_then_mask, mask_then_normalize, capped_renormalize };

// The variants' one name table (model.mixer.normalize, memory-op's "normalize", the window), default
// (normalize_then_mask) first; the three below read it.
const std::vector<common::Named<KeyNormalize>>& name_table(KeyNormalize);
const std::vector<std::string>& key_normalize_names();
std::string_view key_normalize_name(KeyNormalize variant);
std::optional<KeyNormalize> key_normalize_from_name(std::string_view name);
// JSON (nlohmann finds this by argument-dependent lookup) holds a variant as its name, never a number.
template <class Json>
void to_json(Json& j, KeyNormalize variant) { j = std::string(key_normalize_name(variant)); }
inline bool renormalizes(KeyNormalize variant) { return variant != KeyNormalize::normalize_then_mask; }

// The model's epsilon under a row's norm (its l2norm and prefix_renorm use 1e-6).
inline constexpr double kKeyNormEps = 1e-6;

// The floor under the open rows' norm: sqrt(r / d) is what a unit key spread evenly puts there.
inline double open_rows_floor(int64_t r, int64_t d, bool capped, double eps) {
  return capped ? std::sqrt(static_cast<double>(r) / static_cast<double>(d)) : eps;
}

// One row of width d with r open rows (r in [1, d]). r >= d copies the row bit for bit (so E = 1
// is untouched) and returns 0; else out[0:r) = in[0:r) / max(||in[0:r)||, floor), the rest is
// copied, and the return value is ||in[0:r)|| (what the backward needs). Sums in double.
template <class T>
T renormalize_open_rows(const T* in, T* out, int64_t r, int64_t d, bool capped, T eps) {
  if (r >= d) {
    std::copy(in, in + d, out);
    return T(0);
  }
  double ss = 0;
  for (int64_t i = 0; i < r; ++i) ss += static_cast<double>(in[i]) * in[i];
  const double nr = std::sqrt(ss);
  const T s = static_cast<T>(1.0 / std::max(nr, open_rows_floor(r, d, capped, static_cast<double>(eps))));
  for (int64_t i = 0; i < r; ++i) out[i] = in[i] * s;
  std::copy(in + r, in + d, out + r);
  return static_cast<T>(nr);
}

// Its adjoint: din = dout on copied elements; on [0, r): (g - y (g . y)) / norm when the norm was
// above the floor, g / floor when the floor applied (out = y, norm = the forward's return value).
template <class T>
void renormalize_open_rows_backward(T* din, const T* dout, const T* out, T norm, int64_t r, int64_t d, bool capped,
                                    T eps) {
  if (r < d) {
    const double floor = open_rows_floor(r, d, capped, static_cast<double>(eps));
    const double nr = static_cast<double>(norm);
    if (nr > floor) {
      double dot = 0;
      for (int64_t i = 0; i < r; ++i) dot += static_cast<double>(dout[i]) * out[i];
      const T gy = static_cast<T>(dot), s = static_cast<T>(1.0 / nr);
      for (int64_t i = 0; i < r; ++i) din[i] = s * (dout[i] - out[i] * gy);
    } else {
      const T s = static_cast<T>(1.0 / floor);
      for (int64_t i = 0; i < r; ++i) din[i] = dout[i] * s;
    }
  }
  for (int64_t i = r < d ? r : 0; i < d; ++i) din[i] = dout[i];
}

// A whole sequence x (T, d_k) of one head as the rule sees it under `variant`: position t = n + 1
// re-normalised over the schedule's open key rows active_rows(t, d_v). norms (T) keeps each
// row's norm for the backward. normalize_then_mask copies x.
void renormalize_sequence(KeyNormalize variant, const Schedule& schedule, int64_t T, int64_t d_k, int64_t d_v,
                          const double* x, double* out, double* norms);
// Its adjoint for dout (T, d_k), given the forward's out and norms.
void renormalize_sequence_backward(KeyNormalize variant, const Schedule& schedule, int64_t T, int64_t d_k,
                                   int64_t d_v, const double* dout, const double* out, const double* norms,
                                   double* din);

}  // namespace proteus::memory
