// cuBLAS is opened when a CUDA backend first needs it, not when a program starts (it costs every
// process about 0.5 s and 200 MB, GPU or not). Runs without a device: only the library is opened.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "kernels/cublas_library.hpp"

namespace {

// Whether this process has cuBLAS mapped.
bool cublas_mapped() {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);)
    if (line.find("/libcublas.so") != std::string::npos) return true;
  return false;
}

TEST(CublasLibrary, IsMappedOnlyOnceABackendAsksForIt) {
  // This binary links the CUDA backend as every program of a CUDA build does.
  EXPECT_FALSE(cublas_mapped()) << "cuBLAS was loaded at start-up: a CPU-only run pays for it";
  const proteus::cuda::CublasLibrary* library = nullptr;
  try {
    library = &proteus::cuda::cublas();
  } catch (const std::exception& e) {
    const std::string why = e.what();
    EXPECT_NE(why.find(proteus::cuda::cublas_soname()), std::string::npos) << why;
    GTEST_SKIP() << "no cuBLAS library on this machine: " << why;
  }
  EXPECT_TRUE(cublas_mapped());
  EXPECT_NE(library->create, nullptr);
  EXPECT_NE(library->destroy, nullptr);
  EXPECT_NE(library->set_stream, nullptr);
  EXPECT_NE(library->set_math_mode, nullptr);
  EXPECT_NE(library->sgemm, nullptr);
  EXPECT_NE(library->sgemm_strided_batched, nullptr);
  ASSERT_NE(library->status_name, nullptr);
  EXPECT_STREQ(library->status_name(CUBLAS_STATUS_NOT_INITIALIZED), "CUBLAS_STATUS_NOT_INITIALIZED");
  EXPECT_EQ(&proteus::cuda::cublas(), library) << "opened once";
}

}  // namespace
