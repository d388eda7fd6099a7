// AdamW with the paper's parameter schedule (its Hope extension): the MLP hidden units are
// split into E blocks that unlock over training steps on a Schedule, and the update, the
// gradient's effect and both moments of locked units are masked, so they keep their values.
// Without the parameter schedule it is plain AdamW. The moments live on the model's backend.
//
// With an MLP chain (model.mlp.chain, math.md section 8's Hope-Attention), chain block i with
// every = C_i > 1 is a slow block: each step its gradient (after clipping, as the optimiser sees it)
// is added to a sum, and every C_i steps it takes one AdamW step with the mean of that sum (its own
// step count, step / C_i, for the bias corrections), then the sum restarts from 0. Its weights do
// not move within a period, so the C_i gradients summed are gradients of the same weights. The
// parameter schedule gates that step with the same mask, at the step it is taken, as the every-step
// parameters (a unit still locked then keeps weight and moments; one unlocked within the period
// gets the period's whole mean). A partial period at the end of training is not applied.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/config/config.hpp"
#include "core/memory/schedule.hpp"
#include "core/model/buffer.hpp"
#include "core/model/model.hpp"

namespace proteus::train {

template <class T>
class GatedAdamW {
 public:
  GatedAdamW(model::Model<T>& model, const config::RunConfig& cfg);

  // One update at 1-based `step` with learning rate lr, from the model's current gradients.
  void step(int step, double lr);
  // Hidden units the parameter schedule has unlocked at `step` (all of them when it is off).
  int64_t active_hidden_units(int step) const;

  T* m() const { return m_; }
  T* v() const { return v_; }
  size_t size() const { return n_; }

  // The slow chain blocks' summed gradients since their period began (backend memory, every slow
  // block's ranges in order; empty without slow blocks): optimiser state a checkpoint keeps.
  T* grad_sums() const { return grad_sum_; }
  size_t grad_sums_size() const { return sum_size_; }
  // Where each chain block is in its period after `step` completed steps: "0,2,10" (steps summed
  // so far, step % every, per block of model.mlp.chain). A checkpoint writes it and a resume checks it.
  std::string chain_phase(int step) const;

 private:
  struct SlowBlock {
    int every = 1;
    std::vector<model::ParamRange> ranges;  // one per layer
    size_t sum_offset = 0;                  // into grad_sum_, the ranges one after another
  };
  void refresh_masks(int64_t units);
  void step_slow_blocks(int step, double lr, const T* gate);

  model::Model<T>& model_;
  config::TrainConfig t_;
  std::vector<int> every_;  // model.mlp.chain's periods
  size_t n_;
  std::optional<memory::Schedule> schedule_;  // over the MLP hidden units, in training steps
  model::Buffer<T> m_, v_, decay_mask_, update_mask_;
  int64_t mask_units_ = -1;  // the update mask currently uploaded
  std::vector<SlowBlock> slow_;
  size_t sum_size_ = 0;
  model::Buffer<T> grad_sum_;
  model::Buffer<T> fast_mask_;  // the update mask of the every-step parameters: 0 on every slow block
};

}  // namespace proteus::train
