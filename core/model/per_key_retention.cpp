#include "core/model/per_key_retention.hpp"

#include <cmath>

namespace proteus::model {

template <class T>
PerKeyRetention<T>::PerKeyRetention(backend::Backend<T>& be, ParamTable& table, const std::string& prefix, int C,
                                    int width, double std)
    : be_(be), C_(C), width_(width) {
  w1_ = table.add(prefix + ".gk_proj.0.weight", {kRetentionRank, C}, Init::normal, std, Decay::applied);
  w2_ = table.add(prefix + ".gk_proj.1.weight", {width, kRetentionRank}, Init::normal, std, Decay::applied);
  b_ = table.add(prefix + ".gk_proj.1.bias", {width}, Init::zeros, 0, Decay::none);
}

template <class T>
void PerKeyRetention<T>::forward(T* a, const T* in, const T* params, int N) {
  const size_t n = static_cast<size_t>(N) * width_;
  be_.matmul_forward(low_.reserve(be_, static_cast<size_t>(N) * kRetentionRank), in, params + w1_, N, C_, kRetentionRank);
  be_.matmul_forward(neg_z_.reserve(be_, n), low_, params + w2_, N, kRetentionRank, width_);
  be_.scale(neg_z_, T(-1), n);
  be_.copy(neg_b_.reserve(be_, width_), params + b_, width_);
  be_.scale(neg_b_, T(-1), width_);
  be_.fill(log_scale_.reserve(be_, width_), static_cast<T>(-std::log(kRetentionNormalizer)), width_);
  be_.decay_forward(a, neg_z_, log_scale_, neg_b_, N, width_);
}

template <class T>
void PerKeyRetention<T>::backward(T* din, T* grads, const T* da, const T* a, const T* in, const T* params, int N) {
  const size_t n = static_cast<size_t>(N) * width_, nc = static_cast<size_t>(N) * C_;
  T* dneg_z = dneg_z_.reserve(be_, n);
  T* dneg_b = dneg_b_.reserve(be_, width_);
  be_.fill(dneg_b, T(0), width_);  // the op adds into its bias gradient
  be_.decay_backward(dneg_z, nullptr, dneg_b, da, a, neg_z_, log_scale_, neg_b_, N, width_);
  be_.axpy(grads + b_, T(-1), dneg_b, width_);
  be_.scale(dneg_z, T(-1), n);  // now dL/dz
  T* dlow = dlow_.reserve(be_, static_cast<size_t>(N) * kRetentionRank);
  be_.matmul_backward(dlow, grads + w2_, dneg_z, low_, params + w2_, N, kRetentionRank, width_);
  be_.matmul_backward(tmp_.reserve(be_, nc), grads + w1_, dlow, in, params + w1_, N, C_, kRetentionRank);
  be_.axpy(din, T(1), tmp_, nc);
}

template class PerKeyRetention<float>;
template class PerKeyRetention<double>;

}  // namespace proteus::model
