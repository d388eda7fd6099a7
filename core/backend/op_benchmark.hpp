// Time of one memory-rule call (forward, and forward + backward) on a backend at a given shape,
// the kernel-level twin of train::benchmark_training: what `proteus bench --op memory-rule`
// reports, to set beside PyTorch (experiments/reference/) and fla at the shapes of KERNELS.md.
#pragma once
#include <string>

#include "core/memory/gated_rule.hpp"

namespace proteus::backend {

struct MemoryRuleBenchSpec {
  memory::Rule rule = memory::Rule::delta;
  int B = 8, T = 1024, H = 8, d_k = 64, d_v = 64;
  int E = 1;           // uniform schedule over D = d_k d_v with horizon N = T
  bool decay = true;   // the gated form (retention a_t)
  int warmup = 2, reps = 10;
};

struct MemoryRuleBenchResult {
  std::string device;
  std::string message;  // why the device asked for was not used, if it was not
  double forward_ms = 0;           // median
  double forward_backward_ms = 0;  // median of one forward then its backward
  double tape_mb = 0;              // what the forward keeps for the backward
};

// Throws InputError for a bad shape; the device falls back to the CPU as make_backend does.
MemoryRuleBenchResult benchmark_memory_rule(const MemoryRuleBenchSpec& spec, const std::string& device,
                                            int threads);

}  // namespace proteus::backend
