// The table of size bounds (size_bounds.hpp). Lower bounds are the validator's long-standing ones;
// upper bounds leave a wide margin over the largest preset (experiments/gpu).
#include "core/config/size_bounds.hpp"

#include <algorithm>
#include <limits>

#include "core/common/input_error.hpp"

namespace proteus::config {

const std::vector<SizeBound>& size_bounds() {
  static const std::vector<SizeBound> bounds = {
      {"threads", 0, 1024},  // 0 = all cores
      {"model.vocab", 2, 1 << 20},
      {"model.d_model", 1, 1 << 16},
      {"model.layers", 1, 1024},
      {"model.d_hidden", 0, 1 << 18},  // 0 = 8/3 d_model
      {"model.mixer.heads", 1, 1024},
      {"model.mixer.d_head", 1, 1024},  // the state has d_head^2 elements per head
      {"model.mixer.conv", 0, 64},
      {"model.mixer.window", 1, 4096},
      {"model.mixer.N", 0, 1 << 30},
      {"model.param_schedule.N", 0, 1 << 30},
      {"data.seq_len", 8, 1 << 20},
      {"data.batch", 1, 1 << 16},
      {"data.vocab", 0, 1 << 20},  // 0 with data.tokenizer bytes
      {"data.mqar.vocab", 1, 1 << 20},
      {"data.mqar.pairs", 1, 1 << 16},
      {"data.mqar.train_pairs", 1, 1 << 16},
      {"data.needle.vocab", 8, 1 << 20},
      {"data.needle.distractors", 0, 1 << 16},
      {"train.steps", 1, 100'000'000},
      {"train.warmup", 0, 100'000'000},
      {"train.log_every", 1, 100'000'000},
      {"train.eval_every", 1, 100'000'000},
      {"train.val_batches", 1, 10'000},
      {"train.checkpoint_every", 1, 100'000'000},
      {"eval.per_position.seq_len", 0, 1 << 21},  // 0 = 4 x data.seq_len
      {"eval.per_position.sequences", 1, 1 << 16},
      {"eval.per_position.buckets", 1, 4096},
      {"eval.niah.lengths", 1, 1 << 21},
      {"eval.niah.depths", 1, 40},  // RULER's 40 depth points
      {"eval.niah.samples", 1, 1 << 16},
      {"eval.niah.max_new_bytes", 1, 1 << 16},
      {"eval.needle.lengths", 1, 1 << 21},
      {"eval.needle.depths", 1, 40},
      {"eval.needle.samples", 1, 1 << 16},
      {"eval.mqar.samples", 1, 1 << 20},
      {"eval.occupancy.blocks", 1, 4096},
      {"eval.occupancy.seq_len", 0, 1 << 21},  // 0 = data.seq_len
  };
  return bounds;
}

const SizeBound* size_bound(std::string_view path) {
  const auto& bounds = size_bounds();
  const auto it = std::find_if(bounds.begin(), bounds.end(), [&](const SizeBound& b) { return b.path == path; });
  return it == bounds.end() ? nullptr : &*it;
}

void check_size_bound(std::string_view path, int64_t value, const std::string& field) {
  const SizeBound* b = size_bound(path);
  if (!b || (value >= b->lo && value <= b->hi)) return;
  throw InputError(field.empty() ? std::string(path) : field, "must be in [" + std::to_string(b->lo) + ", " +
                                                                  std::to_string(b->hi) + "], got " +
                                                                  std::to_string(value));
}

int64_t saturating_product(std::initializer_list<int64_t> factors) {
  int64_t p = 1;
  for (int64_t f : factors) {
    if (f <= 0) return 0;
    if (__builtin_mul_overflow(p, f, &p)) return std::numeric_limits<int64_t>::max();
  }
  return p;
}

}  // namespace proteus::config
