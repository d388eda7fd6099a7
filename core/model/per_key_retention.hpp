// The retention of a rule that decays each key row at its own rate (rule_traits' per_key_retention),
// made as fla's layer of the rule's family makes it. Both run on the backend's decay op
// (a = exp(-exp(A_log) softplus(in + dt_bias))), so no op of their own, on every backend:
//  - the hebbian write (fla's GLA): a rank-16 projection, log-sigmoid, divided by 16,
//      log a_t = logsigmoid(x_t W_1 W_2 + b) / 16      (N, H d_k), every entry in (0, 1]
//    (gate_low_rank_dim 16, gate_logit_normalizer 16; parameters named as fla's gk_proj, b zero at
//    the start, so a starts near 0.5^(1/16) = 0.958). logsigmoid(z) = -softplus(-z): the decay op
//    with A_log = log(1/16), in = -z and dt_bias = -b.
//  - the erasing write (fla's KDA): a projection of rank d_head, then per head h and key dimension,
//      log a_t = -exp(A_log[h]) softplus(x_t W_1 W_2 + dt_bias)
//    (parameters named as fla's f_proj, A_log and dt_bias, initialised as the scalar gate's:
//    A_log = log U(1, 16) per head, dt_bias Mamba's per key dimension). A_log reaches the op's
//    (H d_k) columns through a fixed (H d_k, H) matrix of ones, one block per head.
#pragma once
#include <string>

#include "core/backend/ops/backend.hpp"
#include "core/memory/rule_traits.hpp"
#include "core/model/buffer.hpp"
#include "core/model/param_table.hpp"

namespace proteus::model {

inline constexpr int kRetentionRank = 16;        // fla's gate_low_rank_dim
inline constexpr double kRetentionNormalizer = 16;  // fla's gate_logit_normalizer

// Which of the two gates above a rule's row of retentions comes from: its family's.
enum class PerKeyGate { logsigmoid, softplus };
constexpr PerKeyGate per_key_gate(const memory::RuleTraits& t) {
  return t.family == memory::RuleFamily::hebbian ? PerKeyGate::logsigmoid : PerKeyGate::softplus;
}

template <class T>
class PerKeyRetention {
 public:
  // Registers the gate's parameters under prefix; H heads of d key dimensions read from width C.
  PerKeyRetention(backend::Backend<T>& be, ParamTable& table, const std::string& prefix, PerKeyGate gate, int C, int H,
                  int d, double std);

  // a (N, H d) from in (N, C); keeps what backward needs.
  void forward(T* a, const T* in, const T* params, int N);
  // din += dL/din; the gate's parameter gradients accumulate. da: (N, H d), a: forward's output.
  void backward(T* din, T* grads, const T* da, const T* a, const T* in, const T* params, int N);

 private:
  // The decay op's per-column log scale and bias (width_), from the parameters.
  void decay_inputs(const T* params);

  backend::Backend<T>& be_;
  PerKeyGate gate_;
  int C_, H_, width_, rank_;
  size_t w1_ = 0, w2_ = 0, b_ = 0, a_log_ = 0;
  Buffer<T> low_, z_, bias_, log_scale_, heads_to_columns_, dz_, dlow_, dbias_, dlog_scale_, dA_log_, tmp_;
};

}  // namespace proteus::model
