// The scalar functions of the elementwise ops, one definition for the CPU backend (float and
// double) and the CUDA kernels (float): std:: math resolves to expf / log1pf in device code.
// (C++17: the CUDA backend includes this header.)
#pragma once
#include <cmath>

#include "core/common/host_device.hpp"

namespace proteus::backend {

template <class T>
PROTEUS_HOST_DEVICE inline T sigmoid(T x) {
  if (x >= T(0)) return T(1) / (T(1) + std::exp(-x));
  const T e = std::exp(x);
  return e / (T(1) + e);
}

// log(1 + e^x), exact-enough past 20 where e^x would dwarf the 1.
template <class T>
PROTEUS_HOST_DEVICE inline T softplus(T x) {
  return x > T(20) ? x : std::log1p(std::exp(x));
}

template <class T>
PROTEUS_HOST_DEVICE inline T softplus_grad(T x) {
  return x > T(20) ? T(1) : sigmoid(x);
}

// silu'(x) = s (1 + x (1 - s)) with s = sigmoid(x).
template <class T>
PROTEUS_HOST_DEVICE inline T silu_grad(T x) {
  const T s = sigmoid(x);
  return s * (T(1) + x * (T(1) - s));
}

}  // namespace proteus::backend
