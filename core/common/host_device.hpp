// PROTEUS_HOST_DEVICE marks a small function that the CPU code and the CUDA kernels share from one
// header (the twins must not drift): `__host__ __device__` under nvcc, nothing for the C++ compiler.
#pragma once

#if defined(__CUDACC__)
#define PROTEUS_HOST_DEVICE __host__ __device__
#else
#define PROTEUS_HOST_DEVICE
#endif

// PROTEUS_ALWAYS_INLINE: a tiny function that inner loops call per element (a rule's traits): GCC
// otherwise may keep it out of line, a call per element that also stops the loop's vectorisation.
#if defined(__CUDACC__)
#define PROTEUS_ALWAYS_INLINE __forceinline__
#elif defined(__GNUC__)
#define PROTEUS_ALWAYS_INLINE __attribute__((always_inline)) inline
#else
#define PROTEUS_ALWAYS_INLINE inline
#endif
