// The Transformer reference mixer: causal softmax attention over H heads of width d, no
// positional encoding (the causal mask alone orders tokens), with q, k, v and output maps.
#pragma once
#include "core/model/buffer.hpp"
#include "core/model/layer.hpp"

namespace proteus::model {

template <class T>
class AttentionMixer final : public Layer<T> {
 public:
  AttentionMixer(backend::Backend<T>& be, ParamTable& table, const std::string& prefix, int C, int H, int d,
                 double std, double out_std);
  void bind(T* params, T* grads) override;
  void forward(T* out, const T* in, int B, int Tn) override;
  void backward(T* din, const T* dout) override;

 private:
  backend::Backend<T>& be_;
  int C_, H_, d_, B_ = 0, T_ = 0;
  size_t wq_, wk_, wv_, wo_;
  T *Wq = nullptr, *Wk = nullptr, *Wv = nullptr, *Wo = nullptr;
  T *dWq = nullptr, *dWk = nullptr, *dWv = nullptr, *dWo = nullptr;
  const T* in_ = nullptr;
  Buffer<T> q_, k_, v_, att_, probs_, dq_, dk_, dv_, datt_, tmp_;
};

}  // namespace proteus::model
