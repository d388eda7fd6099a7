// Time of one memory-rule call (forward, and forward + backward) on a backend at a given shape,
// the kernel-level twin of train::benchmark_training: what `proteus bench --op memory-rule`
// reports, to set beside PyTorch (experiments/reference/) and fla at the shapes of KERNELS.md.
#pragma once
#include <string>

#include "core/memory/block_axis.hpp"
#include "core/memory/gated_rule.hpp"
#include "core/memory/rule_form.hpp"

namespace proteus::backend {

struct MemoryRuleBenchSpec {
  memory::Rule rule = memory::kDefaultRule;
  int B = 8, T = 1024, H = 8, d_k = 64, d_v = 64;
  int E = 1;           // uniform schedule over D = d_k d_v with horizon N = T
  bool decay = true;   // the gated form (retention a_t)
  memory::RuleForm form = memory::RuleForm::automatic;
  // key_rows gates inside the rule; value_rows and layer time what the model runs for them: the
  // ungated rule between prefix masks (value_rows: v, o and their gradients; layer: q, k, p).
  memory::BlockAxis block_axis = memory::BlockAxis::key_rows;
  int chunk = 0;       // chunk size / checkpoint spacing; 0 = the backend's default for d_k
  int warmup = 2, reps = 10;
};

// The work a GFLOP/s figure counts, the same for every form so that the figures compare as
// throughput: the recurrent rule's 6 d_k d_v per token and head forward (predict, write, read)
// and twice that backward.
double memory_rule_forward_flops(const MemoryRuleBenchSpec& spec);

struct MemoryRuleBenchResult {
  std::string device;
  std::string message;  // why the device asked for was not used, if it was not
  double forward_ms = 0;           // median
  double forward_backward_ms = 0;  // median of one forward then its backward
  double kept_mb = 0;              // what the forward keeps for the backward: checkpointed states (and the
                                   // CPU chunked form's products), at most
  std::string form;                // the form that ran: chunked or recurrent
  int chunk = 0;                   // its chunk size / checkpoint spacing
  double forward_gflops = 0, forward_backward_gflops = 0;  // memory_rule_forward_flops per second (x3 with bwd)
};

// Throws InputError for a bad shape; the device falls back to the CPU as make_backend does.
MemoryRuleBenchResult benchmark_memory_rule(const MemoryRuleBenchSpec& spec, const std::string& device,
                                            int threads);

}  // namespace proteus::backend
