// Sampling without replacement for the synthetic tasks (MQAR, the token needle): one copy, so
// their data can never drift apart for the same seed.
#pragma once
#include <cstdint>
#include <random>
#include <vector>

namespace proteus::data {

// k distinct values of [lo, hi), in random order (a partial Fisher-Yates shuffle).
std::vector<int32_t> distinct_sample(std::mt19937_64& rng, int32_t lo, int32_t hi, int k);

}  // namespace proteus::data
