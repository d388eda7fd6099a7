// Error checks for the CUDA backend: every runtime and cuBLAS call, and every kernel launch,
// is checked, and a failure throws std::runtime_error naming the op that made it.
#pragma once

namespace proteus::cuda {

// status: a cublasStatus_t; throws naming `what` and cuBLAS's status name.
void check_cublas(int status, const char* what);

// After a kernel launch: throws naming `what` when the launch failed (bad configuration, a
// sticky error from an earlier kernel). It does not wait for the kernel.
void check_launch(const char* what);

}  // namespace proteus::cuda
