#include "core/memory/schedule.hpp"

#include <algorithm>
#include <cmath>

#include "core/common/json_fields.hpp"

namespace proteus::memory {

const std::vector<common::Named<ScheduleType>>& name_table(ScheduleType) {
  static const std::vector<common::Named<ScheduleType>> table = {{ScheduleType::uniform, "uniform"},
                                                                 {ScheduleType::geometric, "geometric"},
                                                                 {ScheduleType::power, "power"},
                                                                 {ScheduleType::custom, "custom"}};
  return table;
}

const std::vector<std::string>& schedule_types() {
  static const std::vector<std::string> types = common::choice_names<ScheduleType>();
  return types;
}

std::string_view schedule_type_name(ScheduleType type) { return common::choice_name(type); }

void Schedule::check_sizes(int64_t D, int64_t E, int64_t N) {
  if (D < 1) throw InputError("D", "memory size must be >= 1, got " + std::to_string(D));
  if (E < 1 || E > D)
    throw InputError("E", "must be in [1, " + std::to_string(D) + "] (the memory size D), got " +
                              std::to_string(E));
  if (N < 1) throw InputError("N", "horizon must be >= 1, got " + std::to_string(N));
}

Schedule Schedule::uniform(int64_t D, int64_t E, int64_t N) {
  check_sizes(D, E, N);
  const int64_t delta = std::max<int64_t>(1, N / E);
  std::vector<int64_t> u(E);
  for (int64_t j = 0; j < E; ++j) u[j] = j * delta + 1;
  return Schedule(D, E, N, std::move(u));
}

Schedule Schedule::geometric(int64_t D, int64_t E, int64_t N) {
  check_sizes(D, E, N);
  std::vector<int64_t> u(E);
  u[0] = 1;
  for (int64_t j = 1; j < E; ++j) {
    // The small epsilon keeps exact powers (N = 2^E, say) from rounding down.
    const double x = std::pow(static_cast<double>(N), static_cast<double>(j) / static_cast<double>(E));
    u[j] = std::max(u[j - 1], static_cast<int64_t>(std::floor(x + 1e-9)));
  }
  return Schedule(D, E, N, std::move(u));
}

Schedule Schedule::power(int64_t D, int64_t E, int64_t N, double p) {
  check_sizes(D, E, N);
  if (!(p > 0.0) || !std::isfinite(p)) throw InputError("power", "exponent must be a finite number > 0");
  std::vector<int64_t> u(E);
  for (int64_t j = 0; j < E; ++j) {
    const double x = static_cast<double>(N) * std::pow(static_cast<double>(j) / static_cast<double>(E), p);
    u[j] = 1 + static_cast<int64_t>(std::floor(x + 1e-9));
    if (j > 0) u[j] = std::max(u[j], u[j - 1]);
  }
  return Schedule(D, E, N, std::move(u));
}

Schedule Schedule::custom(int64_t D, int64_t E, int64_t N, std::vector<int64_t> unlock) {
  check_sizes(D, E, N);
  if (static_cast<int64_t>(unlock.size()) != E)
    throw InputError("unlock", "needs one position per block: E = " + std::to_string(E) + ", got " +
                                   std::to_string(unlock.size()));
  if (unlock[0] != 1) throw InputError("unlock[0]", "the first block is active from t = 1, got " +
                                                        std::to_string(unlock[0]));
  for (size_t j = 1; j < unlock.size(); ++j)
    if (unlock[j] < unlock[j - 1])
      throw InputError("unlock[" + std::to_string(j) + "]",
                       "unlock positions must be non-decreasing, got " + std::to_string(unlock[j]) +
                           " after " + std::to_string(unlock[j - 1]));
  return Schedule(D, E, N, std::move(unlock));
}

Schedule Schedule::make(const ScheduleSpec& spec, int64_t D, int64_t E, int64_t N) {
  switch (spec.type) {
    case ScheduleType::uniform: return uniform(D, E, N);
    case ScheduleType::geometric: return geometric(D, E, N);
    case ScheduleType::power: return power(D, E, N, spec.power);
    case ScheduleType::custom: return custom(D, E, N, spec.unlock);
  }
  throw InputError("type", "unknown schedule (expected " + common::join(schedule_types()) + ")");
}

int64_t Schedule::active_blocks(int64_t t) const {
  if (t > N_) return E_;  // past the horizon the whole memory is active
  return std::upper_bound(unlock_.begin(), unlock_.end(), t) - unlock_.begin();
}

bool Schedule::row_aligned(int64_t d_v) const {
  if (d_v <= 0 || D_ % d_v != 0) return false;
  return E_ == 1 || block_size() % d_v == 0;
}

int64_t Schedule::active_rows(int64_t t, int64_t d_v) const {
  return (active_elements(t) + d_v - 1) / d_v;
}

std::vector<uint8_t> Schedule::mask(int64_t t) const {
  std::vector<uint8_t> g(D_, 0);
  std::fill(g.begin(), g.begin() + active_elements(t), uint8_t{1});
  return g;
}

}  // namespace proteus::memory
