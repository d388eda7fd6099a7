#include "core/data/distinct_sample.hpp"

#include <numeric>
#include <utility>

namespace proteus::data {

std::vector<int32_t> distinct_sample(std::mt19937_64& rng, int32_t lo, int32_t hi, int k) {
  std::vector<int32_t> pool(size_t(hi - lo));
  std::iota(pool.begin(), pool.end(), lo);
  for (int i = 0; i < k; ++i) {
    const size_t j = std::uniform_int_distribution<size_t>(size_t(i), pool.size() - 1)(rng);
    std::swap(pool[size_t(i)], pool[j]);
  }
  pool.resize(size_t(k));
  return pool;
}

}  // namespace proteus::data
