// Deliberately wrong backends for the tests of the parity checks and of the self-check: the CPU
// backend in float with one fault injected, each the kind of bug a new kernel has.
#pragma once
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/backend/cpu/cpu_backend.hpp"

namespace proteus::backend::testing {

enum class Fault {
  none,
  matmul_off,         // matmul's output 0.1% off: a wrong kernel
  dw_overwritten,     // matmul's dw overwritten instead of accumulated
  din_accumulated,    // matmul's din accumulated instead of overwritten
  write_past_end,     // scale writes one element past its range
  nan_output,         // sigmoid leaves a NaN
  locked_not_zero,    // block norms of locked elements 1e-30 instead of 0 (NMSE cannot see it)
  throws,             // add fails as a kernel launch would
  no_attention,       // says it cannot run attention (supports)
  narrow_rules,       // says it cannot run memory rules with d_v > 4 (supports), as a kernel limit would
  scalar_retention,   // says it cannot run a rule with a retention per key row (supports), as CUDA does
  chunked_delta_off,  // the delta rule's chunked form 0.1% off, its recurrent form right: a wrong new kernel
  chunked_swla_off,   // the same for swla, whose chunked window writes cross chunk boundaries
  delta_off,          // the delta rule 0.1% off in both forms
  gla_off,            // gla 0.1% off in both forms: a wrong new recurrent kernel
  chunked_comba_faults,  // comba's chunked form faults the device (an illegal address): every later
                         // download fails until the device is reset (reset_device below)
};

class FaultyBackend : public CpuBackend<float> {
 public:
  explicit FaultyBackend(Fault fault, std::string name = "faulty") : CpuBackend<float>(1), fault_(fault), name_(name) {}
  std::string name() const override { return name_; }

  bool supports(Op op, const OpShape& shape, std::string* why_not) const override {
    if (fault_ == Fault::no_attention && op == Op::attention) {
      if (why_not) *why_not = "no attention kernel (injected)";
      return false;
    }
    if (fault_ == Fault::narrow_rules && (op == Op::memory_rule || op == Op::memory_block_norms) && shape.d_v > 4) {
      if (why_not) *why_not = "value width " + std::to_string(shape.d_v) + " > 4 (injected)";
      return false;
    }
    if (fault_ == Fault::scalar_retention && (op == Op::memory_rule || op == Op::memory_block_norms) &&
        memory::rule_traits(shape.rule).per_key_retention) {
      if (why_not) *why_not = "one retention a step (injected)";
      return false;
    }
    return CpuBackend<float>::supports(op, shape, why_not);
  }

  void matmul_forward(float* out, const float* in, const float* w, int N, int IC, int OC) override {
    ++matmul_calls;
    CpuBackend<float>::matmul_forward(out, in, w, N, IC, OC);
    if (fault_ == Fault::matmul_off)
      for (size_t i = 0; i < static_cast<size_t>(N) * OC; ++i) out[i] *= 1.001f;
  }

  void matmul_backward(float* din, float* dw, const float* dout, const float* in, const float* w, int N, int IC,
                       int OC) override {
    if (fault_ == Fault::dw_overwritten && dw) fill(dw, 0.0f, static_cast<size_t>(OC) * IC);
    std::vector<float> before;
    if (fault_ == Fault::din_accumulated && din) before.assign(din, din + static_cast<size_t>(N) * IC);
    CpuBackend<float>::matmul_backward(din, dw, dout, in, w, N, IC, OC);
    for (size_t i = 0; i < before.size(); ++i) din[i] += before[i];
  }

  void scale(float* x, float alpha, size_t n) override {
    CpuBackend<float>::scale(x, alpha, n);
    if (fault_ == Fault::write_past_end) x[n] = 0.0f;  // the guard the checks put there
  }

  void sigmoid_forward(float* out, const float* in, size_t n) override {
    CpuBackend<float>::sigmoid_forward(out, in, n);
    if (fault_ == Fault::nan_output && n) out[n / 2] = std::numeric_limits<float>::quiet_NaN();
  }

  void memory_block_norms(float* out, const MemoryRuleArgs<float>& args, const OpState& state,
                          int n_blocks) override {
    CpuBackend<float>::memory_block_norms(out, args, state, n_blocks);
    if (fault_ == Fault::locked_not_zero) {
      const size_t n = static_cast<size_t>(args.B) * args.H * args.T * n_blocks;
      for (size_t i = 0; i < n; ++i) out[i] += 1e-30f;
    }
  }

  std::unique_ptr<OpState> memory_rule_forward(float* o, const MemoryRuleArgs<float>& args) override {
    if (fault_ == Fault::chunked_comba_faults && args.rule == memory::Rule::comba &&
        form_to_run(args) == memory::RuleForm::chunked) {
      device_poisoned = true;
      throw std::runtime_error("memory_rule_chunked_forward: an illegal memory access was encountered (injected)");
    }
    auto state = CpuBackend<float>::memory_rule_forward(o, args);
    const bool chunked = form_to_run(args) == memory::RuleForm::chunked;  // honours the self-check's refusal
    const bool chunked_off = fault_ == Fault::chunked_delta_off || fault_ == Fault::chunked_swla_off;
    const bool wrong = fault_ == Fault::delta_off || fault_ == Fault::gla_off || (chunked_off && chunked);
    const memory::Rule faulty = fault_ == Fault::chunked_swla_off ? memory::Rule::swla
                                : fault_ == Fault::gla_off        ? memory::Rule::gla
                                                                  : memory::Rule::delta;
    if (args.rule == faulty && wrong)
      for (size_t i = 0; i < static_cast<size_t>(args.B) * args.T * args.H * args.d_v; ++i) o[i] *= 1.001f;
    return state;
  }

  void add(float* out, const float* x, const float* y, size_t n) override {
    if (fault_ == Fault::throws) throw std::runtime_error("add: launch failed (injected)");
    CpuBackend<float>::add(out, x, y, n);
  }

  void download(float* host, const float* src, size_t n) override {
    if (device_poisoned) throw std::runtime_error("download: an illegal memory access was encountered (injected)");
    CpuBackend<float>::download(host, src, n);
  }
  bool device_lost() override { return device_poisoned; }

  inline static int matmul_calls = 0;  // across instances: shows whether a check ran
  // The device every instance shares, as a CUDA context is: poisoned until reset_device.
  inline static bool device_poisoned = false;
  inline static int resets = 0;
  static void reset_device() {
    device_poisoned = false;
    ++resets;
  }

 private:
  Fault fault_;
  std::string name_;
};

}  // namespace proteus::backend::testing
