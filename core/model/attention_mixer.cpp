#include "core/model/attention_mixer.hpp"

#include "core/model/op_support.hpp"

namespace proteus::model {

template <class T>
AttentionMixer<T>::AttentionMixer(backend::Backend<T>& be, ParamTable& table, const std::string& prefix, int C,
                                  int H, int d, double std, double out_std)
    : be_(be), C_(C), H_(H), d_(d) {
  wq_ = table.add(prefix + ".q_proj.weight", {H * d, C}, Init::normal, std, Decay::applied);
  wk_ = table.add(prefix + ".k_proj.weight", {H * d, C}, Init::normal, std, Decay::applied);
  wv_ = table.add(prefix + ".v_proj.weight", {H * d, C}, Init::normal, std, Decay::applied);
  wo_ = table.add(prefix + ".o_proj.weight", {C, H * d}, Init::normal, out_std, Decay::applied);
}

template <class T>
void AttentionMixer<T>::bind(T* params, T* grads) {
  Wq = params + wq_, Wk = params + wk_, Wv = params + wv_, Wo = params + wo_;
  dWq = grads + wq_, dWk = grads + wk_, dWv = grads + wv_, dWo = grads + wo_;
}

template <class T>
void AttentionMixer<T>::forward(T* out, const T* in, int B, int Tn) {
  B_ = B, T_ = Tn, in_ = in;
  const int N = B * Tn, HD = H_ * d_;
  backend::OpShape shape;
  shape.B = B, shape.T = Tn, shape.H = H_, shape.d = d_;
  require_op(be_, backend::Op::attention, shape);
  const size_t n = static_cast<size_t>(N) * HD;
  be_.matmul_forward(q_.reserve(be_, n), in, Wq, N, C_, HD);
  be_.matmul_forward(k_.reserve(be_, n), in, Wk, N, C_, HD);
  be_.matmul_forward(v_.reserve(be_, n), in, Wv, N, C_, HD);
  be_.attention_forward(att_.reserve(be_, n), probs_.reserve(be_, static_cast<size_t>(B) * H_ * Tn * Tn), q_, k_,
                        v_, B, Tn, H_, d_);
  be_.matmul_forward(out, att_, Wo, N, HD, C_);
}

template <class T>
void AttentionMixer<T>::backward(T* din, const T* dout) {
  const int N = B_ * T_, HD = H_ * d_;
  const size_t n = static_cast<size_t>(N) * HD, nc = static_cast<size_t>(N) * C_;
  be_.matmul_backward(datt_.reserve(be_, n), dWo, dout, att_, Wo, N, HD, C_);
  be_.attention_backward(dq_.reserve(be_, n), dk_.reserve(be_, n), dv_.reserve(be_, n), datt_, probs_, q_, k_, v_,
                         B_, T_, H_, d_);
  be_.matmul_backward(din, dWq, dq_, in_, Wq, N, C_, HD);
  be_.matmul_backward(tmp_.reserve(be_, nc), dWk, dk_, in_, Wk, N, C_, HD);
  be_.axpy(din, T(1), tmp_, nc);
  be_.matmul_backward(tmp_, dWv, dv_, in_, Wv, N, C_, HD);
  be_.axpy(din, T(1), tmp_, nc);
}

template class AttentionMixer<float>;
template class AttentionMixer<double>;

}  // namespace proteus::model
