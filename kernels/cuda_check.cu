#include "kernels/cuda_check.hpp"

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "kernels/cublas_library.hpp"
#include "kernels/device.hpp"

namespace proteus::cuda {

void check_cublas(int status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + ": cuBLAS " +
                             cublas().status_name(static_cast<cublasStatus_t>(status)));
}

void check_launch(const char* what) { check(cudaGetLastError(), what); }

}  // namespace proteus::cuda
