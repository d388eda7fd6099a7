// matmul on cuBLAS. Row-major (N, IC) x (OC, IC)^T is, read column-major, the product
// (IC, OC)^T (IC, N): one Sgemm per direction, no transposed copies. dw accumulates (beta = 1).
#include <cuda_runtime.h>

#include "kernels/cublas_library.hpp"
#include "kernels/cuda_backend.hpp"
#include "kernels/cuda_check.hpp"
#include "kernels/device.hpp"

namespace proteus::cuda {

void CudaBackend::matmul_forward(float* out, const float* in, const float* w, int N, int IC, int OC) {
  if (N <= 0 || OC <= 0) return;
  if (IC <= 0) {  // an empty sum: out is zero (cuBLAS leaves C alone when k = 0)
    check(cudaMemsetAsync(out, 0, static_cast<size_t>(N) * OC * sizeof(float)), "matmul_forward");
    return;
  }
  const float one = 1.0f, zero = 0.0f;
  // out^T (OC, N) = w (OC, IC) . in^T (IC, N), all column-major views of the row-major buffers.
  check_cublas(cublas().sgemm(cublas_, CUBLAS_OP_T, CUBLAS_OP_N, OC, N, IC, &one, w, IC, in, IC, &zero, out, OC),
               "matmul_forward (cublasSgemm)");
}

void CudaBackend::matmul_backward(float* din, float* dw, const float* dout, const float* in, const float* w, int N,
                                  int IC, int OC) {
  if (N < 0 || IC <= 0 || OC < 0) return;
  const float one = 1.0f, zero = 0.0f;
  if (din && N > 0) {
    if (OC == 0) {
      check(cudaMemsetAsync(din, 0, static_cast<size_t>(N) * IC * sizeof(float)), "matmul_backward (din)");
    } else {
      // din^T (IC, N) = w^T (IC, OC) . dout^T (OC, N)
      check_cublas(cublas().sgemm(cublas_, CUBLAS_OP_N, CUBLAS_OP_N, IC, N, OC, &one, w, IC, dout, OC, &zero, din, IC),
                   "matmul_backward din (cublasSgemm)");
    }
  }
  if (dw && N > 0 && OC > 0) {
    // dw^T (IC, OC) += in^T (IC, N) . dout (N, OC)
    check_cublas(cublas().sgemm(cublas_, CUBLAS_OP_N, CUBLAS_OP_T, IC, OC, N, &one, in, IC, dout, OC, &one, dw, IC),
                 "matmul_backward dw (cublasSgemm)");
  }
}

}  // namespace proteus::cuda
