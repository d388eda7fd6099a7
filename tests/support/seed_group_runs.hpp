// Small inputs for the seed-group tests: random token sequences and the config of one member of a
// tiny memory model's seed group.
#pragma once
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/config/config.hpp"

namespace proteus::test_support {

// n sequences of L + 1 ids in [0, 32) (inputs and next-token targets), from `seed`.
inline std::vector<std::vector<int32_t>> random_sequences(int n, int L, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::vector<int32_t>> out(n, std::vector<int32_t>(L + 1));
  for (auto& s : out)
    for (auto& t : s) t = static_cast<int32_t>(rng() % 32);
  return out;
}

// "GROUP-s<seed>" of seed group GROUP: 1 layer, 2 heads of d_head 4, E blocks.
inline config::RunConfig seed_group_member(const std::string& group, int E, uint64_t seed) {
  config::RunConfig c;
  c.name = group + "-s" + std::to_string(seed);
  c.group = group;
  c.seed = seed;
  c.model.vocab = 256;  // byte-level data needs it; the sequences use 32 ids
  c.model.d_model = 16;
  c.model.layers = 1;
  c.model.mixer.heads = 2;
  c.model.mixer.d_head = 4;
  c.model.mixer.E = E;
  c.data.seq_len = 64;  // the defaults' tasks (text and NIAH) fit
  return c;
}

}  // namespace proteus::test_support
