#include "core/model/model.hpp"

#include <cmath>
#include <random>
#include <stdexcept>

#include "core/config/mixer_schedule.hpp"
#include "core/model/attention_mixer.hpp"
#include "core/model/memory_mixer.hpp"
#include "core/model/swiglu_mlp.hpp"

namespace proteus::model {

template <class T>
Model<T>::Model(const config::ModelConfig& cfg, int horizon, backend::Backend<T>& be, uint64_t seed)
    : cfg_(cfg),
      be_(be),
      C_(cfg.d_model),
      V_(cfg.vocab),
      L_(cfg.layers),
      M_(static_cast<int>(cfg.mlp.chain.size())),
      horizon_(horizon) {
  if (M_ < 1) throw std::invalid_argument("model.mlp.chain must hold at least one block");
  const double std = cfg.init_std;
  // GPT-2's scaling of residual outputs by the number of residual branches: a mixer and M chain
  // blocks per layer (2 L for the one-MLP model).
  const double out_std = std / std::sqrt(static_cast<double>(1 + M_) * L_);
  const int F = config::resolved_d_hidden(cfg);
  wte_ = table_.add("embed.weight", {V_, C_}, Init::normal, std, Decay::applied);
  const auto& m = cfg.mixer;
  for (int l = 0; l < L_; ++l) {
    const std::string p = "layers." + std::to_string(l);
    ln1_.push_back(table_.add(p + ".mixer_norm.weight", {C_}, Init::ones, 0, Decay::none));
    if (m.type == config::MixerType::attention) {
      mixers_.push_back(std::make_unique<AttentionMixer<T>>(be, table_, p + ".mixer", C_, m.heads, m.d_head, std, out_std));
    } else {
      const auto schedule = config::schedule_from_config(m, horizon);
      mixers_.push_back(std::make_unique<MemoryMixer<T>>(be, table_, p + ".mixer", C_, m, schedule, std, out_std,
                                                         cfg.norm_eps));
    }
    // The MLP chain (math.md section 8, Hope-Attention): y = MLP_m(... MLP_1(h)), each block a pre-norm
    // residual step x += SwiGLU_i(RMSNorm_i(x)) like the one MLP it generalises, rather than a bare
    // composition inside one residual branch: with the init's small output maps a bare composition
    // would hand MLP_2.. a near-zero input (and MLP_1 a vanishing gradient), while residual steps
    // keep every block's input at the stream's scale. Block 0 keeps the one MLP's names and place
    // (so the default chain is today's model bit for bit); block i >= 1 registers its norm gain and
    // maps together after it, one contiguous range per layer for the optimiser.
    for (int i = 0; i < M_; ++i) {
      const std::string b = i == 0 ? p + ".mlp" : p + ".mlp_chain." + std::to_string(i);
      ln2_.push_back(table_.add(i == 0 ? p + ".mlp_norm.weight" : b + ".norm.weight", {C_}, Init::ones, 0, Decay::none));
      mlps_.push_back(std::make_unique<SwigluMlp<T>>(be, table_, b, C_, F, std, out_std));
    }
  }
  lnf_ = table_.add("norm.weight", {C_}, Init::ones, 0, Decay::none);
  params_ = be_.alloc(table_.total());
  grads_ = be_.alloc(table_.total());
  for (auto& mx : mixers_) mx->bind(params_, grads_);
  for (auto& mlp : mlps_) mlp->bind(params_, grads_);
  init_params(seed);
}

template <class T>
Model<T>::~Model() {
  be_.free(params_);
  be_.free(grads_);
}

template <class T>
void Model<T>::init_params(uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> host(table_.total());
  for (const auto& e : table_.entries()) {
    T* p = host.data() + e.offset;
    std::normal_distribution<double> normal(0.0, e.std > 0 ? e.std : 1.0);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for (size_t i = 0; i < e.size; ++i) {
      double x = 0;
      switch (e.init) {
        case Init::normal: x = normal(rng); break;
        case Init::zeros: x = 0; break;
        case Init::ones: x = 1; break;
        case Init::uniform: x = (2 * unit(rng) - 1) * e.std; break;
        case Init::log_uniform_a: x = std::log(1.0 + 15.0 * unit(rng)); break;
        case Init::dt_bias: {
          const double dt = std::exp(std::log(1e-3) + unit(rng) * (std::log(1e-1) - std::log(1e-3)));
          x = dt + std::log(-std::expm1(-dt));  // softplus^-1(dt)
          break;
        }
      }
      p[i] = static_cast<T>(x);
    }
  }
  be_.upload(params_, host.data(), host.size());
}

template <class T>
void Model<T>::zero_grads() {
  be_.fill(grads_, T(0), table_.total());
}

template <class T>
double Model<T>::forward(const int32_t* tokens, const int32_t* targets, const float* weights, int B, int Tn) {
  B_ = B, T_ = Tn;
  const int N = B * Tn;
  const size_t nc = static_cast<size_t>(N) * C_;
  for (int n = 0; n < N; ++n)
    if (tokens[n] < 0 || tokens[n] >= V_)
      throw std::out_of_range("token " + std::to_string(tokens[n]) + " outside the vocabulary [0, " +
                              std::to_string(V_) + ")");
  be_.upload_int32(tokens_.reserve(be_, N), tokens, N);
  T* xs = xs_.reserve(be_, nc * (L_ + 1));
  T* xmid = xmid_.reserve(be_, nc * L_);
  T* h1 = h1_.reserve(be_, nc * L_);
  T* h2 = h2_.reserve(be_, nc * L_ * M_);
  T* rstd1 = rstd1_.reserve(be_, static_cast<size_t>(N) * L_);
  T* rstd2 = rstd2_.reserve(be_, static_cast<size_t>(N) * L_ * M_);
  T* xchain = M_ > 1 ? xchain_.reserve(be_, nc * L_ * (M_ - 1)) : nullptr;
  T* tmp = tmp_.reserve(be_, nc);
  const T eps = static_cast<T>(cfg_.norm_eps);

  be_.embedding_forward(xs, tokens_, params_ + wte_, N, C_);
  for (int l = 0; l < L_; ++l) {
    T* x = xs + l * nc;
    be_.rmsnorm_forward(h1 + l * nc, rstd1 + l * N, x, params_ + ln1_[l], N, C_, eps);
    mixers_[l]->forward(tmp, h1 + l * nc, B, Tn);
    be_.add(xmid + l * nc, x, tmp, nc);
    const T* in = xmid + l * nc;  // the chain's residual stream, block by block
    for (int i = 0; i < M_; ++i) {
      const size_t at = static_cast<size_t>(l) * M_ + i;
      be_.rmsnorm_forward(h2 + at * nc, rstd2 + at * N, in, params_ + ln2_[at], N, C_, eps);
      mlps_[at]->forward(tmp, h2 + at * nc, B, Tn);
      T* out = i == M_ - 1 ? xs + (l + 1) * nc : xchain + (static_cast<size_t>(l) * (M_ - 1) + i) * nc;
      be_.add(out, in, tmp, nc);
      in = out;
    }
  }
  be_.rmsnorm_forward(hf_.reserve(be_, nc), rstdf_.reserve(be_, N), xs + L_ * nc, params_ + lnf_, N, C_, eps);
  be_.matmul_forward(logits_.reserve(be_, static_cast<size_t>(N) * V_), hf_, params_ + wte_, N, C_, V_);

  has_targets_ = targets != nullptr;
  if (!has_targets_) return 0.0;
  for (int n = 0; n < N; ++n)  // a weight-0 row's target is never read
    if ((!weights || weights[n] != 0.0f) && (targets[n] < 0 || targets[n] >= V_))
      throw std::out_of_range("target " + std::to_string(targets[n]) + " outside the vocabulary [0, " +
                              std::to_string(V_) + ")");
  be_.upload_int32(targets_.reserve(be_, N), targets, N);
  std::vector<T> w(N, T(1));
  if (weights)
    for (int n = 0; n < N; ++n) w[n] = static_cast<T>(weights[n]);
  weight_sum_ = 0;
  for (T x : w) weight_sum_ += static_cast<double>(x);
  be_.upload(weights_.reserve(be_, N), w.data(), N);
  be_.xent_forward(losses_.reserve(be_, N), probs_.reserve(be_, static_cast<size_t>(N) * V_), logits_,
                   targets_, weights_, N, V_);
  return weight_sum_ > 0 ? be_.sum(losses_, N) / weight_sum_ : 0.0;
}

template <class T>
void Model<T>::backward() {
  if (!has_targets_) throw std::logic_error("Model::backward needs a forward with targets");
  zero_grads();
  const int N = B_ * T_;
  const size_t nc = static_cast<size_t>(N) * C_;
  T* dx = dx_.reserve(be_, nc);
  T* dxmid = dxmid_.reserve(be_, nc);
  T* dh = dh_.reserve(be_, nc);
  T* tmp = tmp_.reserve(be_, nc);
  const T scale = weight_sum_ > 0 ? static_cast<T>(1.0 / weight_sum_) : T(0);
  be_.xent_backward(dlogits_.reserve(be_, static_cast<size_t>(N) * V_), probs_, targets_, weights_, scale, N,
                    V_);
  be_.matmul_backward(dhf_.reserve(be_, nc), grads_ + wte_, dlogits_, hf_, params_ + wte_, N, C_, V_);
  be_.rmsnorm_backward(dx, grads_ + lnf_, dhf_, xs_.get() + L_ * nc, params_ + lnf_, rstdf_, N, C_);
  for (int l = L_ - 1; l >= 0; --l) {
    for (int i = M_ - 1; i >= 0; --i) {  // dx: the gradient of the stream after block i
      const size_t at = static_cast<size_t>(l) * M_ + i;
      const T* in = i == 0 ? xmid_.get() + l * nc : xchain_.get() + (static_cast<size_t>(l) * (M_ - 1) + i - 1) * nc;
      mlps_[at]->backward(dh, dx);
      be_.rmsnorm_backward(tmp, grads_ + ln2_[at], dh, in, params_ + ln2_[at], rstd2_.get() + at * N, N, C_);
      if (i == 0) be_.add(dxmid, dx, tmp, nc);
      else be_.axpy(dx, T(1), tmp, nc);
    }
    mixers_[l]->backward(dh, dxmid);
    be_.rmsnorm_backward(tmp, grads_ + ln1_[l], dh, xs_.get() + l * nc, params_ + ln1_[l], rstd1_.get() + l * N, N,
                         C_);
    be_.add(dx, dxmid, tmp, nc);
  }
  be_.embedding_backward(grads_ + wte_, dx, tokens_, N, C_);
}

template <class T>
std::vector<double> Model<T>::position_losses() const {
  const int N = B_ * T_;
  std::vector<T> losses(N), w(N);
  be_.download(losses.data(), losses_, N);
  be_.download(w.data(), weights_, N);
  std::vector<double> out(N, 0.0);
  for (int n = 0; n < N; ++n)
    if (w[n] != T(0)) out[n] = static_cast<double>(losses[n]) / static_cast<double>(w[n]);
  return out;
}

template <class T>
std::vector<float> Model<T>::logits_at(int b, int t) const {
  std::vector<T> row(V_);
  be_.download(row.data(), logits_.get() + (static_cast<size_t>(b) * T_ + t) * V_, V_);
  return std::vector<float>(row.begin(), row.end());
}

template <class T>
std::vector<float> Model<T>::block_occupancy(int n_blocks) const {
  std::vector<float> out;
  for (const auto& mx : mixers_) {
    const auto* mem = dynamic_cast<const MemoryMixer<T>*>(mx.get());
    if (!mem) return {};
    const size_t n = static_cast<size_t>(B_) * mem->heads() * T_ * n_blocks;
    Buffer<T> buf;
    mem->block_norms(buf.reserve(be_, n), n_blocks);
    std::vector<T> host(n);
    be_.download(host.data(), buf, n);
    out.insert(out.end(), host.begin(), host.end());
  }
  return out;
}

template <class T>
int Model<T>::mlp_hidden() const {
  return config::resolved_d_hidden(cfg_);
}

template <class T>
std::vector<T> Model<T>::mlp_update_mask(int64_t active_units) const {
  std::vector<T> mask(table_.total(), T(1));
  for (const auto& mlp : mlps_) {
    const int F = mlp->hidden();
    for (int64_t j = active_units; j < F; ++j)
      for (int c = 0; c < C_; ++c) {
        mask[mlp->w1_offset() + j * C_ + c] = T(0);
        mask[mlp->w3_offset() + j * C_ + c] = T(0);
        mask[mlp->w2_offset() + static_cast<size_t>(c) * F + j] = T(0);
      }
  }
  return mask;
}

template <class T>
std::vector<ParamRange> Model<T>::mlp_block_ranges(int i) const {
  if (i < 0 || i >= M_) throw std::out_of_range("MLP chain block " + std::to_string(i) + " of " + std::to_string(M_));
  std::vector<ParamRange> ranges;
  for (int l = 0; l < L_; ++l) {
    const size_t at = static_cast<size_t>(l) * M_ + i;
    const auto& mlp = *mlps_[at];
    // Registered together: norm gain, W1, W3, W2 (block 0: the norm sits before it, the same way).
    const size_t begin = ln2_[at], end = mlp.w2_offset() + static_cast<size_t>(C_) * mlp.hidden();
    if (mlp.w1_offset() != begin + C_) throw std::logic_error("an MLP chain block's parameters are not contiguous");
    ranges.push_back({begin, end - begin});
  }
  return ranges;
}

template <class T>
std::vector<T> Model<T>::decay_mask() const {
  std::vector<T> mask(table_.total(), T(0));
  for (const auto& e : table_.entries())
    if (e.decay) std::fill(mask.begin() + e.offset, mask.begin() + e.offset + e.size, T(1));
  return mask;
}

template class Model<float>;
template class Model<double>;

}  // namespace proteus::model
