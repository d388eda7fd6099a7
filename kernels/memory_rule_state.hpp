// What the CUDA memory rule's forward leaves for its backward and for memory_block_norms: the
// CPU's tape, on the device. Every state S_0..S_T of every head (S_0 = 0, as the op list's
// forward has no initial state), and Z_0..Z_T with momentum. Memory: B H (T+1) d_k d_v floats,
// twice that with momentum (as on the CPU). Also the checks the CPU makes of the arguments.
#pragma once
#include <cstdint>
#include <vector>

#include "core/backend/ops/backend.hpp"

namespace proteus::cuda {

struct CudaRuleState final : backend::OpState {
  memory::Rule rule = memory::kDefaultRule;
  int B = 0, T = 0, H = 0, d_k = 0, d_v = 0, window = 0;
  float* S = nullptr;  // (B, H, T+1, d_k, d_v) on the device
  float* Z = nullptr;  // (B, H, T+1, d_k, d_v), momentum only

  CudaRuleState() = default;
  CudaRuleState(const CudaRuleState&) = delete;
  CudaRuleState& operator=(const CudaRuleState&) = delete;
  ~CudaRuleState() override;

  int64_t D() const { return static_cast<int64_t>(d_k) * d_v; }
  size_t tape_size() const { return static_cast<size_t>(B) * H * (T + 1) * D(); }
  // The tapes on the host, (B, H, T+1, d_k, d_v): for tests that check locked elements bit for bit.
  std::vector<float> download_S() const;
  std::vector<float> download_Z() const;
};

// Throws InputError naming the field, as the CPU backend and core/memory/gated_rule.cpp do.
void check_rule_args(const backend::MemoryRuleArgs<float>& args);
// The state, after checking it comes from a CUDA forward of this rule and these shapes.
const CudaRuleState& rule_state(const backend::OpState& state, const backend::MemoryRuleArgs<float>& args);
// end(k(t)) for t = 1..T: the active prefix of each step, as the CPU's loops compute it.
std::vector<int32_t> active_prefix_table(const memory::Schedule& schedule, int T);

}  // namespace proteus::cuda
