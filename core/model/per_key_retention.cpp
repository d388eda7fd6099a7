#include "core/model/per_key_retention.hpp"

#include <cmath>
#include <vector>

namespace proteus::model {

template <class T>
PerKeyRetention<T>::PerKeyRetention(backend::Backend<T>& be, ParamTable& table, const std::string& prefix,
                                    PerKeyGate gate, int C, int H, int d, double std)
    : be_(be), gate_(gate), C_(C), H_(H), width_(H * d), rank_(gate == PerKeyGate::logsigmoid ? kRetentionRank : d) {
  if (gate_ == PerKeyGate::logsigmoid) {
    w1_ = table.add(prefix + ".gk_proj.0.weight", {rank_, C}, Init::normal, std, Decay::applied);
    w2_ = table.add(prefix + ".gk_proj.1.weight", {width_, rank_}, Init::normal, std, Decay::applied);
    b_ = table.add(prefix + ".gk_proj.1.bias", {width_}, Init::zeros, 0, Decay::none);
    return;
  }
  w1_ = table.add(prefix + ".f_proj.0.weight", {rank_, C}, Init::normal, std, Decay::applied);
  w2_ = table.add(prefix + ".f_proj.1.weight", {width_, rank_}, Init::normal, std, Decay::applied);
  a_log_ = table.add(prefix + ".A_log", {H}, Init::log_uniform_a, 0, Decay::none);
  b_ = table.add(prefix + ".dt_bias", {width_}, Init::dt_bias, 0, Decay::none);
  std::vector<T> ones(static_cast<size_t>(width_) * H, T(0));  // (H d, H): column j belongs to head j / d
  for (int j = 0; j < width_; ++j) ones[static_cast<size_t>(j) * H + j / d] = T(1);
  be_.upload(heads_to_columns_.reserve(be_, ones.size()), ones.data(), ones.size());
}

template <class T>
void PerKeyRetention<T>::decay_inputs(const T* params) {
  if (gate_ == PerKeyGate::logsigmoid) {
    be_.copy(bias_.reserve(be_, width_), params + b_, width_);
    be_.scale(bias_, T(-1), width_);
    be_.fill(log_scale_.reserve(be_, width_), static_cast<T>(-std::log(kRetentionNormalizer)), width_);
    return;
  }
  be_.copy(bias_.reserve(be_, width_), params + b_, width_);
  be_.matmul_forward(log_scale_.reserve(be_, width_), params + a_log_, heads_to_columns_, 1, H_, width_);
}

template <class T>
void PerKeyRetention<T>::forward(T* a, const T* in, const T* params, int N) {
  const size_t n = static_cast<size_t>(N) * width_;
  be_.matmul_forward(low_.reserve(be_, static_cast<size_t>(N) * rank_), in, params + w1_, N, C_, rank_);
  be_.matmul_forward(z_.reserve(be_, n), low_, params + w2_, N, rank_, width_);
  if (gate_ == PerKeyGate::logsigmoid) be_.scale(z_, T(-1), n);  // the op's input is -z
  decay_inputs(params);
  be_.decay_forward(a, z_, log_scale_, bias_, N, width_);
}

template <class T>
void PerKeyRetention<T>::backward(T* din, T* grads, const T* da, const T* a, const T* in, const T* params, int N) {
  const size_t n = static_cast<size_t>(N) * width_, nc = static_cast<size_t>(N) * C_;
  T* dz = dz_.reserve(be_, n);
  T* dbias = dbias_.reserve(be_, width_);
  be_.fill(dbias, T(0), width_);  // the op adds into its bias gradient
  T* dlog_scale = nullptr;
  if (gate_ == PerKeyGate::softplus) be_.fill(dlog_scale = dlog_scale_.reserve(be_, width_), T(0), width_);
  be_.decay_backward(dz, dlog_scale, dbias, da, a, z_, log_scale_, bias_, N, width_);
  if (gate_ == PerKeyGate::logsigmoid) {
    be_.axpy(grads + b_, T(-1), dbias, width_);
    be_.scale(dz, T(-1), n);  // now dL/dz
  } else {
    be_.axpy(grads + b_, T(1), dbias, width_);
    // Each head's A_log gathers its d columns' gradients: the ones matrix's adjoint.
    be_.matmul_backward(dA_log_.reserve(be_, H_), nullptr, dlog_scale, params + a_log_, heads_to_columns_, 1, H_, width_);
    be_.axpy(grads + a_log_, T(1), dA_log_, H_);
  }
  T* dlow = dlow_.reserve(be_, static_cast<size_t>(N) * rank_);
  be_.matmul_backward(dlow, grads + w2_, dz, low_, params + w2_, N, rank_, width_);
  be_.matmul_backward(tmp_.reserve(be_, nc), grads + w1_, dlow, in, params + w1_, N, C_, rank_);
  be_.axpy(din, T(1), tmp_, nc);
}

template class PerKeyRetention<float>;
template class PerKeyRetention<double>;

}  // namespace proteus::model
