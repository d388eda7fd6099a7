// The contract every layer of the model keeps: it registers its parameters in the model's
// table, binds to the flat parameter and gradient vectors, and runs a forward that saves what
// its backward needs. Parameter gradients accumulate; the input gradient is overwritten.
#pragma once
#include <string>

#include "core/backend/ops/backend.hpp"
#include "core/model/param_table.hpp"

namespace proteus::model {

template <class T>
class Layer {
 public:
  virtual ~Layer() = default;
  virtual void bind(T* params, T* grads) = 0;
  // in, out: (B, T, C); `in` must stay untouched until backward.
  virtual void forward(T* out, const T* in, int B, int Tn) = 0;
  virtual void backward(T* din, const T* dout) = 0;
};

}  // namespace proteus::model
