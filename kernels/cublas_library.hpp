// cuBLAS, opened when the first CUDA backend is made instead of when a program starts. Linked, it
// costs every process of a CUDA build (a CPU run, `proteus --help`, each test) about 0.5 s and
// 200 MB in libcublasLt's static constructors, GPU or not; and a machine without the toolkit's
// libraries could not start `proteus` at all, where now it falls back to the CPU with a message.
#pragma once
#include <cublas_v2.h>

namespace proteus::cuda {

// The functions the backend calls, by their exported names (cublas_v2.h maps cublasCreate to
// cublasCreate_v2 and so on).
struct CublasLibrary {
  decltype(&::cublasCreate_v2) create = nullptr;
  decltype(&::cublasDestroy_v2) destroy = nullptr;
  decltype(&::cublasSetStream_v2) set_stream = nullptr;
  decltype(&::cublasSetMathMode) set_math_mode = nullptr;
  decltype(&::cublasGetStatusName) status_name = nullptr;
  decltype(&::cublasSgemm_v2) sgemm = nullptr;
  decltype(&::cublasSgemmStridedBatched) sgemm_strided_batched = nullptr;
};

// The library's major version as built against: libcublas.so.<major>.
const char* cublas_soname();

// Opens cuBLAS on the first call (once, from any thread): by its soname on the loader's path, else
// beside the CUDA runtime this program uses. Throws std::runtime_error naming the library, or the
// missing function, and why.
const CublasLibrary& cublas();

}  // namespace proteus::cuda
