#include "core/memory/block_axis.hpp"

#include <algorithm>

namespace proteus::memory {

const std::vector<common::Named<BlockAxis>>& name_table(BlockAxis) {
  static const std::vector<common::Named<BlockAxis>> table = {
      {BlockAxis::key_rows, "key_rows"}, {BlockAxis::value_rows, "value_rows"}, {BlockAxis::layer, "layer"}};
  return table;
}

const std::vector<std::string>& block_axis_names() {
  static const std::vector<std::string> names = common::choice_names<BlockAxis>();
  return names;
}

std::string_view block_axis_name(BlockAxis axis) { return common::choice_name(axis); }
std::optional<BlockAxis> block_axis_from_name(std::string_view name) { return common::choice_from_name<BlockAxis>(name); }

Schedule rule_schedule(BlockAxis axis, const Schedule& schedule) {
  if (axis != BlockAxis::key_rows) return Schedule::uniform(schedule.D(), 1, schedule.N());
  return schedule;
}

int64_t layer_open_rows(int64_t k, int64_t E, int64_t H, int64_t d_k, int64_t h) {
  return std::clamp(k * H * d_k / E - h * d_k, int64_t{0}, d_k);
}

std::vector<int32_t> open_widths_table(BlockAxis axis, const Schedule& schedule, int64_t T, int64_t H, int64_t d_k,
                                       int64_t d_v) {
  const int64_t E = schedule.E();
  const std::string blocks = "blocks of E = " + std::to_string(E);
  // value_rows: whole columns of S are whole rows of M = S^T, which has rows of d_k elements.
  if (axis == BlockAxis::value_rows && !schedule.row_aligned(d_k))
    throw InputError("E", "value_rows " + blocks + " do not fall on whole value dimensions (E must divide d_v = " +
                              std::to_string(d_v) + ")");
  if (axis == BlockAxis::layer && (H * d_k) % E != 0)
    throw InputError("E", "layer " + blocks + " do not fall on whole key rows (E must divide H d_k = " +
                              std::to_string(H * d_k) + ")");
  if (axis == BlockAxis::key_rows) throw InputError("block_axis", "key_rows gates inside the rule, not by a table");
  std::vector<int32_t> widths(T * H);
  for (int64_t n = 0; n < T; ++n)
    for (int64_t h = 0; h < H; ++h)
      widths[n * H + h] = static_cast<int32_t>(axis == BlockAxis::value_rows
                                                   ? schedule.active_elements(n + 1) / d_k
                                                   : layer_open_rows(schedule.active_blocks(n + 1), E, H, d_k, h));
  return widths;
}

}  // namespace proteus::memory
