// A backend allocation that grows on demand and frees itself: activations are sized by the
// (B, T) of the current call, so evaluating at a longer length reallocates once.
#pragma once
#include <cstddef>

#include "core/backend/backend.hpp"

namespace proteus::model {

template <class T>
class Buffer {
 public:
  Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() { release(); }

  // Ensures room for n elements; contents are not kept across a growth.
  T* reserve(backend::Backend<T>& be, size_t n) {
    if (n > capacity_ || be_ != &be) {
      release();
      be_ = &be;
      ptr_ = be.alloc(n ? n : 1);
      capacity_ = n;
    }
    return ptr_;
  }
  T* get() const { return ptr_; }
  operator T*() const { return ptr_; }

 private:
  void release() {
    if (ptr_) be_->free(ptr_);
    ptr_ = nullptr;
    capacity_ = 0;
  }
  backend::Backend<T>* be_ = nullptr;
  T* ptr_ = nullptr;
  size_t capacity_ = 0;
};

}  // namespace proteus::model
