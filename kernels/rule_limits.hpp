// The CUDA memory-rule kernels' size limits, in a plain C++ header: the kernels check them, the
// backend states them (CudaBackend::supports), and host-compiled tests read them.
#pragma once
#include <cstddef>
#include <cstdint>

namespace proteus::cuda {

// The kernels keep value-width vectors in shared memory; beyond the default 48 KiB (static
// arrays included: the backward's 32-float reduction scratch) they would need an opt-in.
constexpr size_t kRuleSharedBytes = 48 * 1024;
constexpr size_t kRuleStaticSharedBytes = 32 * sizeof(float);
constexpr int kRuleBackwardVectors = 3;  // the backward's pred, corr, dcorr; the forward keeps 1
// The widest d_v both directions run (4085), and the most state elements (int32 offsets).
constexpr int kMaxRuleValueWidth =
    static_cast<int>((kRuleSharedBytes - kRuleStaticSharedBytes) / (kRuleBackwardVectors * sizeof(float)));
constexpr int64_t kMaxRuleStateElements = 2147483647;

}  // namespace proteus::cuda
