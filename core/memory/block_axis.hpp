// Which way the E blocks run through the memory (math.md section 8, model.mixer.block_axis):
//   key_rows    S = [d_k][d_v] flattened row-major per head: a block is d_k / E key rows (default)
//   value_rows  M = S^T flattened row-major per head: a block is d_v / E value dimensions (columns
//               of S), G_t = 1 n_t^T for a prefix mask n_t over value dimensions
//   layer       the H heads' key-row states of one layer flattened into one vector of H D elements:
//               head h has r_h(t) open key rows
// The schedule (schedule.hpp) counts blocks; these say which elements a count opens.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/name_table.hpp"
#include "core/memory/schedule.hpp"

namespace proteus::memory {

enum class BlockAxis { key_rows, value_rows, layer };

// The axes' one name table (model.mixer.block_axis, memory-op's "block_axis", bench's --block-axis,
// the window), default (key_rows) first; the three below read it.
const std::vector<common::Named<BlockAxis>>& name_table(BlockAxis);
const std::vector<std::string>& block_axis_names();
std::string_view block_axis_name(BlockAxis axis);
std::optional<BlockAxis> block_axis_from_name(std::string_view name);
// JSON (nlohmann finds this by argument-dependent lookup) holds an axis as its name, never a number.
template <class Json>
void to_json(Json& j, BlockAxis axis) { j = std::string(block_axis_name(axis)); }

// The schedule the memory rule itself runs under: `schedule` under key_rows; ungated (E = 1, the
// same D and N) under value_rows and layer, which gate the rule's inputs instead (the zero-state lemma).
Schedule rule_schedule(BlockAxis axis, const Schedule& schedule);

// value_rows: whether element (i, j) of a (d_k, d_v) state is open when `end` elements of the
// flattened M = S^T are (element (i, j) of S is element j d_k + i of M).
inline bool value_rows_open(int64_t end, int64_t i, int64_t j, int64_t d_k) { return j * d_k + i < end; }

// layer: open key rows of head h when k of E blocks over the layer's H heads of d_k rows are open,
// r_h = clamp(k H d_k / E - h d_k, 0, d_k) (E divides H d_k).
int64_t layer_open_rows(int64_t k, int64_t E, int64_t H, int64_t d_k, int64_t h);

// (T, H) open widths per position and head, what the backend's prefix_mask takes: value dimensions
// under value_rows (whole ones: E must divide d_v), key rows under layer (E must divide H d_k),
// from `schedule`'s k(t). Throws InputError("E") when the blocks do not fall on whole widths.
std::vector<int32_t> open_widths_table(BlockAxis axis, const Schedule& schedule, int64_t T, int64_t H, int64_t d_k,
                                       int64_t d_v);

}  // namespace proteus::memory
