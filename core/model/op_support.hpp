// The model asks its backend before relying on an op at a shape (ggml's supports_op): a backend
// with limits (the CUDA memory-rule kernels' value width, say) refuses a model it cannot run
// with one line that names the op and the limit, instead of failing inside a kernel.
#pragma once
#include <string>

#include "core/backend/ops/backend.hpp"
#include "core/common/input_error.hpp"

namespace proteus::model {

// Throws InputError("device", ...) when `be` does not run `op` at `shape`.
template <class T>
void require_op(const backend::Backend<T>& be, backend::Op op, const backend::OpShape& shape) {
  std::string why;
  if (be.supports(op, shape, &why))
    return;
  throw InputError("device", "the " + be.name() + " backend cannot run " + backend::op_name(op) + " for this model" +
                                 (why.empty() ? std::string() : " (" + why + ")") + "; choose device cpu");
}

}  // namespace proteus::model
