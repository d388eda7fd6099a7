// The one function that turns a config's E into a Schedule (ARCHITECTURE seam 1), and the one that
// gives D, the memory state's size per head. The model, the validator, the figures, the
// evaluations, Explore and the window's editor all ask these; none multiplies d_head itself.
#pragma once
#include <cstdint>

#include "core/config/config.hpp"
#include "core/memory/schedule.hpp"

namespace proteus::config {

// D = d_k d_v elements per head (docs/math.md section 1); in the model d_k = d_v = d_head, so
// D = d_head^2. The bound of model.mixer.E.
int64_t mixer_state_size(const MixerConfig& m);

// Schedule::make(m.schedule, D, m.E, N): the memory mixer's schedule over a horizon of N positions.
// The block axis (model.mixer.block_axis) says which elements a count of blocks opens, not when the
// blocks open, so every axis shares this schedule; memory::rule_schedule (block_axis.hpp) gives the
// one the rule itself runs under. Throws InputError as Schedule::make does.
memory::Schedule schedule_from_config(const MixerConfig& m, int64_t N);
// The same at the run's horizon, resolved_mixer_horizon(c).
memory::Schedule schedule_from_config(const RunConfig& c);

// The parameter schedule (model.param_schedule): E blocks over D = resolved_d_hidden units,
// unlocked over resolved_param_horizon(c) training steps.
memory::Schedule param_schedule_from_config(const RunConfig& c);

}  // namespace proteus::config
