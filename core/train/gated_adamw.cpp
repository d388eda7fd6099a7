#include "core/train/gated_adamw.hpp"

#include "core/config/mixer_schedule.hpp"

namespace proteus::train {

template <class T>
GatedAdamW<T>::GatedAdamW(model::Model<T>& model, const config::RunConfig& cfg)
    : model_(model), t_(cfg.train), n_(model.num_params()) {
  auto& be = model.backend();
  m_.reserve(be, n_);
  v_.reserve(be, n_);
  const auto decay = model.decay_mask();
  be.upload(decay_mask_.reserve(be, n_), decay.data(), n_);
  if (cfg.model.param_schedule.enabled) schedule_ = config::param_schedule_from_config(cfg);
}

template <class T>
int64_t GatedAdamW<T>::active_hidden_units(int step) const {
  return schedule_ ? schedule_->active_elements(step) : model_.mlp_hidden();
}

template <class T>
void GatedAdamW<T>::step(int step, double lr) {
  auto& be = model_.backend();
  const T* update_mask = nullptr;
  if (schedule_) {
    const int64_t units = active_hidden_units(step);
    if (units != mask_units_) {  // the mask changes only when a block unlocks
      const auto mask = model_.mlp_update_mask(units);
      be.upload(update_mask_.reserve(be, n_), mask.data(), n_);
      mask_units_ = units;
    }
    if (units < model_.mlp_hidden()) update_mask = update_mask_;
  }
  be.adamw_update(model_.params(), model_.grads(), m_, v_, update_mask, decay_mask_, n_, static_cast<T>(lr),
                  static_cast<T>(t_.beta1), static_cast<T>(t_.beta2), static_cast<T>(t_.eps),
                  static_cast<T>(t_.weight_decay), step);
}

template class GatedAdamW<float>;
template class GatedAdamW<double>;

}  // namespace proteus::train
