// The SwiGLU MLP: out = W2 (silu(W1 x) ⊙ W3 x). Its hidden units are the blocks the
// parameter schedule unlocks over training (rows of W1 and W3, columns of W2).
#pragma once
#include "core/model/buffer.hpp"
#include "core/model/layer.hpp"

namespace proteus::model {

template <class T>
class SwigluMlp final : public Layer<T> {
 public:
  SwigluMlp(backend::Backend<T>& be, ParamTable& table, const std::string& prefix, int C, int F, double std,
            double out_std);
  void bind(T* params, T* grads) override;
  void forward(T* out, const T* in, int B, int Tn) override;
  void backward(T* din, const T* dout) override;

  // Offsets of W1 (F, C), W3 (F, C), W2 (C, F) in the flat vector (for the parameter schedule).
  size_t w1_offset() const { return w1_; }
  size_t w3_offset() const { return w3_; }
  size_t w2_offset() const { return w2_; }
  int hidden() const { return F_; }

 private:
  backend::Backend<T>& be_;
  int C_, F_, N_ = 0;
  size_t w1_, w3_, w2_;
  T *W1 = nullptr, *W3 = nullptr, *W2 = nullptr, *dW1 = nullptr, *dW3 = nullptr, *dW2 = nullptr;
  const T* in_ = nullptr;
  Buffer<T> gate_, up_, hidden_, dgate_, dup_, dhidden_, tmp_;  // (N, F) except tmp (N, C)
};

}  // namespace proteus::model
