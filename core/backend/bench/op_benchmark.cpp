#include "core/backend/bench/op_benchmark.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "core/backend/bench/bench_timing.hpp"
#include "core/backend/cpu/cpu_backend.hpp"
#include "core/backend/ops/open_widths_rule.hpp"
#include "core/backend/registry.hpp"
#include "core/common/input_error.hpp"
#include "core/memory/checkpointed_rule.hpp"
#include "core/memory/chunked_rule.hpp"
#include "core/memory/rule_coverage.hpp"

namespace proteus::backend {
namespace {

std::vector<float> uniform(size_t n, std::mt19937& rng, float lo, float hi) {
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> x(n);
  for (auto& v : x) v = d(rng);
  return x;
}

// Rows of width d scaled to unit norm, as the model's L2-normalised q and k.
void normalise_rows(std::vector<float>& x, int d) {
  for (size_t r = 0; r + d <= x.size(); r += d) {
    double s = 0;
    for (int i = 0; i < d; ++i) s += double(x[r + i]) * x[r + i];
    const float inv = static_cast<float>(1.0 / std::sqrt(s + 1e-12));
    for (int i = 0; i < d; ++i) x[r + i] *= inv;
  }
}

// What value_rows and layer give the rule, as the model's mixer does (with E > 1): the table of
// open widths, on the device. key_rows: none. OpenWidthsRule does the rest, as in the model.
struct AxisTable {
  Backend<float>& be;
  int32_t* widths = nullptr;
  memory::OpenWidths of = memory::OpenWidths::value_columns;

  AxisTable(Backend<float>& be_, const MemoryRuleBenchSpec& s, const memory::Schedule& schedule) : be(be_) {
    if (s.block_axis == memory::BlockAxis::key_rows || schedule.E() == 1) return;
    const auto table = memory::open_widths_table(s.block_axis, schedule, s.T, s.H, s.d_k, s.d_v);
    widths = be.alloc_int32(table.size());
    be.upload_int32(widths, table.data(), table.size());
    if (s.block_axis == memory::BlockAxis::layer) of = memory::OpenWidths::key_rows;
  }
  ~AxisTable() {
    if (widths) be.free_int32(widths);
  }
  AxisTable(const AxisTable&) = delete;
  AxisTable& operator=(const AxisTable&) = delete;
};

}  // namespace

double memory_rule_forward_flops(const MemoryRuleBenchSpec& s) {
  return 6.0 * s.B * s.T * s.H * double(s.d_k) * s.d_v;
}

MemoryRuleBenchResult benchmark_memory_rule(const MemoryRuleBenchSpec& s, const std::string& device, int threads) {
  memory::require_rule_covered(s.rule);
  for (auto [name, value] : {std::pair{"B", s.B}, {"T", s.T}, {"H", s.H}, {"d_k", s.d_k}, {"d_v", s.d_v}})
    if (value < 1 || value > (1 << 20)) throw InputError(name, "must be in [1, 1048576]");
  const int64_t D = int64_t(s.d_k) * s.d_v;
  if (s.E < 1 || s.E > D) throw InputError("E", "must be in [1, d_k d_v] = [1, " + std::to_string(D) + "]");
  if (s.reps < 1 || s.warmup < 0) throw InputError("reps", "needs reps >= 1 and warmup >= 0");

  auto choice = make_backend(device, threads);
  auto& be = *choice.backend;
  const auto gated = memory::Schedule::uniform(D, s.E, s.T);
  const auto schedule = memory::rule_schedule(s.block_axis, gated);
  const size_t rows = size_t(s.B) * s.T * s.H;
  std::mt19937 rng(1234);
  auto q = uniform(rows * s.d_k, rng, -1, 1), k = uniform(rows * s.d_k, rng, -1, 1);
  normalise_rows(q, s.d_k);
  normalise_rows(k, s.d_k);
  const auto v = uniform(rows * s.d_v, rng, -1, 1), dO = uniform(rows * s.d_v, rng, -1, 1);
  const size_t a_width = memory::retention_width(s.rule, s.d_k);  // 1, or a row of d_k a step
  const auto beta = uniform(rows, rng, 0.1f, 0.9f), a = uniform(rows * a_width, rng, 0.9f, 1.0f);
  const int window = 4;
  const auto gamma = uniform(rows * window, rng, 0.1f, 0.9f), eta = uniform(rows, rng, 0.0f, 0.9f);

  std::vector<float*> owned;
  auto up = [&](const std::vector<float>& host) {
    float* p = be.alloc(host.size());
    be.upload(p, host.data(), host.size());
    owned.push_back(p);
    return p;
  };
  auto zeros = [&](size_t n) {
    float* p = be.alloc(n);
    owned.push_back(p);
    return p;
  };
  MemoryRuleArgs<float> args;
  args.rule = s.rule;
  args.schedule = &schedule;
  args.B = s.B, args.T = s.T, args.H = s.H, args.d_k = s.d_k, args.d_v = s.d_v, args.window = window;
  args.form = s.form;
  args.chunk = s.chunk;
  args.q = up(q), args.k = up(k), args.v = up(v);
  if (memory::rule_uses_beta(s.rule)) args.beta = up(beta);
  if (s.decay) args.a = up(a);
  if (memory::rule_uses_p(s.rule)) args.p = up(k);
  if (memory::rule_uses_eta(s.rule)) args.eta = up(eta);
  if (memory::rule_uses_gamma(s.rule)) args.gamma = up(gamma);
  float* o = zeros(rows * s.d_v);
  const float* ddO = up(dO);
  MemoryRuleGrads<float> g;
  g.q = zeros(rows * s.d_k), g.k = zeros(rows * s.d_k), g.v = zeros(rows * s.d_v);
  if (args.beta) g.beta = zeros(rows);
  if (args.a) g.a = zeros(rows * a_width);
  if (args.p) g.p = zeros(rows * s.d_k);
  if (args.eta) g.eta = zeros(rows);
  if (args.gamma) g.gamma = zeros(rows * window);

  const AxisTable table(be, s, gated);
  args.open_widths = table.widths, args.open_widths_of = table.of;
  OpenWidthsRule<float> rule(be);
  SyncedStopwatch watch(be);
  std::vector<double> fwd, fwd_bwd;
  for (int r = 0; r < s.warmup + s.reps; ++r) {
    watch.start();
    auto state = rule.forward(o, args);
    const double f = watch.lap_ms();
    rule.backward(g, ddO, args, *state);
    const double b = watch.lap_ms();
    if (r >= s.warmup) fwd.push_back(f), fwd_bwd.push_back(f + b);
  }
  for (float* p : owned) be.free(p);

  MemoryRuleBenchResult result;
  result.device = choice.device;
  result.message = choice.message;
  result.forward_ms = median(fwd);
  result.forward_backward_ms = median(fwd_bwd);
  const auto form = be.form_to_run(args);  // what this backend ran (its kernels, the self-check's refusals)
  result.form = std::string(memory::rule_form_name(form));
  result.chunk = be.chunk_to_run(args);
  const bool momentum = memory::rule_has_momentum(s.rule) && form == memory::RuleForm::recurrent;
  // The CPU's chunked form also keeps each chunk's products for its backward (at most this many).
  const bool cpu_chunked = form == memory::RuleForm::chunked && dynamic_cast<CpuBackend<float>*>(&be);
  const double products = cpu_chunked ? double(memory::chunk_products_kept(s.rule, result.chunk, s.d_v)) : 0;
  result.kept_mb = double(s.B) * s.H * memory::checkpoint_ranges(s.T, result.chunk) * (D * (momentum ? 2 : 1) + products) *
                   sizeof(float) / 1e6;
  const double flops = memory_rule_forward_flops(s);
  result.forward_gflops = flops / (result.forward_ms * 1e6);
  result.forward_backward_gflops = 3 * flops / (result.forward_backward_ms * 1e6);
  return result;
}

}  // namespace proteus::backend
