#include "kernels/memory_rule_state.hpp"

#include <cuda_runtime.h>

#include <limits>
#include <string>

#include "core/common/input_error.hpp"
#include "kernels/device.hpp"
#include "kernels/rule_limits.hpp"

namespace proteus::cuda {

CudaRuleState::~CudaRuleState() {
  if (S) cudaFree(S);
  if (Z) cudaFree(Z);
}

namespace {

std::vector<float> download_tape(const float* tape, size_t n) {
  std::vector<float> host(n);
  if (tape && n) check(cudaMemcpy(host.data(), tape, n * sizeof(float), cudaMemcpyDeviceToHost), "download tape");
  return host;
}

}  // namespace

std::vector<float> CudaRuleState::download_S() const { return download_tape(S, S ? tape_size() : 0); }
std::vector<float> CudaRuleState::download_Z() const { return download_tape(Z, Z ? tape_size() : 0); }

void check_rule_args(const backend::MemoryRuleArgs<float>& args) {
  using memory::rule_name;
  if (!args.schedule) throw InputError("schedule", "required");
  if (args.B < 0 || args.T < 0 || args.H < 0) throw InputError("B", "batch, tokens and heads must be >= 0");
  if (args.d_k < 1 || args.d_v < 1) throw InputError("d_k", "key and value widths must be >= 1");
  if (memory::rule_uses_gamma(args.rule) && args.window < 1) throw InputError("window", std::string(rule_name(args.rule)) + " needs a window >= 1");
  if (args.open_widths && !memory::rule_masks_as_gates(args.rule))  // supports() refuses it; the kernels would write unmasked
    throw InputError("open_widths", "rule " + std::string(rule_name(args.rule)) +
                                        " gated by open widths (block_axis value_rows or layer) runs on the CPU only");
  if (!kernels_read_retention_of(args.rule))  // supports() refuses it
    throw InputError("rule", "rule " + std::string(rule_name(args.rule)) +
                                 " decays each key row at its own rate outside a single hebbian write; the CUDA "
                                 "kernels take a row of retentions there only");
  const int64_t D = static_cast<int64_t>(args.d_k) * args.d_v;
  if (args.schedule->D() != D)
    throw InputError("D", "schedule is for D = " + std::to_string(args.schedule->D()) + " elements but d_k * d_v = " +
                              std::to_string(D));
  if (D > std::numeric_limits<int32_t>::max()) throw InputError("D", "too many state elements for the CUDA kernels");
  if (!args.q) throw InputError("q", "required");
  if (!args.k) throw InputError("k", "required");
  if (!args.v) throw InputError("v", "required");
  if (memory::rule_uses_beta(args.rule) && !args.beta)
    throw InputError("beta", "required by rule " + std::string(rule_name(args.rule)));
  if (memory::rule_uses_p(args.rule) && !args.p) throw InputError("p", "required by rule " + std::string(rule_name(args.rule)));
  if (memory::rule_uses_gamma(args.rule) && !args.gamma)
    throw InputError("gamma", "required by rule " + std::string(rule_name(args.rule)) + ", with a window of at least 1");
}

const CudaRuleState& rule_state(const backend::OpState& state, const backend::MemoryRuleArgs<float>& args) {
  const auto* s = dynamic_cast<const CudaRuleState*>(&state);
  if (!s) throw InputError("state", "does not come from this backend's memory_rule_forward");
  if (s->rule != args.rule || s->B != args.B || s->T != args.T || s->H != args.H || s->d_k != args.d_k ||
      s->d_v != args.d_v)
    throw InputError("state", "comes from a forward of another rule or other shapes");
  return *s;
}

std::vector<int32_t> active_prefix_table(const memory::Schedule& schedule, int T) {
  std::vector<int32_t> ends(T);
  for (int t = 0; t < T; ++t) ends[t] = static_cast<int32_t>(schedule.active_elements(t + 1));
  return ends;
}

}  // namespace proteus::cuda
