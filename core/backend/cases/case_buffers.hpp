// The buffers of one op case on one backend (ggml's test-backend-ops habits): every buffer is
// named and has guard elements on both sides, filled with a sentinel that must survive the op
// (an out-of-bounds write shows up as guard damage, an out-of-bounds read as a NaN); outputs the
// op must overwrite start as garbage, outputs it must add to start at non-zero values. Freed
// with the scope.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/backend/ops/backend.hpp"

namespace proteus::backend {

template <class T>
class CaseBuffers {
 public:
  static constexpr size_t kGuard = 16;  // elements each side: 64 bytes of float keep alignment
  static constexpr double kGarbage = -7777.0;  // what an overwrite-output holds before the op

  explicit CaseBuffers(Backend<T>& be) : be_(be) {}
  CaseBuffers(const CaseBuffers&) = delete;
  CaseBuffers& operator=(const CaseBuffers&) = delete;
  ~CaseBuffers();

  Backend<T>& backend() const { return be_; }

  // An input the op only reads.
  const T* input(const std::string& name, const std::vector<double>& values);
  // An output the op must overwrite: every element starts as kGarbage.
  T* output(const std::string& name, size_t n);
  // A buffer the op adds to or updates in place (parameter gradients, AdamW's moments, scale's x):
  // it starts at `start`, non-zero, so a backend that overwrites instead of adding is caught.
  T* inout(const std::string& name, const std::vector<double>& start);
  const int32_t* ids(const std::string& name, const std::vector<int32_t>& values);

  // After the op: n elements from p (a buffer of this scope or a range inside one), as double.
  std::vector<double> read(const T* p, size_t n);

  // One line per damaged guard ("dw: 3 guard elements after the end overwritten"); empty when
  // every guard holds its sentinel. Synchronises the backend.
  std::vector<std::string> guard_damage();

 private:
  template <class V>
  struct Allocation {
    std::string name;
    V* base = nullptr;  // kGuard + n + kGuard elements
    size_t n = 0;
  };
  T* place(const std::string& name, const std::vector<T>& values);

  Backend<T>& be_;
  std::vector<Allocation<T>> scalars_;
  std::vector<Allocation<int32_t>> ids_;
};

extern template class CaseBuffers<float>;
extern template class CaseBuffers<double>;

}  // namespace proteus::backend
