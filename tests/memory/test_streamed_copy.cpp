// streamed_copy (core/memory/streamed_copy.hpp): every start of the destination within a cache
// line and every length around the 16-float stores gives the source's bits, and nothing outside
// the destination is written.
#include "core/memory/streamed_copy.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace {

using proteus::memory::streamed_copy;
using proteus::memory::streamed_copy_done;

template <class T>
void check_every_offset_and_length() {
  const T sentinel = T(-7.25);
  std::vector<T> from(100);
  for (size_t i = 0; i < from.size(); ++i) from[i] = T(0.5) + static_cast<T>(i) * T(1.125);
  alignas(64) T to[128 + 32];
  for (int64_t offset = 0; offset < 16; ++offset)
    for (int64_t n = 0; n <= 70; ++n) {
      std::fill(std::begin(to), std::end(to), sentinel);
      streamed_copy(from.data() + 3, n, to + offset);  // a source off its own line too
      streamed_copy_done();
      for (int64_t i = 0; i < static_cast<int64_t>(std::size(to)); ++i) {
        const bool inside = i >= offset && i < offset + n;
        const T want = inside ? from[3 + i - offset] : sentinel;
        ASSERT_EQ(0, std::memcmp(&to[i], &want, sizeof(T))) << "offset " << offset << " n " << n << " at " << i;
      }
    }
}

TEST(StreamedCopy, FloatCopiesEveryOffsetAndLength) { check_every_offset_and_length<float>(); }
TEST(StreamedCopy, DoubleCopiesEveryOffsetAndLength) { check_every_offset_and_length<double>(); }

}  // namespace
