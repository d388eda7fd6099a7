// Whether a CUDA device can be used here, asked once; a machine without a GPU (or driver)
// answers false instead of failing, so the GPU tests and --device cuda can fall back cleanly.
#pragma once
#include <string>

namespace proteus::cuda {

bool device_available();
std::string device_name();  // "" when none

// Destroys this process's context on the device (cudaDeviceReset), after a fault poisoned it and
// every backend on it is gone; a backend made afterwards starts on a fresh one.
void reset_device();

// Throws std::runtime_error naming the call and CUDA's error string.
void check(int status, const char* what);

}  // namespace proteus::cuda
