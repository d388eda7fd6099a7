// Temporary device memory for one op (stream-ordered: freed after the work queued before it),
// and the host-to-device copy of the index arrays the op list passes on the host (tokens,
// targets, the schedule's active prefix per step).
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

#include "kernels/device.hpp"

namespace proteus::cuda {

template <class V>
class DeviceScratch {
 public:
  DeviceScratch(size_t n, cudaStream_t stream, const char* what) : stream_(stream) {
    check(cudaMallocAsync(reinterpret_cast<void**>(&ptr_), (n ? n : 1) * sizeof(V), stream), what);
  }
  // A device copy of host values (synchronous for the host: the source may go at once).
  DeviceScratch(const V* host, size_t n, cudaStream_t stream, const char* what) : DeviceScratch(n, stream, what) {
    if (n) check(cudaMemcpy(ptr_, host, n * sizeof(V), cudaMemcpyHostToDevice), what);
  }
  DeviceScratch(const DeviceScratch&) = delete;
  DeviceScratch& operator=(const DeviceScratch&) = delete;
  ~DeviceScratch() { cudaFreeAsync(ptr_, stream_); }

  V* get() const { return ptr_; }
  void zero(size_t n, const char* what) {
    if (n) check(cudaMemsetAsync(ptr_, 0, n * sizeof(V), stream_), what);
  }

 private:
  V* ptr_ = nullptr;
  cudaStream_t stream_;
};

inline int blocks_for(size_t n, int threads) {
  const size_t b = (n + threads - 1) / threads;
  return static_cast<int>(b < 65535u * 16u ? b : 65535u * 16u);  // grid-stride loops cover the rest
}

}  // namespace proteus::cuda
