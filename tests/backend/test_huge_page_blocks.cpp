// The CPU backend's kept blocks for the memory rule's buffers: whole huge pages on a huge-page
// boundary, a given block taken again, a small call not holding a large block, and no more kept
// than was ever out at once.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "core/backend/cpu/huge_page_blocks.hpp"

namespace {

using proteus::backend::cpu::HugePageBlocks;
constexpr size_t kMB = size_t{1} << 20;

TEST(HugePageBlocks, TakesWholeHugePagesOnAHugePageBoundary) {
  HugePageBlocks blocks;
  for (const size_t want : {size_t{1}, 2 * kMB, 2 * kMB + 1, 5 * kMB}) {
    const HugePageBlocks::Block b = blocks.take(want);
    EXPECT_GE(b.bytes, want);
    EXPECT_EQ(b.bytes % HugePageBlocks::kHugePage, 0u);
    EXPECT_LT(b.bytes - want, HugePageBlocks::kHugePage) << "at most one huge page more than asked";
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data) % HugePageBlocks::kHugePage, 0u);
    std::memset(b.data, 0xAB, b.bytes);  // all of it is the caller's (a sanitizer build checks)
    blocks.give(b);
  }
}

TEST(HugePageBlocks, AGivenBlockIsTakenAgain) {
  HugePageBlocks blocks;
  const HugePageBlocks::Block a = blocks.take(5 * kMB);
  blocks.give(a);
  EXPECT_EQ(blocks.kept(), 1u);
  const HugePageBlocks::Block b = blocks.take(5 * kMB);
  EXPECT_EQ(b.data, a.data);
  EXPECT_EQ(b.bytes, a.bytes);
  EXPECT_EQ(blocks.kept(), 0u);
  blocks.give(b);
}

TEST(HugePageBlocks, ASmallCallDoesNotHoldALargeBlock) {
  HugePageBlocks blocks;
  const HugePageBlocks::Block big = blocks.take(16 * kMB);
  blocks.give(big);
  const HugePageBlocks::Block small = blocks.take(2 * kMB);  // 16 MB is more than twice 2 MB
  EXPECT_NE(small.data, big.data);
  EXPECT_EQ(small.bytes, 2 * kMB);
  EXPECT_EQ(blocks.kept(), 1u);
  blocks.give(small);
  EXPECT_LE(blocks.kept_bytes(), 16 * kMB) << "no more kept than was out at once";
}

TEST(HugePageBlocks, ABlockUpToTwiceTheCallIsTaken) {
  HugePageBlocks blocks;
  const HugePageBlocks::Block big = blocks.take(16 * kMB);
  blocks.give(big);
  const HugePageBlocks::Block middle = blocks.take(10 * kMB);  // 16 MB is within twice 10 MB
  EXPECT_EQ(middle.data, big.data);
  EXPECT_EQ(middle.bytes, 16 * kMB);
  blocks.give(middle);
}

TEST(HugePageBlocks, KeepsNoMoreThanWasOutAtOnce) {
  HugePageBlocks blocks;
  // a step: two blocks out at once, back after it; the next step takes both again
  for (int step = 0; step < 3; ++step) {
    const HugePageBlocks::Block a = blocks.take(4 * kMB), b = blocks.take(4 * kMB);
    blocks.give(a), blocks.give(b);
    EXPECT_EQ(blocks.kept(), 2u) << "step " << step;
    EXPECT_EQ(blocks.kept_bytes(), 8 * kMB);
  }
  // a longer shape: one 12 MB block; once it is back, the 4 MB ones (kept longest) go
  const HugePageBlocks::Block c = blocks.take(12 * kMB);
  EXPECT_EQ(blocks.kept(), 2u);
  blocks.give(c);
  EXPECT_LE(blocks.kept_bytes(), 12 * kMB);
  EXPECT_EQ(blocks.kept(), 1u);
  const HugePageBlocks::Block again = blocks.take(12 * kMB);
  EXPECT_EQ(again.data, c.data);
  blocks.give(again);
}

}  // namespace
