// The two ratios that place a memory model in the paper's regime or outside it: key rows per
// block (d_head / E when E divides d_head; the paper's models hold 8-16) and tokens per key
// dimension (seq_len / d_head; the paper's are 32-64). Written into a run's config.json as
// "regime" (derived, ignored when read back) and shown by the window beside E.
#pragma once
#include <string>

#include "core/config/config.hpp"

namespace proteus::config {

struct MemoryRegime {
  double key_rows_per_block = 0;        // D / E / d_v: fractional when a block cuts a row (per block axis below)
  // What a block is made of, by model.mixer.block_axis: key rows of a head (key_rows), value
  // dimensions of a head (value_rows: d_head / E of them), key rows of the layer (layer: heads d_head / E).
  std::string block_unit = "key row";
  double tokens_per_key_dimension = 0;  // data.seq_len / d_head
  bool row_aligned = false;             // every block boundary on a row boundary
};

MemoryRegime memory_regime(const RunConfig& c);

// "8 key rows per block, 32 tokens per key dimension" (rows with up to 2 decimals when fractional);
// "8 value dimensions per block, ..." under value_rows, "8 key rows of the layer per block, ..." under layer.
std::string describe_regime(const MemoryRegime& r);

}  // namespace proteus::config
