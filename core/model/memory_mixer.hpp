// The memory mixer of math.md section 5, in fla's layer conventions, for every gated rule:
//   q, k, v = W x  ->  short causal depthwise conv (width K) + SiLU  ->  q, k L2-normalised per head
//   beta = sigmoid(W_b x); a = exp(-exp(A_log) softplus(W_a x + dt_bias)) when decaying, or a row of
//   d_k per head for a rule with per_key_retention (per_key_retention.hpp: fla's GLA gate)
//   where the rule reads them (rule_traits.hpp): p = k, q <- q - d_h p;  eta = sigmoid(W_eta x);
//   gamma = sigmoid(W_g x)
//   o = gated rule (E blocks on the schedule)  ->  per-head RMSNorm [⊙ act(W_g x)]  ->  output map.
// The normalised q, k are masked inside the rule ("normalise, then mask"); E = 1 is the baseline.
// block_axis value_rows and layer gate the rule by a (T, H) table of open widths (n_t open value
// dimensions, m_h(t) head h's open key rows; math.md section 8), which the CPU rule skips in every
// form; a backend without the table (CUDA) gets masked inputs (n_t ⊙ v, m_h(t) ⊙ q, k, p; read
// n_t ⊙ o) and runs the ungated rule (the zero-state lemma), composed by backend::OpenWidthsRule,
// which the mixer calls without asking which backend it has.
// output_gate swish | sigmoid multiplies the normed read by act(W_g x) (fla's gated RMSNorm).
// The `normalize` variants re-normalise q, k over the open key rows first (prefix_renorm).
#pragma once
#include <memory>

#include "core/backend/ops/open_widths_rule.hpp"
#include "core/config/config.hpp"
#include "core/memory/block_axis.hpp"
#include "core/model/per_key_retention.hpp"
#include "core/memory/key_normalize.hpp"
#include "core/model/buffer.hpp"
#include "core/model/layer.hpp"

namespace proteus::model {

template <class T>
class MemoryMixer final : public Layer<T> {
 public:
  MemoryMixer(backend::Backend<T>& be, ParamTable& table, const std::string& prefix, int C,
              const config::MixerConfig& cfg, const memory::Schedule& schedule, double std, double out_std,
              double norm_eps);
  void bind(T* params, T* grads) override;
  void forward(T* out, const T* in, int B, int Tn) override;
  void backward(T* din, const T* dout) override;

  // Block norms of the states of the last forward: out (B, H, T, n_blocks) on the backend.
  void block_norms(T* out, int n_blocks) const;
  int heads() const { return H_; }

 private:
  backend::MemoryRuleArgs<T> rule_args() const;
  backend::OpShape rule_shape(int n_blocks = 0) const;  // what the backend is asked about
  // Projection + optional conv: fills pre-conv, conv pre-activation and output of one stream.
  struct Stream {
    size_t w = 0, conv = 0;  // offsets of the projection (H d, C) and conv weight (H d, K)
    Buffer<T> proj, pre, act, dact, dproj;
  };
  void stream_forward(Stream& s, const T* in, int width);
  enum class Into { overwrite, accumulate };  // the first stream's gradient overwrites din, the others add
  void stream_backward(Stream& s, T* din, Into into, int width);

  // How the mask meets the normalisation (config.hpp's MixerConfig::normalize, math.md section 3).
  bool renormalizes() const { return memory::renormalizes(normalize_); }
  // value_rows (layer) with more than one block: the rule is gated by a table of open widths,
  // through OpenWidthsRule (which masks the inputs instead on a backend without the table).
  bool gates_by_widths() const { return axis_ != memory::BlockAxis::key_rows && schedule_.E() > 1; }
  // The q and k the rule reads before layer's mask: re-normalised or not, or q - d_h p (rule_uses_p).
  const T* rule_query() const { return memory::rule_uses_p(rule_) ? qx_.get() : renormalizes() ? qm_.get() : qn_.get(); }
  const T* rule_key() const { return renormalizes() ? km_.get() : kn_.get(); }
  void rule_forward();
  void rule_backward(const backend::MemoryRuleGrads<T>& g);
  // The output gate: the gated read (N, H d) from the normed one; its backward fills don_ and dgpre_.
  using OutputGate = config::OutputGate;
  const T* gate_forward(const T* in);
  void gate_backward(const T* dgated);

  backend::Backend<T>& be_;
  config::MixerConfig cfg_;
  memory::KeyNormalize normalize_;
  memory::Rule rule_;
  memory::RuleForm form_;  // auto: chunked where it applies
  memory::Schedule schedule_;
  memory::BlockAxis axis_;
  memory::Schedule rule_schedule_;  // what the rule op gates by: schedule_, or E = 1 under value_rows
  OutputGate gate_;
  int C_, H_, d_, K_, c_;
  T norm_eps_;
  int B_ = 0, T_ = 0, N_ = 0;
  T* params_ = nullptr;
  T* grads_ = nullptr;
  const T* in_ = nullptr;

  Stream q_, k_, v_;
  size_t wb_ = 0, wa_ = 0, a_log_ = 0, dt_bias_ = 0, weta_ = 0, wgamma_ = 0, dshift_ = 0, onorm_ = 0, wo_ = 0, wg_ = 0;
  Buffer<T> qn_, kn_, rq_, rk_, qx_;                 // normalised q, k (N, H d), their rnorms (N H), q - d_h p
  Buffer<T> qm_, km_, nq_, nk_;                      // re-normalised over the open rows, their open norms
  IdBuffer<T> open_rows_;                            // (T) open key rows at each position
  int open_rows_T_ = 0;                              // the T open_rows_ holds (0: none yet)
  Buffer<T> beta_pre_, beta_, a_pre_, a_, eta_pre_, eta_, gamma_pre_, gamma_;
  Buffer<T> o_, on_, orstd_;                         // rule output, normed (N, H d), rstd (N H)
  IdBuffer<T> open_widths_;                          // (T, H) value_rows' open value dims, layer's key rows
  int open_widths_T_ = 0;                            // the T open_widths_ holds (0: none yet)
  Buffer<T> gpre_, gact_, gated_, dgated_, dgpre_, dgact_;  // output gate: W_g x, act, the gated read
  std::unique_ptr<PerKeyRetention<T>> per_key_a_;  // the decay, where the rule reads a row of d_k
  backend::OpenWidthsRule<T> gated_rule_{be_};      // the rule, under the open widths where they apply
  std::unique_ptr<backend::OpState> rule_state_;
  // Gradients of the activations above.
  Buffer<T> dqm_, dkm_;
  Buffer<T> dqx_, dkr_, dp_, dqn_, dkn_, dbeta_, da_, deta_, dgamma_, dpre_, do_, don_, tmp_;
};

}  // namespace proteus::model
