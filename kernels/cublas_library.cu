#include "kernels/cublas_library.hpp"

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <filesystem>
#include <stdexcept>
#include <string>

namespace proteus::cuda {
namespace {

#define PROTEUS_CUBLAS_TEXT(x) #x
#define PROTEUS_CUBLAS_MAJOR(x) PROTEUS_CUBLAS_TEXT(x)
constexpr const char* kSoname = "libcublas.so." PROTEUS_CUBLAS_MAJOR(CUBLAS_VER_MAJOR);

// The folder of the libcudart this program runs with: the toolkit's libraries sit together.
std::string cudart_folder() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&cudaGetDeviceCount), &info) || !info.dli_fname) return "";
  return std::filesystem::path(info.dli_fname).parent_path().string();
}

void* open_cublas() {
  if (void* h = dlopen(kSoname, RTLD_NOW | RTLD_LOCAL)) return h;
  std::string why = dlerror();
  const std::string folder = cudart_folder();
  if (!folder.empty()) {
    const std::string beside = folder + "/" + kSoname;
    if (void* h = dlopen(beside.c_str(), RTLD_NOW | RTLD_LOCAL)) return h;
    why += "; " + std::string(dlerror());
  }
  throw std::runtime_error(std::string("cuBLAS (") + kSoname + ") could not be loaded: " + why +
                           "; the CUDA backend needs the CUDA Toolkit's libraries on the loader's path "
                           "(LD_LIBRARY_PATH or ldconfig)");
}

template <class Fn>
void find(void* library, Fn& fn, const char* name) {
  fn = reinterpret_cast<Fn>(dlsym(library, name));
  if (!fn) throw std::runtime_error(std::string("cuBLAS (") + kSoname + ") has no " + name + ": " + dlerror());
}

CublasLibrary load() {
  void* library = open_cublas();  // never closed: the handles made from it live to the process's end
  CublasLibrary l;
  find(library, l.create, "cublasCreate_v2");
  find(library, l.destroy, "cublasDestroy_v2");
  find(library, l.set_stream, "cublasSetStream_v2");
  find(library, l.set_math_mode, "cublasSetMathMode");
  find(library, l.status_name, "cublasGetStatusName");
  find(library, l.sgemm, "cublasSgemm_v2");
  find(library, l.sgemm_strided_batched, "cublasSgemmStridedBatched");
  return l;
}

}  // namespace

const char* cublas_soname() { return kSoname; }

const CublasLibrary& cublas() {
  static const CublasLibrary library = load();  // a throw leaves it unset: the next call tries again
  return library;
}

}  // namespace proteus::cuda
