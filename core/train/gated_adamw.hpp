// AdamW with the paper's parameter schedule (its Hope extension): the MLP hidden units are
// split into E blocks that unlock over training steps on a Schedule, and the update, the
// gradient's effect and both moments of locked units are masked, so they keep their values.
// Without the parameter schedule it is plain AdamW. The moments live on the model's backend.
#pragma once
#include <memory>
#include <optional>

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

 private:
  model::Model<T>& model_;
  config::TrainConfig t_;
  size_t n_;
  std::optional<memory::Schedule> schedule_;  // over the MLP hidden units, in training steps
  model::Buffer<T> m_, v_, decay_mask_, update_mask_;
  int64_t mask_units_ = -1;  // the update mask currently uploaded
};

}  // namespace proteus::train
