#include "kernels/cuda_check.hpp"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "kernels/device.hpp"

namespace proteus::cuda {

void check_cublas(int status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + ": cuBLAS " +
                             cublasGetStatusName(static_cast<cublasStatus_t>(status)));
}

void check_launch(const char* what) { check(cudaGetLastError(), what); }

}  // namespace proteus::cuda
