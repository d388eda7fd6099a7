#include "core/config/memory_regime.hpp"
#include "core/config/mixer_schedule.hpp"

#include <cmath>
#include <cstdio>

namespace proteus::config {

MemoryRegime memory_regime(const RunConfig& c) {
  const auto& x = c.model.mixer;
  MemoryRegime r;
  const double D = double(mixer_state_size(x)), block = std::floor(D / x.E);
  r.key_rows_per_block = block / x.d_head;
  r.tokens_per_key_dimension = double(c.data.seq_len) / x.d_head;
  r.row_aligned = x.E >= 1 && x.E <= x.d_head && x.d_head % x.E == 0;
  if (x.block_axis == memory::BlockAxis::value_rows) r.block_unit = "value dimension";
  if (x.block_axis == memory::BlockAxis::layer) {
    r.block_unit = "key row of the layer";
    r.key_rows_per_block = double(x.heads) * x.d_head / x.E;
    r.row_aligned = x.E >= 1 && (int64_t(x.heads) * x.d_head) % x.E == 0;
  }
  return r;
}

std::string describe_regime(const MemoryRegime& r) {
  auto number = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, v == std::floor(v) ? "%.0f" : "%.2f", v);
    return std::string(buf);
  };
  const std::string rows = number(r.key_rows_per_block);
  // "key row of the layer" -> "key rows of the layer": the plural goes on the first noun.
  std::string unit = r.block_unit;
  if (rows != "1") {
    const size_t space = unit.find(' ', unit.find(' ') + 1);
    unit = space == std::string::npos ? unit + "s" : unit.substr(0, space) + "s" + unit.substr(space);
  }
  return rows + " " + unit + " per block, " + number(r.tokens_per_key_dimension) + " tokens per key dimension";
}

}  // namespace proteus::config
