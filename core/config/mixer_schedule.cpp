#include "core/config/mixer_schedule.hpp"

namespace proteus::config {

int64_t mixer_state_size(const MixerConfig& m) { return int64_t(m.d_head) * m.d_head; }

memory::Schedule schedule_from_config(const MixerConfig& m, int64_t N) {
  return memory::Schedule::make(m.schedule, mixer_state_size(m), m.E, N);
}

memory::Schedule schedule_from_config(const RunConfig& c) { return schedule_from_config(c.model.mixer, resolved_mixer_horizon(c)); }

memory::Schedule param_schedule_from_config(const RunConfig& c) {
  const auto& p = c.model.param_schedule;
  return memory::Schedule::make(p.schedule, resolved_d_hidden(c.model), p.E, resolved_param_horizon(c));
}

}  // namespace proteus::config
