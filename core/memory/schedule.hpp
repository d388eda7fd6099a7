// Blocks and schedules (math.md section 2): which prefix of a D-element memory is active at step t.
// The one place that computes a mask: the memory rules, the parameter schedule, the window's
// activation map, the teaching panel and memory-op all ask a Schedule.
// Positions (or training steps) are 1-based. Every schedule is a list of unlock positions
// 1 = u_1 <= ... <= u_E with k(t) = #{j : u_j <= t} for t <= N and k(t) = E past the horizon.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/input_error.hpp"
#include "core/common/name_table.hpp"

namespace proteus::memory {

enum class ScheduleType { uniform, geometric, power, custom };

// The schedule types' one name table (the config's and memory-op's "type", the window's lists, the
// docs), in the order they list them; schedule_types() is its names.
const std::vector<common::Named<ScheduleType>>& name_table(ScheduleType);
const std::vector<std::string>& schedule_types();
std::string_view schedule_type_name(ScheduleType type);
// JSON (nlohmann finds this by argument-dependent lookup) holds a type as its name, never a number.
template <class Json>
void to_json(Json& j, ScheduleType type) { j = std::string(schedule_type_name(type)); }

// What a user names; Schedule::make turns it into unlock positions for given D, E, N.
struct ScheduleSpec {
  ScheduleType type = ScheduleType::uniform;
  double power = 2.0;            // exponent of the power schedule (> 0; 1 is uniform)
  std::vector<int64_t> unlock;   // the custom schedule's unlock positions, E of them
};

class Schedule {
 public:
  // All factories throw InputError naming the field ("E", "N", "unlock", "power", "type").
  // uniform: Delta = max(1, N / E), u_j = (j-1) Delta + 1 (the paper's).
  static Schedule uniform(int64_t D, int64_t E, int64_t N);
  // geometric: u_j = max(u_{j-1}, floor(N^((j-1)/E))): unlocks evenly in log-position.
  static Schedule geometric(int64_t D, int64_t E, int64_t N);
  // power: u_j = 1 + floor(N ((j-1)/E)^p); p > 1 keeps the bottleneck longer, p < 1 opens early.
  static Schedule power(int64_t D, int64_t E, int64_t N, double p);
  // custom: E unlock positions, u_1 = 1, non-decreasing.
  static Schedule custom(int64_t D, int64_t E, int64_t N, std::vector<int64_t> unlock);
  static Schedule make(const ScheduleSpec& spec, int64_t D, int64_t E, int64_t N);

  int64_t D() const { return D_; }
  int64_t E() const { return E_; }
  int64_t N() const { return N_; }
  int64_t block_size() const { return D_ / E_; }  // d = floor(D / E)
  const std::vector<int64_t>& unlock() const { return unlock_; }

  // Block b (0-based) covers [block_begin(b), block_end(b)); the last absorbs the remainder.
  int64_t block_begin(int64_t b) const { return b * block_size(); }
  int64_t block_end(int64_t b) const { return b + 1 == E_ ? D_ : (b + 1) * block_size(); }
  // end(k): the active prefix is [0, end(k)) when k blocks are active.
  int64_t end(int64_t k) const { return k >= E_ ? D_ : k * block_size(); }
  // k(t) for a 1-based step t >= 1.
  int64_t active_blocks(int64_t t) const;
  int64_t active_elements(int64_t t) const { return end(active_blocks(t)); }

  // Row alignment for a [d_k][d_v] state: true when every block boundary is a row boundary,
  // i.e. G_t = m_t 1^T for a prefix mask m_t over key dimensions (math.md section 3 fast path).
  bool row_aligned(int64_t d_v) const;
  // Active key rows at step t: ceil(end(k(t)) / d_v); exact when row_aligned(d_v).
  int64_t active_rows(int64_t t, int64_t d_v) const;

  // g_t as 0/1 values, length D (for display and tests; the rules iterate the prefix instead).
  std::vector<uint8_t> mask(int64_t t) const;

 private:
  Schedule(int64_t D, int64_t E, int64_t N, std::vector<int64_t> unlock)
      : D_(D), E_(E), N_(N), unlock_(std::move(unlock)) {}
  static void check_sizes(int64_t D, int64_t E, int64_t N);

  int64_t D_, E_, N_;
  std::vector<int64_t> unlock_;
};

}  // namespace proteus::memory
