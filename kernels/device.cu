#include "kernels/device.hpp"

#include <cuda_runtime.h>

#include <stdexcept>

namespace proteus::cuda {

bool device_available() {
  static const bool available = [] {
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
      cudaGetLastError();  // clear the sticky "no device" error for later calls
      return false;
    }
    return count > 0;
  }();
  return available;
}

std::string device_name() {
  if (!device_available()) return "";
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) return "";
  return prop.name;
}

void reset_device() { cudaDeviceReset(); }

void check(int status, const char* what) {
  if (status != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(static_cast<cudaError_t>(status)));
}

}  // namespace proteus::cuda
