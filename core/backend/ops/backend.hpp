// The op list: every computation the model does, as a forward and a backward over explicit
// buffers the backend owns (llm.c's layer contract, ggml's backend interface). The CPU backend
// (cpu_backend.hpp, Eigen) implements it in float for work and double for checks; the CUDA
// backend (kernels/) implements Backend<float> and registers itself when built.
// Conventions:
//  - Buffers are device pointers of the backend (host memory on the CPU), row-major; shapes
//    are noted as (B, T, C) etc. N is a count of rows (usually B*T).
//  - Parameter gradients accumulate (+=); activation gradients overwrite (=), as in llm.c.
//  - Weights are stored (out, in) like PyTorch's nn.Linear, so safetensors maps one to one.
//  - The forward names what it saves for the backward (rmsnorm's rstd, attention's probs).
//  - Token ids and targets live on the device too, in int32 buffers (alloc_int32, upload_int32).
//  - A backend says which ops it runs at which shapes (supports); callers ask before relying on
//    an op, as ggml's backends do.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/backend/ops/op.hpp"
#include "core/memory/chunked_rule.hpp"
#include "core/memory/gated_rule.hpp"
#include "core/memory/rule_form.hpp"

namespace proteus::backend {

using memory::Rule;
using memory::Schedule;

// The memory mixer's gated rule over a batch of heads; shapes share (B, T, H). The backward and
// the block norms take the forward's args with the same contents: a backend may read them there.
template <class F>
struct MemoryRuleArgs {
  Rule rule = memory::kDefaultRule;
  const Schedule* schedule = nullptr;  // over D = d_k * d_v
  int B = 0, T = 0, H = 0, d_k = 0, d_v = 0, window = 0;
  const F* q = nullptr;      // (B, T, H, d_k)
  const F* k = nullptr;      // (B, T, H, d_k)
  const F* v = nullptr;      // (B, T, H, d_v)
  const F* beta = nullptr;   // (B, T, H)            where rule_uses_beta
  const F* a = nullptr;      // (B, T, H), (B, T, H, d_k) where per_key_retention; null = no decay
  const F* p = nullptr;      // (B, T, H, d_k)       where rule_uses_p
  const F* eta = nullptr;    // (B, T, H)            where rule_uses_eta
  const F* gamma = nullptr;  // (B, T, H, window)    where rule_uses_gamma
  memory::RuleForm form = memory::RuleForm::automatic;  // which form runs (a backend may have only one)
  int chunk = 0;  // chunk size of the chunked form and checkpoint spacing of the recurrent; 0 = by d_k
  // block_axis value_rows / layer (math.md section 8): (T, H) device ints, head h's open value
  // columns (or key rows) at step t, gating the rule on top of the schedule (null = none). Only a
  // backend that supports memory_rule at OpShape::open_widths is handed a table; callers go through
  // OpenWidthsRule (open_widths_rule.hpp), which gives any other backend v (q, k, p) masked past
  // the widths and no table (the zero-state lemma).
  const int32_t* open_widths = nullptr;
  memory::OpenWidths open_widths_of = memory::OpenWidths::value_columns;
};

template <class F>
struct MemoryRuleGrads {
  F* q = nullptr;      // (B, T, H, d_k)  all overwritten; null for inputs the rule lacks
  F* k = nullptr;
  F* v = nullptr;
  F* beta = nullptr;
  F* a = nullptr;
  F* p = nullptr;
  F* eta = nullptr;
  F* gamma = nullptr;
};

// Opaque per-call state a forward leaves for its backward (the rule's tapes, say).
struct OpState {
  virtual ~OpState() = default;
};

template <class T>
class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;  // "cpu", "cuda"
  // The self-check's per-op fallback: once this backend's chunked form of `rule` has disagreed
  // with the CPU, the rule runs its recurrent form here (both compute math.md section 3's rule).
  void refuse_chunked_form(Rule rule) { refused_chunked_ |= 1u << static_cast<unsigned>(rule); }
  bool chunked_form_refused(Rule rule) const { return (refused_chunked_ >> static_cast<unsigned>(rule)) & 1u; }
  // The next level of that fallback: once `rule` has disagreed with the CPU on its recurrent form
  // too, a model of that rule runs on the CPU (model_backend.hpp) while the other rules stay here.
  void refuse_rule(Rule rule) { refused_rules_ |= 1u << static_cast<unsigned>(rule); }
  bool rule_refused(Rule rule) const { return (refused_rules_ >> static_cast<unsigned>(rule)) & 1u; }
  // Whether a fault has left the device unusable until it is reset (on CUDA an illegal address
  // poisons the whole context: every later call fails). The self-check asks after a failing
  // case, so one faulting kernel costs its own rule, not every op checked after it.
  virtual bool device_lost() { return false; }
  // The form a memory-rule call runs here: resolve_rule_form's answer (which throws where `chunked`
  // is asked and does not apply), recurrent where refused. A backend whose chunked kernels cover
  // fewer rules or shapes narrows it further.
  virtual memory::RuleForm form_to_run(const MemoryRuleArgs<T>& args) const {
    const memory::RuleForm form = memory::resolve_rule_form(args.form, args.rule, *args.schedule, args.d_v);
    return form == memory::RuleForm::chunked && chunked_form_refused(args.rule) ? memory::RuleForm::recurrent : form;
  }
  // The chunk size of the chunked form (and checkpoint spacing of the recurrent one) a call runs.
  virtual int chunk_to_run(const MemoryRuleArgs<T>& args) const {
    return args.chunk > 0 ? args.chunk : static_cast<int>(memory::default_chunk_size(args.d_k));
  }

  // Whether this backend runs `op` at `shape` (fields the op lacks are 0). When it does not,
  // why_not (if given) says which limit, in a phrase ("value width 5000 > 4096").
  virtual bool supports(Op op, const OpShape& shape, std::string* why_not = nullptr) const = 0;

  // ---- memory ----
  virtual T* alloc(size_t n) = 0;  // zeroed
  virtual void free(T* p) = 0;
  virtual void upload(T* dst, const T* host, size_t n) = 0;
  virtual void download(T* host, const T* src, size_t n) = 0;
  virtual void fill(T* dst, T value, size_t n) = 0;
  virtual void copy(T* dst, const T* src, size_t n) = 0;  // memmove semantics: the ranges may overlap
  virtual void synchronize() {}

  // ---- int32 buffers (token ids, targets) ----
  virtual int32_t* alloc_int32(size_t n) = 0;  // zeroed
  virtual void free_int32(int32_t* p) = 0;
  virtual void upload_int32(int32_t* dst, const int32_t* host, size_t n) = 0;
  virtual void download_int32(int32_t* host, const int32_t* src, size_t n) = 0;

  // ---- embedding: out (N, C) = wte[tokens]; tokens (N) device ints in [0, V) ----
  virtual void embedding_forward(T* out, const int32_t* tokens, const T* wte, int N, int C) = 0;
  virtual void embedding_backward(T* dwte, const T* dout, const int32_t* tokens, int N, int C) = 0;

  // ---- rmsnorm: out = in * rstd * w, rstd (N) = 1/sqrt(mean(in^2) + eps) ----
  virtual void rmsnorm_forward(T* out, T* rstd, const T* in, const T* w, int N, int C, T eps) = 0;
  virtual void rmsnorm_backward(T* din, T* dw, const T* dout, const T* in, const T* w, const T* rstd, int N,
                                int C) = 0;

  // ---- matmul: out (N, OC) = in (N, IC) @ w (OC, IC)^T ----
  virtual void matmul_forward(T* out, const T* in, const T* w, int N, int IC, int OC) = 0;
  // din may be null (the input needs no gradient); dw accumulates.
  virtual void matmul_backward(T* din, T* dw, const T* dout, const T* in, const T* w, int N, int IC, int OC) = 0;

  // ---- short causal depthwise convolution + SiLU over time, per channel ----
  // pre (B, T, Ch) = sum_j w[c, j] * in[b, t - (K-1) + j, c] (zero before t = 0); out = silu(pre).
  virtual void conv_silu_forward(T* out, T* pre, const T* in, const T* w, int B, int Tn, int Ch, int K) = 0;
  virtual void conv_silu_backward(T* din, T* dw, const T* dout, const T* in, const T* w, const T* pre, int B,
                                  int Tn, int Ch, int K) = 0;

  // ---- L2 normalisation of each row of width d: out = in / sqrt(sum in^2 + eps) ----
  virtual void l2norm_forward(T* out, T* rnorm, const T* in, int N, int d, T eps) = 0;
  virtual void l2norm_backward(T* din, const T* dout, const T* out, const T* rnorm, int N, int d) = 0;

  // ---- re-normalisation over the open key rows (how the mask meets the normalisation) ----
  // Rows (B, T, H) of width d; rows (T) device ints in [1, d], the open key rows at each position.
  // Where rows[t] = d a row is copied bit for bit (so E = 1 is untouched). Else over i < r:
  // out = in / max(||in[0:r]||, floor) with floor = sqrt(r / d) when capped, eps otherwise; the
  // rest of the row is copied. norm (B T H) saves ||in[0:r]|| (0 for copied rows).
  virtual void prefix_renorm_forward(T* out, T* norm, const T* in, const int32_t* rows, int B, int Tn, int H, int d,
                                     bool capped, T eps) = 0;
  // din = dout on copied elements; on [0, r): s (g - y (g . y)) when the norm was above the floor
  // (s = 1 / norm), g / floor when the floor applied.
  virtual void prefix_renorm_backward(T* din, const T* dout, const T* out, const T* norm, const int32_t* rows, int B,
                                      int Tn, int H, int d, bool capped, T eps) = 0;

  // ---- prefix mask over rows of width d: out = i < rows[t, h] ? x : 0, over (B, T, H, d) ----
  // rows (T, H) device ints in [0, d]. Selection, not a product, so kept elements keep their bits;
  // the op is its own adjoint (block_axis value_rows masks v and o with it, layer q, k and p).
  virtual void prefix_mask(T* out, const T* x, const int32_t* rows, int B, int Tn, int H, int d) = 0;

  // ---- elementwise gates ----
  virtual void sigmoid_forward(T* out, const T* in, size_t n) = 0;
  virtual void sigmoid_backward(T* din, const T* dout, const T* out, size_t n) = 0;
  // Retention a (N, H) = exp(-exp(A_log[h]) * softplus(in + dt_bias[h])); dA_log, ddt_bias accumulate.
  virtual void decay_forward(T* a, const T* in, const T* A_log, const T* dt_bias, int N, int H) = 0;
  virtual void decay_backward(T* din, T* dA_log, T* ddt_bias, const T* da, const T* a, const T* in,
                              const T* A_log, const T* dt_bias, int N, int H) = 0;

  // ---- swiglu: out (N, F) = silu(gate) * up ----
  virtual void swiglu_forward(T* out, const T* gate, const T* up, size_t n) = 0;
  virtual void swiglu_backward(T* dgate, T* dup, const T* dout, const T* gate, const T* up, size_t n) = 0;

  // ---- elementwise product out = x ⊙ y (the sigmoid output gate); out may alias x or y ----
  // Its backward is two products: dx = dout ⊙ y, dy = dout ⊙ x.
  virtual void multiply(T* out, const T* x, const T* y, size_t n) = 0;

  // ---- out = x + y (residuals); axpy: y += alpha * x ----
  virtual void add(T* out, const T* x, const T* y, size_t n) = 0;
  virtual void axpy(T* y, T alpha, const T* x, size_t n) = 0;
  virtual void scale(T* x, T alpha, size_t n) = 0;

  // ---- The query of an erase along p (rule_uses_p): out (N, H, d) = q - d_h p, per head h; dh (H) on the device ----
  virtual void comba_query_forward(T* out, const T* q, const T* p, const T* dh, int N, int H, int d) = 0;
  // q's gradient is dout itself. dp (N, H, d) += -d_h dout (p = k gathers other terms, so this
  // adds); ddh (H) += the sum over rows and d of -dout p (a parameter gradient).
  virtual void comba_query_backward(T* dp, T* ddh, const T* dout, const T* p, const T* dh, int N, int H, int d) = 0;

  // ---- softmax cross-entropy over V classes; targets (N) device ints in [0, V) ----
  // losses (N) = -log softmax(logits)[target] * weight (weight (N), 0 skips a row); probs (N, V) saved.
  virtual void xent_forward(T* losses, T* probs, const T* logits, const int32_t* targets, const T* weight, int N,
                            int V) = 0;
  // dlogits (N, V) = (probs - onehot) * weight * dloss_scale
  virtual void xent_backward(T* dlogits, const T* probs, const int32_t* targets, const T* weight, T dloss_scale,
                             int N, int V) = 0;

  // ---- causal softmax attention, per head; q, k, v, out: (B, T, H, d); probs (B, H, T, T) saved ----
  virtual void attention_forward(T* out, T* probs, const T* q, const T* k, const T* v, int B, int Tn, int H,
                                 int d) = 0;
  virtual void attention_backward(T* dq, T* dk, T* dv, const T* dout, const T* probs, const T* q, const T* k,
                                  const T* v, int B, int Tn, int H, int d) = 0;

  // ---- the gated memory rule over (B, H) heads; o (B, T, H, d_v) ----
  virtual std::unique_ptr<OpState> memory_rule_forward(T* o, const MemoryRuleArgs<T>& args) = 0;
  virtual void memory_rule_backward(const MemoryRuleGrads<T>& grads, const T* dO, const MemoryRuleArgs<T>& args,
                                    const OpState& state) = 0;
  // Norm of each of n_blocks contiguous element ranges of every state S_t (block occupancy):
  // out (B, H, T, n_blocks), read from the forward's state.
  virtual void memory_block_norms(T* out, const MemoryRuleArgs<T>& args, const OpState& state, int n_blocks) = 0;

  // ---- reductions to the host ----
  virtual double sum(const T* x, size_t n) = 0;
  virtual double sum_squares(const T* x, size_t n) = 0;

  // ---- AdamW over a flat parameter vector (decoupled weight decay, bias-corrected at `step`,
  // 1-based). update_mask (n) is the parameter schedule: where it is 0 the parameter, its
  // gradient's effect and both moments are left exactly as they were; null = all active.
  // decay_mask (n): 1 where weight decay applies (matrices), 0 for gains; null = everywhere.
  virtual void adamw_update(T* params, const T* grads, T* m, T* v, const T* update_mask, const T* decay_mask,
                            size_t n, T lr, T beta1, T beta2, T eps, T weight_decay, int step) = 0;

 private:
  uint32_t refused_chunked_ = 0;  // one bit per Rule
  uint32_t refused_rules_ = 0;    // one bit per Rule
};

}  // namespace proteus::backend
