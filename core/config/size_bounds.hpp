// The bounds of every size-like config field, in one table the validator (and later the schema's
// readers: the window's widgets, --help) read. A value is checked against its bound before
// anything is built from it, and the message carries the bound:
//   "data.seq_len: must be in [8, 1048576], got 2000000000".
// The bounds are far past any model this lab trains (the GPU presets use a tenth of them at most);
// they exist so that a typo (threads = 100000, d_model = 1e9) is refused in a line, not met as
// 32,000 threads or a wrapped size. Sizes derived from several fields (parameters, tokens per
// batch, the largest buffer) are computed in 64 bits and checked against the limits below.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace proteus::config {

struct SizeBound {
  std::string_view path;  // the field's dotted path; "eval.niah.lengths" bounds each element
  int64_t lo;
  int64_t hi;
};

// Every bounded field, in schema order.
const std::vector<SizeBound>& size_bounds();

// The bound of one field, or null when it has none.
const SizeBound* size_bound(std::string_view path);

// Throws InputError(field, "must be in [lo, hi], got value") when value is outside path's bound;
// field defaults to path (an element: "eval.niah.lengths[2]").
void check_size_bound(std::string_view path, int64_t value, const std::string& field = "");

// Limits of sizes derived from several fields (config validation names the fields involved).
inline constexpr int64_t kMaxParameters = int64_t{1} << 31;        // ~8.6 GB of float32 weights
inline constexpr int64_t kMaxTokensPerBatch = int64_t{1} << 24;    // batch x sequence length
inline constexpr int64_t kMaxBufferElements = int64_t{1} << 32;    // one activation or state buffer

// a * b * ..., saturated at INT64_MAX instead of wrapping (every factor >= 0).
int64_t saturating_product(std::initializer_list<int64_t> factors);

}  // namespace proteus::config
