#include "core/model/memory_mixer.hpp"

#include <cmath>
#include <utility>
#include <vector>

#include "core/memory/rule_coverage.hpp"
#include "core/model/op_support.hpp"

namespace proteus::model {
template <class T>
MemoryMixer<T>::MemoryMixer(backend::Backend<T>& be, ParamTable& table, const std::string& prefix, int C,
                            const config::MixerConfig& cfg, const memory::Schedule& schedule, double std,
                            double out_std, double norm_eps)
    : be_(be),
      cfg_(cfg),
      normalize_(cfg.normalize),
      rule_(cfg.rule),
      form_(cfg.form),
      schedule_(schedule),
      axis_(cfg.block_axis),
      rule_schedule_(memory::rule_schedule(axis_, schedule)),
      gate_(cfg.output_gate),
      C_(C),
      H_(cfg.heads),
      d_(cfg.d_head),
      K_(cfg.conv),
      c_(cfg.window),
      norm_eps_(static_cast<T>(norm_eps)) {
  memory::require_rule_covered(rule_);  // before a parameter is registered for a rule no loop runs
  const int HD = H_ * d_;
  const double conv_bound = K_ > 0 ? 1.0 / std::sqrt(static_cast<double>(K_)) : 0.0;  // PyTorch's conv1d init
  for (auto [s, name] : {std::pair{&q_, "q"}, std::pair{&k_, "k"}, std::pair{&v_, "v"}}) {
    s->w = table.add(prefix + "." + name + "_proj.weight", {HD, C}, Init::normal, std, Decay::applied);
    if (K_ > 0) s->conv = table.add(prefix + "." + name + "_conv.weight", {HD, K_}, Init::uniform, conv_bound, Decay::none);
  }
  if (memory::rule_uses_beta(rule_)) wb_ = table.add(prefix + ".b_proj.weight", {H_, C}, Init::normal, std, Decay::applied);
  if (cfg.decay && memory::rule_traits(rule_).per_key_retention) {
    per_key_a_ = std::make_unique<PerKeyRetention<T>>(be, table, prefix, per_key_gate(memory::rule_traits(rule_)), C, H_, d_,
                                                       std);
  } else if (cfg.decay) {
    wa_ = table.add(prefix + ".a_proj.weight", {H_, C}, Init::normal, std, Decay::applied);
    a_log_ = table.add(prefix + ".A_log", {H_}, Init::log_uniform_a, 0, Decay::none);
    dt_bias_ = table.add(prefix + ".dt_bias", {H_}, Init::dt_bias, 0, Decay::none);
  }
  if (memory::rule_uses_eta(rule_)) weta_ = table.add(prefix + ".eta_proj.weight", {H_, C}, Init::normal, std, Decay::applied);
  if (memory::rule_uses_gamma(rule_))
    wgamma_ = table.add(prefix + ".gamma_proj.weight", {H_ * c_, C}, Init::normal, std, Decay::applied);
  if (memory::rule_uses_p(rule_)) dshift_ = table.add(prefix + ".d", {H_}, Init::zeros, 0, Decay::none);
  onorm_ = table.add(prefix + ".o_norm.weight", {d_}, Init::ones, 0, Decay::none);
  wo_ = table.add(prefix + ".o_proj.weight", {C, HD}, Init::normal, out_std, Decay::applied);
  // Last, so that output_gate none registers (and draws) exactly today's parameters.
  if (gate_ != OutputGate::none) wg_ = table.add(prefix + ".g_proj.weight", {HD, C}, Init::normal, std, Decay::applied);
}

template <class T>
void MemoryMixer<T>::bind(T* params, T* grads) {
  params_ = params;
  grads_ = grads;
}

template <class T>
backend::MemoryRuleArgs<T> MemoryMixer<T>::rule_args() const {
  backend::MemoryRuleArgs<T> args;
  args.rule = rule_;
  args.schedule = &rule_schedule_;
  args.B = B_, args.T = T_, args.H = H_, args.d_k = d_, args.d_v = d_, args.window = c_;
  args.q = rule_query();
  args.k = rule_key();
  args.v = v_.act.get();
  args.beta = memory::rule_uses_beta(rule_) ? beta_.get() : nullptr;
  args.a = cfg_.decay ? a_.get() : nullptr;
  args.p = memory::rule_uses_p(rule_) ? args.k : nullptr;
  args.eta = memory::rule_uses_eta(rule_) ? eta_.get() : nullptr;
  args.gamma = memory::rule_uses_gamma(rule_) ? gamma_.get() : nullptr;
  args.form = form_;
  if (gates_by_widths()) {
    args.open_widths = open_widths_.get();
    args.open_widths_of = axis_ == memory::BlockAxis::layer ? memory::OpenWidths::key_rows : memory::OpenWidths::value_columns;
  }
  return args;
}

template <class T>
void MemoryMixer<T>::stream_forward(Stream& s, const T* in, int width) {
  const size_t n = static_cast<size_t>(N_) * width;
  be_.matmul_forward(s.proj.reserve(be_, n), in, params_ + s.w, N_, C_, width);
  if (K_ > 0)
    be_.conv_silu_forward(s.act.reserve(be_, n), s.pre.reserve(be_, n), s.proj, params_ + s.conv, B_, T_, width, K_);
  else
    be_.copy(s.act.reserve(be_, n), s.proj, n);
}

// din = W^T (d proj); `first` overwrites din, later streams add to it.
template <class T>
void MemoryMixer<T>::stream_backward(Stream& s, T* din, Into into, int width) {
  const bool first = into == Into::overwrite;
  const size_t n = static_cast<size_t>(N_) * width, nc = static_cast<size_t>(N_) * C_;
  T* dproj = s.dproj.reserve(be_, n);
  if (K_ > 0)
    be_.conv_silu_backward(dproj, grads_ + s.conv, s.dact, s.proj, params_ + s.conv, s.pre, B_, T_, width, K_);
  else
    be_.copy(dproj, s.dact, n);
  T* target = first ? din : tmp_.reserve(be_, nc);
  be_.matmul_backward(target, grads_ + s.w, dproj, in_, params_ + s.w, N_, C_, width);
  if (!first) be_.axpy(din, T(1), tmp_, nc);
}

template <class T>
backend::OpShape MemoryMixer<T>::rule_shape(int n_blocks) const {
  backend::OpShape s;
  s.rule = rule_;
  s.B = B_, s.T = T_, s.H = H_, s.d_k = d_, s.d_v = d_, s.window = c_, s.n_blocks = n_blocks;
  s.open_widths = gates_by_widths();
  return s;
}

template <class T>
void MemoryMixer<T>::forward(T* out, const T* in, int B, int Tn) {
  B_ = B, T_ = Tn, N_ = B * Tn, in_ = in;
  const int HD = H_ * d_, NH = N_ * H_;
  {
    std::string why;
    if (!backend::OpenWidthsRule<T>::supported(be_, rule_shape(), &why))
      throw InputError("device", "the " + be_.name() + " backend cannot run memory_rule for this model (" + why +
                                     "); choose device cpu");
  }
  if (renormalizes()) {
    backend::OpShape renorm;
    renorm.B = B_, renorm.T = T_, renorm.H = H_, renorm.d = d_;
    require_op(be_, backend::Op::prefix_renorm, renorm);
  }
  if (memory::rule_uses_p(rule_)) {
    backend::OpShape shift;
    shift.N = N_, shift.H = H_, shift.d = d_;
    require_op(be_, backend::Op::comba_query, shift);
  }
  const size_t n = static_cast<size_t>(N_) * HD;
  stream_forward(q_, in, HD);
  stream_forward(k_, in, HD);
  stream_forward(v_, in, HD);
  const T l2_eps = T(1e-6);
  be_.l2norm_forward(qn_.reserve(be_, n), rq_.reserve(be_, NH), q_.act, NH, d_, l2_eps);
  be_.l2norm_forward(kn_.reserve(be_, n), rk_.reserve(be_, NH), k_.act, NH, d_, l2_eps);
  if (renormalizes() && open_rows_T_ != T_) {  // the table depends on T only: uploaded when T changes
    // Over the open key rows of each position: rows touched by the active prefix of the state.
    std::vector<int32_t> rows(static_cast<size_t>(T_));
    for (int t = 0; t < T_; ++t) rows[t] = static_cast<int32_t>(schedule_.active_rows(t + 1, d_));
    be_.upload_int32(open_rows_.reserve(be_, rows.size()), rows.data(), rows.size());
    open_rows_T_ = T_;
  }
  if (renormalizes()) {
    const bool capped = normalize_ == memory::KeyNormalize::capped_renormalize;
    be_.prefix_renorm_forward(qm_.reserve(be_, n), nq_.reserve(be_, NH), qn_, open_rows_, B_, T_, H_, d_, capped, l2_eps);
    be_.prefix_renorm_forward(km_.reserve(be_, n), nk_.reserve(be_, NH), kn_, open_rows_, B_, T_, H_, d_, capped, l2_eps);
  }
  const T* qused = renormalizes() ? qm_.get() : qn_.get();
  const T* kused = renormalizes() ? km_.get() : kn_.get();
  if (memory::rule_uses_p(rule_))  // q <- q - d_h p with p = k, per head h
    be_.comba_query_forward(qx_.reserve(be_, n), qused, kused, params_ + dshift_, N_, H_, d_);
  if (memory::rule_uses_beta(rule_)) {
    be_.matmul_forward(beta_pre_.reserve(be_, NH), in, params_ + wb_, N_, C_, H_);
    be_.sigmoid_forward(beta_.reserve(be_, NH), beta_pre_, NH);
  }
  if (per_key_a_) {
    per_key_a_->forward(a_.reserve(be_, n), in, params_, N_);
  } else if (cfg_.decay) {
    be_.matmul_forward(a_pre_.reserve(be_, NH), in, params_ + wa_, N_, C_, H_);
    be_.decay_forward(a_.reserve(be_, NH), a_pre_, params_ + a_log_, params_ + dt_bias_, N_, H_);
  }
  if (memory::rule_uses_eta(rule_)) {
    be_.matmul_forward(eta_pre_.reserve(be_, NH), in, params_ + weta_, N_, C_, H_);
    be_.sigmoid_forward(eta_.reserve(be_, NH), eta_pre_, NH);
  }
  if (memory::rule_uses_gamma(rule_)) {
    const size_t ng = static_cast<size_t>(NH) * c_;
    be_.matmul_forward(gamma_pre_.reserve(be_, ng), in, params_ + wgamma_, N_, C_, H_ * c_);
    be_.sigmoid_forward(gamma_.reserve(be_, ng), gamma_pre_, ng);
  }
  rule_forward();
  be_.rmsnorm_forward(on_.reserve(be_, n), orstd_.reserve(be_, NH), o_, params_ + onorm_, NH, d_, norm_eps_);
  be_.matmul_forward(out, gate_ == OutputGate::none ? on_.get() : gate_forward(in), params_ + wo_, N_, HD, C_);
}

// The rule on what the block axis gives it: key_rows gates inside the rule by the schedule;
// value_rows and layer by their table of open widths (OpenWidthsRule: the table, or the masks).
template <class T>
void MemoryMixer<T>::rule_forward() {
  const size_t n = static_cast<size_t>(N_) * H_ * d_;
  if (gates_by_widths() && open_widths_T_ != T_) {  // the table depends on T only: uploaded when T changes
    const auto widths = memory::open_widths_table(axis_, schedule_, T_, H_, d_, d_);
    be_.upload_int32(open_widths_.reserve(be_, widths.size()), widths.data(), widths.size());
    open_widths_T_ = T_;
  }
  rule_state_ = gated_rule_.forward(o_.reserve(be_, n), rule_args());
}

// The adjoint of rule_forward.
template <class T>
void MemoryMixer<T>::rule_backward(const backend::MemoryRuleGrads<T>& g) {
  gated_rule_.backward(g, do_, rule_args(), *rule_state_);
}

template <class T>
const T* MemoryMixer<T>::gate_forward(const T* in) {
  const size_t n = static_cast<size_t>(N_) * H_ * d_;
  be_.matmul_forward(gpre_.reserve(be_, n), in, params_ + wg_, N_, C_, H_ * d_);
  T* gated = gated_.reserve(be_, n);
  if (gate_ == OutputGate::swish) {
    be_.swiglu_forward(gated, gpre_, on_, n);  // silu(W_g x) ⊙ RMSNorm(o)
  } else {
    be_.sigmoid_forward(gact_.reserve(be_, n), gpre_, n);
    be_.multiply(gated, on_, gact_, n);
  }
  return gated;
}

template <class T>
void MemoryMixer<T>::gate_backward(const T* dgated) {
  const size_t n = static_cast<size_t>(N_) * H_ * d_;
  if (gate_ == OutputGate::swish) {
    be_.swiglu_backward(dgpre_.reserve(be_, n), don_.reserve(be_, n), dgated, gpre_, on_, n);
    return;
  }
  be_.multiply(don_.reserve(be_, n), dgated, gact_, n);
  be_.multiply(dgact_.reserve(be_, n), dgated, on_, n);
  be_.sigmoid_backward(dgpre_.reserve(be_, n), dgact_, gact_, n);
}

template <class T>
void MemoryMixer<T>::backward(T* din, const T* dout) {
  const int HD = H_ * d_, NH = N_ * H_;
  const size_t n = static_cast<size_t>(N_) * HD;
  if (gate_ == OutputGate::none) {
    be_.matmul_backward(don_.reserve(be_, n), grads_ + wo_, dout, on_, params_ + wo_, N_, HD, C_);
  } else {
    be_.matmul_backward(dgated_.reserve(be_, n), grads_ + wo_, dout, gated_, params_ + wo_, N_, HD, C_);
    gate_backward(dgated_);
  }
  be_.rmsnorm_backward(do_.reserve(be_, n), grads_ + onorm_, don_, o_, params_ + onorm_, orstd_, NH, d_);

  backend::MemoryRuleGrads<T> g;
  g.q = dqx_.reserve(be_, n);
  g.k = dkr_.reserve(be_, n);
  g.v = v_.dact.reserve(be_, n);
  if (memory::rule_uses_beta(rule_)) g.beta = dbeta_.reserve(be_, NH);
  if (cfg_.decay) g.a = da_.reserve(be_, per_key_a_ ? n : NH);
  if (memory::rule_uses_p(rule_)) g.p = dp_.reserve(be_, n);
  if (memory::rule_uses_eta(rule_)) g.eta = deta_.reserve(be_, NH);
  if (memory::rule_uses_gamma(rule_)) g.gamma = dgamma_.reserve(be_, static_cast<size_t>(NH) * c_);
  rule_backward(g);

  // Back to the q, k the rule read: q - d_h k and p = k (rule_uses_p) also reach k.
  const T* kused = renormalizes() ? km_.get() : kn_.get();
  T* dqn = dqn_.reserve(be_, n);
  T* dkn = dkn_.reserve(be_, n);
  be_.copy(dqn, dqx_, n);
  be_.copy(dkn, dkr_, n);
  if (memory::rule_uses_p(rule_)) {
    be_.axpy(dkn, T(1), dp_, n);
    be_.comba_query_backward(dkn, grads_ + dshift_, dqx_, kused, params_ + dshift_, N_, H_, d_);
  }
  if (renormalizes()) {  // then through the re-normalisation over the open rows
    const bool capped = normalize_ == memory::KeyNormalize::capped_renormalize;
    const T l2_eps = T(1e-6);
    be_.prefix_renorm_backward(dqm_.reserve(be_, n), dqn, qm_, nq_, open_rows_, B_, T_, H_, d_, capped, l2_eps);
    be_.prefix_renorm_backward(dkm_.reserve(be_, n), dkn, km_, nk_, open_rows_, B_, T_, H_, d_, capped, l2_eps);
    dqn = dqm_.get();
    dkn = dkm_.get();
  }
  be_.l2norm_backward(q_.dact.reserve(be_, n), dqn, qn_, rq_, NH, d_);
  be_.l2norm_backward(k_.dact.reserve(be_, n), dkn, kn_, rk_, NH, d_);

  stream_backward(q_, din, Into::overwrite, HD);
  stream_backward(k_, din, Into::accumulate, HD);
  stream_backward(v_, din, Into::accumulate, HD);

  const size_t nc = static_cast<size_t>(N_) * C_;
  auto gate_to_input = [&](size_t w, const T* dpre, int width) {
    be_.matmul_backward(tmp_.reserve(be_, nc), grads_ + w, dpre, in_, params_ + w, N_, C_, width);
    be_.axpy(din, T(1), tmp_, nc);
  };
  if (memory::rule_uses_beta(rule_)) {
    be_.sigmoid_backward(dpre_.reserve(be_, NH), dbeta_, beta_, NH);
    gate_to_input(wb_, dpre_, H_);
  }
  if (per_key_a_) {
    per_key_a_->backward(din, grads_, da_, a_, in_, params_, N_);
  } else if (cfg_.decay) {
    be_.decay_backward(dpre_.reserve(be_, NH), grads_ + a_log_, grads_ + dt_bias_, da_, a_, a_pre_,
                       params_ + a_log_, params_ + dt_bias_, N_, H_);
    gate_to_input(wa_, dpre_, H_);
  }
  if (memory::rule_uses_eta(rule_)) {
    be_.sigmoid_backward(dpre_.reserve(be_, NH), deta_, eta_, NH);
    gate_to_input(weta_, dpre_, H_);
  }
  if (memory::rule_uses_gamma(rule_)) {
    const size_t ng = static_cast<size_t>(NH) * c_;
    be_.sigmoid_backward(dpre_.reserve(be_, ng), dgamma_, gamma_, ng);
    gate_to_input(wgamma_, dpre_, H_ * c_);
  }
  if (gate_ != OutputGate::none) gate_to_input(wg_, dgpre_, HD);
}

template <class T>
void MemoryMixer<T>::block_norms(T* out, int n_blocks) const {
  backend::OpShape s = rule_shape(n_blocks);
  s.open_widths = false;  // the norms read the state the rule left, by either path
  require_op(be_, backend::Op::memory_block_norms, s);
  gated_rule_.block_norms(out, rule_args(), *rule_state_, n_blocks);
}

template class MemoryMixer<float>;
template class MemoryMixer<double>;

}  // namespace proteus::model
