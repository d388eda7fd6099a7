// The language model of math.md section 5: byte embedding, then per layer
//   x += Mixer(RMSNorm(x));  x += SwiGLU(RMSNorm(x))
// a final RMSNorm and an LM head tied to the embedding. With an MLP chain (model.mlp.chain, math.md
// section 8's Hope-Attention) the one SwiGLU step becomes m of them, x += SwiGLU_i(RMSNorm_i(x))
// for i = 1..m, each block with its own norm gain. The mixer is the gated memory (any rule,
// E blocks on a schedule over positions) or causal softmax attention. Runs on any Backend<T>:
// float for work, double for gradient checks. Parameters and gradients are one flat vector each.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/backend/ops/backend.hpp"
#include "core/config/config.hpp"
#include "core/model/buffer.hpp"
#include "core/model/layer.hpp"
#include "core/model/param_table.hpp"

namespace proteus::model {

template <class T>
class SwigluMlp;
template <class T>
class MemoryMixer;

template <class T>
class Model {
 public:
  // horizon: the schedule's N in positions (config::resolved_mixer_horizon). Initialises the
  // parameters from `seed` (same seed, same bits).
  Model(const config::ModelConfig& cfg, int horizon, backend::Backend<T>& be, uint64_t seed);
  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  const config::ModelConfig& config() const { return cfg_; }
  int horizon() const { return horizon_; }  // the memory schedule's N in positions
  backend::Backend<T>& backend() const { return be_; }
  const ParamTable& table() const { return table_; }
  size_t num_params() const { return table_.total(); }
  T* params() const { return params_; }  // backend memory, (num_params)
  T* grads() const { return grads_; }
  void zero_grads();

  // Forward over host tokens (B, T), checked and copied to the backend. With targets (host,
  // (B, T)) it also computes the weighted next-token loss: returns sum(w * nll) / sum(w)
  // (w = weights, host (B, T), null = all 1).
  double forward(const int32_t* tokens, const int32_t* targets, const float* weights, int B, int Tn);
  // Gradients of the last forward's mean loss into grads() (zeroed first).
  void backward();

  // After a forward: per-position NLL (B, T) in nats (0 where the weight was 0), on the host.
  std::vector<double> position_losses() const;
  // After a forward: logits of one position, on the host (V).
  std::vector<float> logits_at(int b, int t) const;
  // After a forward: memory block occupancy, the norm of each of n_blocks contiguous ranges of
  // every head's state S_t, on the host as (layers, B, H, T, n_blocks). Empty for attention.
  std::vector<float> block_occupancy(int n_blocks) const;

  // Hidden units of every MLP, every block of every chain (the parameter schedule's blocks): a
  // mask over the flat parameters, 1 except on the rows of W1, W3 and columns of W2 at or past
  // active_units.
  std::vector<T> mlp_update_mask(int64_t active_units) const;
  // 1 on parameters that take weight decay.
  std::vector<T> decay_mask() const;
  int mlp_hidden() const;
  // Blocks in each layer's MLP chain (model.mlp.chain; 1 = the one MLP).
  int mlp_chain_length() const { return M_; }
  // The parameters of chain block i (its norm gain, W1, W3 and W2) in every layer: one contiguous
  // range of the flat vector per layer, in layer order. What the optimiser updates every
  // model.mlp.chain[i].every steps.
  std::vector<ParamRange> mlp_block_ranges(int i) const;

 private:
  void init_params(uint64_t seed);

  config::ModelConfig cfg_;
  backend::Backend<T>& be_;
  ParamTable table_;
  int C_, V_, L_, M_;
  int horizon_;
  size_t wte_, lnf_;
  std::vector<size_t> ln1_;
  std::vector<size_t> ln2_;  // (L, M): the norm gain in front of each chain block
  std::vector<std::unique_ptr<Layer<T>>> mixers_;
  std::vector<std::unique_ptr<SwigluMlp<T>>> mlps_;  // (L, M): layer l's chain block i at l * M + i
  T* params_ = nullptr;
  T* grads_ = nullptr;

  // Activations of the last forward, sized by (B, T).
  int B_ = 0, T_ = 0;
  bool has_targets_ = false;
  IdBuffer<T> tokens_, targets_;  // (B, T) on the backend
  Buffer<T> weights_, xs_, xmid_, h1_, h2_, rstd1_, rstd2_, hf_, rstdf_, logits_, probs_, losses_;
  Buffer<T> xchain_;  // (L, M - 1, B, T, C): the residual stream after each chain block but the last
  Buffer<T> dx_, dxmid_, dh_, dhf_, dlogits_, tmp_;
  double weight_sum_ = 0;
};

}  // namespace proteus::model
