#include "core/backend/bench/kernel_benchmark.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>

#include "core/backend/bench/bench_timing.hpp"
#include "core/backend/registry.hpp"
#include "core/common/input_error.hpp"
#include "core/memory/rule_coverage.hpp"

namespace proteus::backend {
namespace {

// The backend's buffers for the whole benchmark, freed at the end.
class Pool {
 public:
  explicit Pool(Backend<float>& be) : be_(be), rng_(1234) {}
  ~Pool() {
    for (float* p : owned_) be_.free(p);
    for (int32_t* p : ids_) be_.free_int32(p);
  }
  float* uniform(size_t n, float lo = -1.0f, float hi = 1.0f) {
    std::uniform_real_distribution<float> u(lo, hi);
    std::vector<float> host(n);
    for (auto& x : host) x = u(rng_);
    float* p = zeros(n);
    be_.upload(p, host.data(), n);
    return p;
  }
  float* zeros(size_t n) {
    owned_.push_back(be_.alloc(n));
    return owned_.back();
  }
  int32_t* ids(size_t n, int32_t classes) {
    std::vector<int32_t> host(n);
    for (auto& x : host) x = static_cast<int32_t>(rng_() % static_cast<uint32_t>(classes));
    ids_.push_back(be_.alloc_int32(n));
    be_.upload_int32(ids_.back(), host.data(), n);
    return ids_.back();
  }

 private:
  Backend<float>& be_;
  std::mt19937 rng_;
  std::vector<float*> owned_;
  std::vector<int32_t*> ids_;
};

std::string dims(std::initializer_list<int64_t> xs) {
  std::ostringstream s;
  s << "(";
  for (auto it = xs.begin(); it != xs.end(); ++it) s << (it == xs.begin() ? "" : ",") << *it;
  s << ")";
  return s.str();
}

// One benchmark run: the backend, the sizes one layer gives each op, the buffers, and the rows;
// time(op) is the op table's perf instantiation of one op (`measure` times each of its passes).
class KernelBench {
 public:
  KernelBench(const KernelBenchSpec& s, Backend<float>& be, KernelBenchResult& result)
      : s(s), be(be), result(result), pool(be), N(s.B * s.T), H(s.H), d(s.D), C(s.H * s.D), V(s.vocab),
        F(static_cast<int>((8 * int64_t(C) + 95) / 96 * 32)), nc(size_t(N) * C), nh(size_t(N) * H),
        nf(size_t(N) * F), nv(size_t(N) * V), D2(int64_t(s.D) * s.D), nc_shape(dims({N, C})) {
    x = pool.uniform(nc), y = pool.uniform(nc), out = pool.zeros(nc), din = pool.zeros(nc);
  }

  void time(Op op);

 private:
  void matmul();
  void rmsnorm();
  void conv_silu();
  void l2norm();
  void prefix_renorm();
  void prefix_mask();
  void sigmoid();
  void decay();
  void swiglu();
  void elementwise(Op op);
  void comba_query();
  void embedding();
  void xent();
  void attention();
  void memory_rule();
  void memory_block_norms();
  void adamw();
  MemoryRuleArgs<float> rule_args(const memory::Schedule& schedule);
  double tape() const;  // every state of the recurrent form, what the GPU's recurrent kernels keep

  // Times `run` (median of reps after warm-up) and adds the row with its GB/s and GFLOP/s.
  void measure(Op op, const std::string& label, const std::string& pass, const std::string& shape, double bytes,
               double flops, const std::function<void()>& run) {
    SyncedStopwatch watch(be);
    std::vector<double> ms;
    for (int r = 0; r < s.warmup + s.reps; ++r) {
      watch.start();
      run();
      const double lap = watch.lap_ms();
      if (r >= s.warmup) ms.push_back(lap);
    }
    KernelBenchRow row{op, label, pass, shape};
    row.ms = median(ms);
    row.gb_per_s = bytes / (row.ms * 1e6);
    row.gflop_per_s = flops > 0 ? flops / (row.ms * 1e6) : 0;
    result.rows.push_back(row);
  }
  void measure(Op op, const std::string& pass, const std::string& shape, double bytes, double flops,
               const std::function<void()>& run) {
    measure(op, op_name(op), pass, shape, bytes, flops, run);
  }

  static constexpr double kF = sizeof(float);
  static constexpr int K = 4;  // the convolution's taps
  const KernelBenchSpec& s;
  Backend<float>& be;
  KernelBenchResult& result;
  Pool pool;
  const int N, H, d, C, V, F;  // rows B T, heads, head width, channels H d, vocabulary, SwiGLU's hidden width
  const size_t nc, nh, nf, nv;  // N C, N H, N F, N V
  const int64_t D2;             // the memory rule's state, d x d
  const std::string nc_shape;
  float *x, *y, *out, *din;  // (N, C) inputs, an upstream gradient, an output, an input gradient
  // The memory rule's inputs and gradients, made by the first rule_args().
  float *q = nullptr, *k, *v, *beta, *a, *p, *eta, *gamma, *dq, *dk, *dv, *dp, *dbeta, *da, *deta, *dgamma;
  float *a_rows = nullptr, *da_rows = nullptr;  // a row of d retentions a step (per_key_retention)
};

void KernelBench::time(Op op) {
  switch (op) {
    case Op::matmul: return matmul();
    case Op::rmsnorm: return rmsnorm();
    case Op::conv_silu: return conv_silu();
    case Op::l2norm: return l2norm();
    case Op::prefix_renorm: return prefix_renorm();
    case Op::prefix_mask: return prefix_mask();
    case Op::sigmoid: return sigmoid();
    case Op::decay: return decay();
    case Op::swiglu: return swiglu();
    case Op::multiply:
    case Op::add:
    case Op::axpy:
    case Op::scale:
    case Op::fill:
    case Op::copy:
    case Op::sum:
    case Op::sum_squares: return elementwise(op);
    case Op::comba_query: return comba_query();
    case Op::embedding: return embedding();
    case Op::xent: return xent();
    case Op::attention: return attention();
    case Op::memory_rule: return memory_rule();
    case Op::memory_block_norms: return memory_block_norms();
    case Op::adamw: return adamw();
  }
  throw std::logic_error(std::string("the kernel benchmark does not time op ") + op_name(op));
}

void KernelBench::matmul() {
  float *w = pool.uniform(size_t(C) * C, -0.05f, 0.05f), *dw = pool.zeros(size_t(C) * C);
  measure(Op::matmul, "fwd", dims({N, C}) + "x" + dims({C, C}), kF * (2 * nc + C * C), 2.0 * nc * C,
          [&] { be.matmul_forward(out, x, w, N, C, C); });
  measure(Op::matmul, "bwd", dims({N, C}) + "x" + dims({C, C}), kF * (3 * nc + 2.0 * C * C), 4.0 * nc * C,
          [&] { be.matmul_backward(din, dw, y, x, w, N, C, C); });
}

void KernelBench::rmsnorm() {
  float *gain = pool.uniform(C, 0.5f, 1.5f), *dgain = pool.zeros(C), *rstd = pool.zeros(N);
  measure(Op::rmsnorm, "fwd", nc_shape, kF * (2 * nc + C + N), 0,
          [&] { be.rmsnorm_forward(out, rstd, x, gain, N, C, 1e-5f); });
  measure(Op::rmsnorm, "bwd", nc_shape, kF * (3 * nc + 2 * C + N), 0,
          [&] { be.rmsnorm_backward(din, dgain, y, x, gain, rstd, N, C); });
}

// The memory mixer's input path: the short convolution, then the key normalisations.
void KernelBench::conv_silu() {
  float *cw = pool.uniform(size_t(C) * K, -0.5f, 0.5f), *dcw = pool.zeros(size_t(C) * K), *pre = pool.zeros(nc);
  const std::string shape = dims({s.B, s.T, C}) + " K=" + std::to_string(K);
  measure(Op::conv_silu, "fwd", shape, kF * (3 * nc + C * K), 0,
          [&] { be.conv_silu_forward(out, pre, x, cw, s.B, s.T, C, K); });
  measure(Op::conv_silu, "bwd", shape, kF * (4 * nc + 2 * C * K), 0,
          [&] { be.conv_silu_backward(din, dcw, y, x, cw, pre, s.B, s.T, C, K); });
}

void KernelBench::l2norm() {
  float* rn = pool.zeros(nh);
  const std::string shape = dims({N * H, d});
  measure(Op::l2norm, "fwd", shape, kF * (2 * nc + nh), 0, [&] { be.l2norm_forward(out, rn, x, N * H, d, 1e-6f); });
  measure(Op::l2norm, "bwd", shape, kF * (3 * nc + nh), 0, [&] { be.l2norm_backward(din, y, out, rn, N * H, d); });
}

void KernelBench::prefix_renorm() {
  float* rn = pool.zeros(nh);
  const std::string shape = dims({N * H, d});
  // Half the key rows open at every position: the normalising branch on every row.
  int32_t* open = pool.ids(size_t(s.T), 1);
  std::vector<int32_t> half(size_t(s.T), std::max(1, d / 2));
  be.upload_int32(open, half.data(), half.size());
  measure(Op::prefix_renorm, "fwd", shape, kF * (2 * nc + nh), 0,
          [&] { be.prefix_renorm_forward(out, rn, x, open, s.B, s.T, H, d, false, 1e-6f); });
  measure(Op::prefix_renorm, "bwd", shape, kF * (3 * nc + nh), 0,
          [&] { be.prefix_renorm_backward(din, y, out, rn, open, s.B, s.T, H, d, false, 1e-6f); });
}

// block_axis value_rows' mask on v and o: half the value dimensions open at every position.
void KernelBench::prefix_mask() {
  int32_t* open = pool.ids(size_t(s.T) * H, 1);
  std::vector<int32_t> half(size_t(s.T) * H, std::max(1, d / 2));
  be.upload_int32(open, half.data(), half.size());
  measure(Op::prefix_mask, "fwd", dims({N * H, d}), kF * 2 * nc, 0,
          [&] { be.prefix_mask(out, x, open, s.B, s.T, H, d); });
}

void KernelBench::sigmoid() {
  float *g = pool.uniform(nh, -3, 3), *o = pool.zeros(nh), *dg = pool.zeros(nh);
  const std::string shape = dims({N, H});
  measure(Op::sigmoid, "fwd", shape, kF * 2 * nh, 0, [&] { be.sigmoid_forward(o, g, nh); });
  measure(Op::sigmoid, "bwd", shape, kF * 3 * nh, 0, [&] { be.sigmoid_backward(dg, g, o, nh); });
}

void KernelBench::decay() {
  float *g = pool.uniform(nh, -3, 3), *o = pool.zeros(nh), *dg = pool.zeros(nh);
  float *A = pool.uniform(H, 0, 2), *dt = pool.uniform(H, -4, -1), *dA = pool.zeros(H), *ddt = pool.zeros(H);
  const std::string shape = dims({N, H});
  measure(Op::decay, "fwd", shape, kF * (2 * nh + 2 * H), 0, [&] { be.decay_forward(o, g, A, dt, N, H); });
  measure(Op::decay, "bwd", shape, kF * (4 * nh + 4 * H), 0,
          [&] { be.decay_backward(dg, dA, ddt, g, o, g, A, dt, N, H); });
}

void KernelBench::swiglu() {
  float *gate = pool.uniform(nf, -3, 3), *up = pool.uniform(nf), *o = pool.zeros(nf), *dout = pool.uniform(nf);
  float *dgate = pool.zeros(nf), *dup = pool.zeros(nf);
  const std::string shape = dims({N, F});
  measure(Op::swiglu, "fwd", shape, kF * 3 * nf, 0, [&] { be.swiglu_forward(o, gate, up, nf); });
  measure(Op::swiglu, "bwd", shape, kF * 5 * nf, 0, [&] { be.swiglu_backward(dgate, dup, dout, gate, up, nf); });
}

// The buffer ops and the reductions over (N, C): no backward.
void KernelBench::elementwise(Op op) {
  const auto row = [&](double elements_moved, const std::function<void()>& run) {
    measure(op, "", nc_shape, kF * elements_moved * nc, 0, run);
  };
  switch (op) {
    case Op::multiply: return row(3, [&] { be.multiply(out, x, y, nc); });
    case Op::add: return row(3, [&] { be.add(out, x, y, nc); });
    case Op::axpy: return row(3, [&] { be.axpy(out, 0.5f, x, nc); });
    case Op::scale: return row(2, [&] { be.scale(out, 0.999f, nc); });
    case Op::fill: return row(1, [&] { be.fill(out, 0.0f, nc); });
    case Op::copy: return row(2, [&] { be.copy(out, x, nc); });
    case Op::sum: return row(1, [&] { (void)be.sum(x, nc); });
    case Op::sum_squares: return row(1, [&] { (void)be.sum_squares(x, nc); });
    default: throw std::logic_error(std::string("not an elementwise op: ") + op_name(op));
  }
}

void KernelBench::comba_query() {
  float* dh = pool.uniform(H);
  float* ddh = pool.zeros(H);
  const std::string shape = dims({N, H, d});
  measure(Op::comba_query, "fwd", shape, kF * (3 * nc + H), 0,
          [&] { be.comba_query_forward(out, x, y, dh, N, H, d); });
  measure(Op::comba_query, "bwd", shape, kF * (4 * nc + 2 * H), 0,
          [&] { be.comba_query_backward(din, ddh, x, y, dh, N, H, d); });
}

void KernelBench::embedding() {
  int32_t* tokens = pool.ids(N, V);
  float *wte = pool.uniform(size_t(V) * C), *dwte = pool.zeros(size_t(V) * C);
  const std::string table = dims({N, C}) + " V=" + std::to_string(V);
  measure(Op::embedding, "fwd", table, kF * 2 * nc + 4.0 * N, 0,
          [&] { be.embedding_forward(out, tokens, wte, N, C); });
  measure(Op::embedding, "bwd", table, kF * (nc + 2.0 * V * C) + 4.0 * N, 0,
          [&] { be.embedding_backward(dwte, x, tokens, N, C); });
}

void KernelBench::xent() {
  int32_t* targets = pool.ids(N, V);
  float *logits = pool.uniform(nv, -3, 3), *probs = pool.zeros(nv), *dlogits = pool.zeros(nv);
  float *losses = pool.zeros(N), *weight = pool.uniform(N, 0.5f, 1.0f);
  const std::string logit_shape = dims({N, V});
  measure(Op::xent, "fwd", logit_shape, kF * (2 * nv + 2.0 * N) + 4.0 * N, 0,
          [&] { be.xent_forward(losses, probs, logits, targets, weight, N, V); });
  measure(Op::xent, "bwd", logit_shape, kF * (2 * nv + N) + 4.0 * N, 0,
          [&] { be.xent_backward(dlogits, probs, targets, weight, 1.0f / N, N, V); });
}

void KernelBench::attention() {
  const size_t np = size_t(s.B) * H * s.T * s.T;
  float *q = pool.uniform(nc), *k = pool.uniform(nc), *v = pool.uniform(nc), *probs = pool.zeros(np);
  float *dq = pool.zeros(nc), *dk = pool.zeros(nc);
  const double pairs = double(s.B) * H * s.T * (s.T + 1) / 2;  // causal (query, key) pairs
  const std::string shape = dims({s.B, s.T, H, d});
  measure(Op::attention, "fwd", shape, kF * (4 * nc + np), 4.0 * pairs * d,
          [&] { be.attention_forward(out, probs, q, k, v, s.B, s.T, H, d); });
  measure(Op::attention, "bwd", shape, kF * (7 * nc + np), 8.0 * pairs * d,
          [&] { be.attention_backward(dq, dk, din, y, probs, q, k, v, s.B, s.T, H, d); });
}

// The rule's inputs as the model feeds them, at the spec's rule and this schedule.
MemoryRuleArgs<float> KernelBench::rule_args(const memory::Schedule& schedule) {
  memory::require_rule_covered(s.rule);
  if (!q) {
    q = pool.uniform(nc, -0.1f, 0.1f), k = pool.uniform(nc, -0.1f, 0.1f), v = pool.uniform(nc);
    beta = pool.uniform(nh, 0.1f, 0.9f), a = pool.uniform(nh, 0.9f, 1.0f), p = pool.uniform(nc, -0.1f, 0.1f);
    eta = pool.uniform(nh, 0.0f, 0.9f), gamma = pool.uniform(nh * 2, 0.1f, 0.9f);
    dq = pool.zeros(nc), dk = pool.zeros(nc), dv = pool.zeros(nc), dp = pool.zeros(nc);
    dbeta = pool.zeros(nh), da = pool.zeros(nh), deta = pool.zeros(nh), dgamma = pool.zeros(nh * 2);
  }
  const bool per_key = memory::rule_traits(s.rule).per_key_retention;
  if (per_key && !a_rows) a_rows = pool.uniform(nc, 0.9f, 1.0f), da_rows = pool.zeros(nc);
  MemoryRuleArgs<float> args;
  args.rule = s.rule;
  args.schedule = &schedule;
  args.B = s.B, args.T = s.T, args.H = H, args.d_k = d, args.d_v = d, args.window = 2;
  args.q = q, args.k = k, args.v = v, args.a = per_key ? a_rows : a;
  if (memory::rule_uses_beta(s.rule)) args.beta = beta;
  if (memory::rule_uses_p(s.rule)) args.p = p;
  if (memory::rule_uses_eta(s.rule)) args.eta = eta;
  if (memory::rule_uses_gamma(s.rule)) args.gamma = gamma;
  return args;
}

double KernelBench::tape() const {
  return kF * double(s.B) * H * (s.T + 1) * D2 * (memory::rule_has_momentum(s.rule) ? 2 : 1);
}

// Its kept states are what the rule moves most.
void KernelBench::memory_rule() {
  for (int E : s.E) {
    const auto schedule = memory::Schedule::uniform(D2, E, s.T);
    const MemoryRuleArgs<float> args = rule_args(schedule);
    MemoryRuleGrads<float> g{dq, dk, dv, args.beta ? dbeta : nullptr, args.a == a ? da : da_rows, args.p ? dp : nullptr,
                             args.eta ? deta : nullptr, args.gamma ? dgamma : nullptr};
    // The GPU's recurrent kernels keep every state (the tape); the chunked form the chunk starts only.
    const bool chunked = be.form_to_run(args) == memory::RuleForm::chunked;
    const int chunk = be.chunk_to_run(args);
    const double kept = chunked ? kF * double(s.B) * H * ((s.T + chunk - 1) / chunk) * D2 : tape();
    const std::string label = "memory_rule " + std::string(memory::rule_name(s.rule)) + " E=" + std::to_string(E) +
                              (chunked ? " chunked C=" + std::to_string(chunk) : " recurrent");
    const std::string shape = dims({s.B, s.T, H, d});
    std::unique_ptr<OpState> state;
    measure(Op::memory_rule, label, "fwd", shape, kept + kF * 4 * nc, 0, [&] {
      state.reset();
      state = be.memory_rule_forward(out, args);
    });
    measure(Op::memory_rule, label, "bwd", shape, kept + kF * 8 * nc, 0,
            [&] { be.memory_rule_backward(g, y, args, *state); });
  }
}

// Block occupancy read from the states of one (untimed) forward, per E.
void KernelBench::memory_block_norms() {
  for (int E : s.E) {
    const auto schedule = memory::Schedule::uniform(D2, E, s.T);
    const MemoryRuleArgs<float> args = rule_args(schedule);
    const std::unique_ptr<OpState> state = be.memory_rule_forward(out, args);
    float* norms = pool.zeros(nh * size_t(E));
    measure(Op::memory_block_norms, "memory_block_norms E=" + std::to_string(E), "", dims({s.B, s.T, H, d}),
            tape() + kF * nh * E, 0, [&] { be.memory_block_norms(norms, args, *state, E); });
  }
}

void KernelBench::adamw() {
  float *params = pool.uniform(nc), *m = pool.zeros(nc), *v2 = pool.zeros(nc);
  measure(Op::adamw, "", dims({int64_t(nc)}), kF * 7 * nc, 0,
          [&] { be.adamw_update(params, y, m, v2, nullptr, nullptr, nc, 1e-3f, 0.9f, 0.95f, 1e-8f, 0.1f, 1); });
}

}  // namespace

KernelBenchResult benchmark_kernels(const KernelBenchSpec& s, const std::string& device, int threads) {
  for (auto [name, value] : {std::pair{"B", s.B}, {"T", s.T}, {"H", s.H}, {"D", s.D}, {"vocab", s.vocab}})
    if (value < 1 || value > (1 << 20)) throw InputError(name, "must be in [1, 1048576]");
  const int64_t D2 = int64_t(s.D) * s.D;
  for (int E : s.E)
    if (E < 1 || E > D2) throw InputError("E", "must be in [1, D^2] = [1, " + std::to_string(D2) + "]");
  if (s.reps < 1 || s.warmup < 0) throw InputError("reps", "needs reps >= 1 and warmup >= 0");

  auto choice = make_backend(device, threads);
  KernelBenchResult result;
  result.device = choice.device;
  result.message = choice.message;
  KernelBench bench(s, *choice.backend, result);
  for (Op op : all_ops()) bench.time(op);  // the op table, in its order
  return result;
}

}  // namespace proteus::backend
