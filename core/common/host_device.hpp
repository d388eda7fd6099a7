// PROTEUS_HOST_DEVICE marks a small function that the CPU code and the CUDA kernels share from one
// header (the twins must not drift): `__host__ __device__` under nvcc, nothing for the C++ compiler.
#pragma once

#if defined(__CUDACC__)
#define PROTEUS_HOST_DEVICE __host__ __device__
#else
#define PROTEUS_HOST_DEVICE
#endif
