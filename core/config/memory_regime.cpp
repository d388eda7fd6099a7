#include "core/config/memory_regime.hpp"

#include <cmath>
#include <cstdio>

namespace proteus::config {

MemoryRegime memory_regime(const RunConfig& c) {
  const auto& x = c.model.mixer;
  MemoryRegime r;
  const double D = double(x.d_head) * x.d_head, block = std::floor(D / x.E);
  r.key_rows_per_block = block / x.d_head;
  r.tokens_per_key_dimension = double(c.data.seq_len) / x.d_head;
  r.row_aligned = x.E >= 1 && x.E <= x.d_head && x.d_head % x.E == 0;
  return r;
}

std::string describe_regime(const MemoryRegime& r) {
  auto number = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, v == std::floor(v) ? "%.0f" : "%.2f", v);
    return std::string(buf);
  };
  const std::string rows = number(r.key_rows_per_block);
  return rows + (rows == "1" ? " key row" : " key rows") + " per block, " + number(r.tokens_per_key_dimension) +
         " tokens per key dimension";
}

}  // namespace proteus::config
