// A backend allocation that grows on demand and frees itself: activations are sized by the
// (B, T) of the current call, so evaluating at a longer length reallocates once. Buffer<T> holds
// the backend's scalars; Buffer<T, int32_t> (IdBuffer) its int32 ids (tokens, targets).
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "core/backend/ops/backend.hpp"

namespace proteus::model {

template <class T, class V = T>
class Buffer {
  static_assert(std::is_same_v<V, T> || std::is_same_v<V, int32_t>, "a backend holds its scalars and int32 ids");

 public:
  Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() { release(); }

  // Ensures room for n elements; contents are not kept across a growth.
  V* reserve(backend::Backend<T>& be, size_t n) {
    if (n > capacity_ || be_ != &be) {
      release();
      be_ = &be;
      if constexpr (std::is_same_v<V, T>)
        ptr_ = be.alloc(n ? n : 1);
      else
        ptr_ = be.alloc_int32(n ? n : 1);
      capacity_ = n;
    }
    return ptr_;
  }
  V* get() const { return ptr_; }
  operator V*() const { return ptr_; }

 private:
  void release() {
    if (ptr_) {
      if constexpr (std::is_same_v<V, T>)
        be_->free(ptr_);
      else
        be_->free_int32(ptr_);
    }
    ptr_ = nullptr;
    capacity_ = 0;
  }
  backend::Backend<T>* be_ = nullptr;
  V* ptr_ = nullptr;
  size_t capacity_ = 0;
};

template <class T>
using IdBuffer = Buffer<T, int32_t>;

}  // namespace proteus::model
