// The kernel benchmark (ggml's `perf` mode): every op of the op table (all_ops(), op.hpp, the
// table the parity cases of op_cases.hpp instantiate at small shapes) timed alone on a backend at
// the sizes one model layer gives it, with the bytes it must move and, for the products, the
// FLOPs it must do, so each row reads as GB/s or GFLOP/s. What `proteus bench --op kernels`
// prints. The shape is KERNELS.md's (B, T, H, D): N = B T rows, C = H D channels, a byte
// vocabulary, SwiGLU's hidden width as the model's default, the memory rule's state D x D.
// Bytes count each input read once and each output written once (a lower bound on traffic);
// FLOPs count the multiply-adds of the products as 2 (attention: the causal half only).
#pragma once
#include <string>
#include <vector>

#include "core/backend/ops/op.hpp"
#include "core/memory/gated_rule.hpp"

namespace proteus::backend {

struct KernelBenchSpec {
  int B = 8, T = 1024, H = 8, D = 64;  // fla's benchmark shape (KERNELS.md)
  int vocab = 256;
  memory::Rule rule = memory::kDefaultRule;
  std::vector<int> E = {1, 16};  // the memory rule and block norms, per E
  int warmup = 2, reps = 10;
};

struct KernelBenchRow {
  Op op = Op::fill;   // the op table's entry (op.hpp) this row times
  std::string label;  // what the table prints in its op column: "matmul", "memory_rule delta E=1 recurrent"
  std::string pass;   // "fwd", "bwd" or "" for ops without a backward
  std::string shape;  // "(8192,512)x(512,512)"
  std::string dtype = "f32";
  double ms = 0;       // median over reps, the backend synchronised before and after
  double gb_per_s = 0;     // 0: not counted
  double gflop_per_s = 0;  // 0: not counted (memory-bound ops)
};

struct KernelBenchResult {
  std::string device;
  std::string message;  // why the device asked for was not used, if it was not
  std::vector<KernelBenchRow> rows;
};

// Throws InputError for a bad shape; the device falls back to the CPU as make_backend does. The
// rows follow all_ops(): each op's passes, the memory rule's and block norms' once per E.
KernelBenchResult benchmark_kernels(const KernelBenchSpec& spec, const std::string& device, int threads);

}  // namespace proteus::backend
