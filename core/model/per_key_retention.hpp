// The retention of a rule that decays each key row at its own rate (rule_traits' per_key_retention),
// as fla's GLA makes it: a rank-16 projection, log-sigmoid, divided by 16,
//   log a_t = logsigmoid(x_t W_1 W_2 + b) / 16      (N, H d_k), every entry in (0, 1]
// (gate_low_rank_dim 16, gate_logit_normalizer 16; parameters named as fla's gk_proj, b zero at
// the start, so a starts near 0.5^(1/16) = 0.958). logsigmoid(z) = -softplus(-z), so it runs on
// the backend's decay op (a = exp(-exp(A_log) softplus(in + dt_bias))) with A_log = log(1/16),
// in = -z and dt_bias = -b: no op of its own, on every backend.
#pragma once
#include <string>

#include "core/backend/ops/backend.hpp"
#include "core/model/buffer.hpp"
#include "core/model/param_table.hpp"

namespace proteus::model {

inline constexpr int kRetentionRank = 16;        // fla's gate_low_rank_dim
inline constexpr double kRetentionNormalizer = 16;  // fla's gate_logit_normalizer

template <class T>
class PerKeyRetention {
 public:
  // Registers W_1 (rank, C), W_2 (width, rank) and b (width) under prefix + ".gk_proj".
  PerKeyRetention(backend::Backend<T>& be, ParamTable& table, const std::string& prefix, int C, int width, double std);

  // a (N, width) from in (N, C); keeps what backward needs.
  void forward(T* a, const T* in, const T* params, int N);
  // din += dL/din; grads of W_1, W_2, b accumulate. da: (N, width), a: forward's output.
  void backward(T* din, T* grads, const T* da, const T* a, const T* in, const T* params, int N);

 private:
  backend::Backend<T>& be_;
  int C_, width_;
  size_t w1_ = 0, w2_ = 0, b_ = 0;
  Buffer<T> low_, neg_z_, neg_b_, log_scale_, dneg_z_, dlow_, dneg_b_, tmp_;
};

}  // namespace proteus::model
