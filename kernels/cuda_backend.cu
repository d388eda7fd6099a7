// The CUDA backend's life and memory: the cuBLAS handle, allocations, copies, fill; and the
// factory the registry calls. The ops live beside their concept (matmul.cu, norm_ops.cu, ...).
#include "kernels/cuda_backend.hpp"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <stdexcept>

#include "kernels/block_reduce.cuh"
#include "kernels/cuda_check.hpp"
#include "kernels/device.hpp"
#include "kernels/device_scratch.cuh"

namespace proteus::cuda {
namespace {

__global__ void fill_kernel(float* dst, float value, size_t n) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    dst[i] = value;
}

}  // namespace

CudaBackend::CudaBackend() {
  int count = 0;
  check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  if (count < 1) throw std::runtime_error("cudaGetDeviceCount: no CUDA device");
  cublasHandle_t handle = nullptr;
  check_cublas(cublasCreate(&handle), "cublasCreate");
  cublas_ = handle;
  // Plain FP32 products: TF32 would cost parity with the float64 oracle (1e-3 relative).
  check_cublas(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
  check_cublas(cublasSetStream(handle, nullptr), "cublasSetStream");
}

CudaBackend::~CudaBackend() {
  if (cublas_) cublasDestroy(cublas_);
}

float* CudaBackend::alloc(size_t n) {
  void* p = nullptr;
  const size_t bytes = (n ? n : 1) * sizeof(float);
  check(cudaMalloc(&p, bytes), "alloc (cudaMalloc)");
  check(cudaMemset(p, 0, bytes), "alloc (cudaMemset)");
  return static_cast<float*>(p);
}

void CudaBackend::free(float* p) {
  // Called from destructors: a failure here is reported by the next checked call instead.
  if (p) cudaFree(p);
}

void CudaBackend::upload(float* dst, const float* host, size_t n) {
  if (n) check(cudaMemcpy(dst, host, n * sizeof(float), cudaMemcpyHostToDevice), "upload (cudaMemcpy)");
}

void CudaBackend::download(float* host, const float* src, size_t n) {
  if (n) check(cudaMemcpy(host, src, n * sizeof(float), cudaMemcpyDeviceToHost), "download (cudaMemcpy)");
}

void CudaBackend::fill(float* dst, float value, size_t n) {
  if (!n) return;
  fill_kernel<<<blocks_for(n, kThreads), kThreads>>>(dst, value, n);
  check_launch("fill");
}

void CudaBackend::copy(float* dst, const float* src, size_t n) {
  if (!n || dst == src) return;
  const bool overlap = dst < src + n && src < dst + n;
  if (overlap) {  // the CPU's copy is a memmove; cudaMemcpy is not, so go through a scratch copy
    DeviceScratch<float> tmp(n, nullptr, "copy (scratch)");
    check(cudaMemcpyAsync(tmp.get(), src, n * sizeof(float), cudaMemcpyDeviceToDevice, nullptr), "copy");
    check(cudaMemcpyAsync(dst, tmp.get(), n * sizeof(float), cudaMemcpyDeviceToDevice, nullptr), "copy");
    return;
  }
  check(cudaMemcpyAsync(dst, src, n * sizeof(float), cudaMemcpyDeviceToDevice, nullptr), "copy (cudaMemcpyAsync)");
}

void CudaBackend::synchronize() { check(cudaDeviceSynchronize(), "synchronize (cudaDeviceSynchronize)"); }

std::unique_ptr<backend::Backend<float>> make_cuda_backend(std::string* why_not) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count < 1) {
    if (why_not)
      *why_not = std::string("no CUDA device: ") +
                 (err != cudaSuccess ? cudaGetErrorString(err) : "the driver reports none");
    cudaGetLastError();  // clear the sticky error so later runtime calls are not blamed for it
    return nullptr;
  }
  try {
    return std::make_unique<CudaBackend>();
  } catch (const std::exception& e) {
    if (why_not) *why_not = std::string("CUDA backend could not start: ") + e.what();
    return nullptr;
  }
}

}  // namespace proteus::cuda
