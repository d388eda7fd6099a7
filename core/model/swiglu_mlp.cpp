#include "core/model/swiglu_mlp.hpp"

namespace proteus::model {

template <class T>
SwigluMlp<T>::SwigluMlp(backend::Backend<T>& be, ParamTable& table, const std::string& prefix, int C, int F,
                        double std, double out_std)
    : be_(be), C_(C), F_(F) {
  w1_ = table.add(prefix + ".w1.weight", {F, C}, Init::normal, std, Decay::applied);
  w3_ = table.add(prefix + ".w3.weight", {F, C}, Init::normal, std, Decay::applied);
  w2_ = table.add(prefix + ".w2.weight", {C, F}, Init::normal, out_std, Decay::applied);
}

template <class T>
void SwigluMlp<T>::bind(T* params, T* grads) {
  W1 = params + w1_, W3 = params + w3_, W2 = params + w2_;
  dW1 = grads + w1_, dW3 = grads + w3_, dW2 = grads + w2_;
}

template <class T>
void SwigluMlp<T>::forward(T* out, const T* in, int B, int Tn) {
  N_ = B * Tn;
  in_ = in;
  const size_t nf = static_cast<size_t>(N_) * F_;
  be_.matmul_forward(gate_.reserve(be_, nf), in, W1, N_, C_, F_);
  be_.matmul_forward(up_.reserve(be_, nf), in, W3, N_, C_, F_);
  be_.swiglu_forward(hidden_.reserve(be_, nf), gate_, up_, nf);
  be_.matmul_forward(out, hidden_, W2, N_, F_, C_);
}

template <class T>
void SwigluMlp<T>::backward(T* din, const T* dout) {
  const size_t nf = static_cast<size_t>(N_) * F_;
  be_.matmul_backward(dhidden_.reserve(be_, nf), dW2, dout, hidden_, W2, N_, F_, C_);
  be_.swiglu_backward(dgate_.reserve(be_, nf), dup_.reserve(be_, nf), dhidden_, gate_, up_, nf);
  be_.matmul_backward(din, dW1, dgate_, in_, W1, N_, C_, F_);
  be_.matmul_backward(tmp_.reserve(be_, static_cast<size_t>(N_) * C_), dW3, dup_, in_, W3, N_, C_, F_);
  be_.axpy(din, T(1), tmp_, static_cast<size_t>(N_) * C_);
}

template class SwigluMlp<float>;
template class SwigluMlp<double>;

}  // namespace proteus::model
