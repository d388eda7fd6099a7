// The CUDA backend's life and memory: the cuBLAS handle, allocations (float and int32), copies,
// fill, the limits it states (supports); and the factory the registry calls. The ops live beside
// their concept (matmul.cu, norm_ops.cu, ...).
#include "kernels/cuda_backend.hpp"

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "kernels/block_reduce.cuh"
#include "kernels/cublas_library.hpp"
#include "kernels/cuda_check.hpp"
#include "kernels/device.hpp"
#include "kernels/device_scratch.cuh"
#include "core/memory/rule_descriptor.hpp"
#include "kernels/rule_limits.hpp"

namespace proteus::cuda {
namespace {

constexpr int64_t kMaxGridY = 65535;  // CUDA's grid y limit: attention runs one row per (batch, head)

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
  check_cublas(cublas().create(&handle), "cublasCreate");
  cublas_ = handle;
  // Plain FP32 products: TF32 would cost parity with the float64 oracle (1e-3 relative).
  check_cublas(cublas().set_math_mode(handle, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
  check_cublas(cublas().set_stream(handle, nullptr), "cublasSetStream");
}

CudaBackend::~CudaBackend() {
  if (cublas_) cublas().destroy(cublas_);
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

int32_t* CudaBackend::alloc_int32(size_t n) {
  void* p = nullptr;
  const size_t bytes = (n ? n : 1) * sizeof(int32_t);
  check(cudaMalloc(&p, bytes), "alloc_int32 (cudaMalloc)");
  check(cudaMemset(p, 0, bytes), "alloc_int32 (cudaMemset)");
  return static_cast<int32_t*>(p);
}

void CudaBackend::free_int32(int32_t* p) {
  if (p) cudaFree(p);
}

void CudaBackend::upload_int32(int32_t* dst, const int32_t* host, size_t n) {
  if (n) check(cudaMemcpy(dst, host, n * sizeof(int32_t), cudaMemcpyHostToDevice), "upload_int32 (cudaMemcpy)");
}

void CudaBackend::download_int32(int32_t* host, const int32_t* src, size_t n) {
  if (n) check(cudaMemcpy(host, src, n * sizeof(int32_t), cudaMemcpyDeviceToHost), "download_int32 (cudaMemcpy)");
}

bool CudaBackend::supports(Op op, const backend::OpShape& s, std::string* why_not) const {
  auto no = [&](std::string why) {
    if (why_not) *why_not = std::move(why);
    return false;
  };
  switch (op) {
    case Op::memory_rule:
    case Op::memory_block_norms: {
      // The model needs the backward too: it keeps the most value-width vectors in shared memory.
      if (s.d_v > kMaxRuleValueWidth)
        return no("value width " + std::to_string(s.d_v) + " > " + std::to_string(kMaxRuleValueWidth) +
                  ", the memory-rule kernels' shared memory");
      if (static_cast<int64_t>(s.d_k) * s.d_v > kMaxRuleStateElements)
        return no("state of " + std::to_string(static_cast<int64_t>(s.d_k) * s.d_v) + " elements > " +
                  std::to_string(kMaxRuleStateElements));
      // The kernels take no table of open widths: value_rows / layer run as the ungated rule on
      // masked inputs (backend::OpenWidthsRule composes that, where the rule allows it).
      if (s.open_widths) return no("the memory-rule kernels take no table of open widths");
      // A row of retentions a step (per_key_retention) only where the recurrent kernels read one.
      if (!kernels_read_retention_of(s.rule))
        return no("rule " + std::string(memory::rule_name(s.rule)) +
                  " decays each key row at its own rate outside a single hebbian write; the memory-rule kernels "
                  "take a row of retentions there only");
      return true;
    }
    case Op::attention:
      // One grid row per (batch, head): CUDA's grid y dimension.
      if (static_cast<int64_t>(s.B) * s.H > kMaxGridY)
        return no("batch x heads " + std::to_string(static_cast<int64_t>(s.B) * s.H) + " > " +
                  std::to_string(kMaxGridY));
      return true;
    default:
      return true;
  }
}

void CudaBackend::synchronize() { check(cudaDeviceSynchronize(), "synchronize (cudaDeviceSynchronize)"); }

bool CudaBackend::device_lost() {
  if (cudaDeviceSynchronize() == cudaSuccess) return false;
  cudaGetLastError();  // clears an error that is not sticky (a bad launch configuration, say)
  return cudaDeviceSynchronize() != cudaSuccess;  // still failing: the context is poisoned
}

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
