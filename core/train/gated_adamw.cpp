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
  for (const auto& block : cfg.model.mlp.chain) every_.push_back(block.every);
  for (int i = 0; i < model.mlp_chain_length() && i < static_cast<int>(every_.size()); ++i) {
    if (every_[i] <= 1) continue;
    SlowBlock b{every_[i], model.mlp_block_ranges(i), sum_size_};
    for (const auto& r : b.ranges) sum_size_ += r.size;
    slow_.push_back(std::move(b));
  }
  if (sum_size_ > 0) be.fill(grad_sum_.reserve(be, sum_size_), T(0), sum_size_);
}

template <class T>
int64_t GatedAdamW<T>::active_hidden_units(int step) const {
  return schedule_ ? schedule_->active_elements(step) : model_.mlp_hidden();
}

template <class T>
std::string GatedAdamW<T>::chain_phase(int step) const {
  std::string out;
  for (size_t i = 0; i < every_.size(); ++i) out += (i ? "," : "") + std::to_string(step % every_[i]);
  return out;
}

// The parameter schedule's mask for `units` open hidden units (uploaded only when it changes), and
// with slow blocks the every-step parameters' mask: the same with every slow block at 0.
template <class T>
void GatedAdamW<T>::refresh_masks(int64_t units) {
  if (units == mask_units_) return;  // the masks change only when a block unlocks
  auto& be = model_.backend();
  auto mask = model_.mlp_update_mask(units);
  if (schedule_) be.upload(update_mask_.reserve(be, n_), mask.data(), n_);
  if (!slow_.empty()) {
    for (const auto& b : slow_)
      for (const auto& r : b.ranges) std::fill(mask.begin() + r.offset, mask.begin() + r.offset + r.size, T(0));
    be.upload(fast_mask_.reserve(be, n_), mask.data(), n_);
  }
  mask_units_ = units;
}

template <class T>
void GatedAdamW<T>::step(int step, double lr) {
  auto& be = model_.backend();
  const T* update_mask = nullptr;
  const int64_t units = active_hidden_units(step);
  if (schedule_ || !slow_.empty()) refresh_masks(units);
  if (schedule_ && units < model_.mlp_hidden()) update_mask = update_mask_;
  be.adamw_update(model_.params(), model_.grads(), m_, v_, slow_.empty() ? update_mask : fast_mask_.get(), decay_mask_,
                  n_, static_cast<T>(lr), static_cast<T>(t_.beta1), static_cast<T>(t_.beta2), static_cast<T>(t_.eps),
                  static_cast<T>(t_.weight_decay), step);
  if (!slow_.empty()) step_slow_blocks(step, lr, update_mask);
}

// Adds this step's gradient of every slow block to its sum; a block at the end of its period
// takes its AdamW step with the mean, gated by `gate` (the parameter schedule's mask, or null), and
// starts a new sum. Only existing ops on offset pointers, so it runs on any backend.
template <class T>
void GatedAdamW<T>::step_slow_blocks(int step, double lr, const T* gate) {
  auto& be = model_.backend();
  for (const auto& b : slow_) {
    const bool update = step % b.every == 0;
    size_t at = b.sum_offset;
    for (const auto& r : b.ranges) {
      T* sum = grad_sum_.get() + at;
      be.axpy(sum, T(1), model_.grads() + r.offset, r.size);
      if (update) {
        be.scale(sum, static_cast<T>(1.0 / b.every), r.size);
        be.adamw_update(model_.params() + r.offset, sum, m_.get() + r.offset, v_.get() + r.offset,
                        gate ? gate + r.offset : nullptr, decay_mask_.get() + r.offset, r.size, static_cast<T>(lr),
                        static_cast<T>(t_.beta1), static_cast<T>(t_.beta2), static_cast<T>(t_.eps),
                        static_cast<T>(t_.weight_decay), step / b.every);
        be.fill(sum, T(0), r.size);
      }
      at += r.size;
    }
  }
}

template class GatedAdamW<float>;
template class GatedAdamW<double>;

}  // namespace proteus::train
