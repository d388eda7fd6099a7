// Blocks of memory for the memory rule's per-call buffers (a head's gathered rows, its checkpoints,
// its kept products: about 2.7 MB a head at (1024, 64, 64)), kept from one call to the next and
// advised to use huge pages. Taken fresh from the heap each call, those buffers lay on 4 KB pages,
// and a chunk's backward reads a dozen blocks of them, each on pages of its own: a TLB miss, and
// in a VM a two-level page walk, a page (experiments/results/perf-history.md, 2026-11-30). Where
// transparent huge pages come only on request ("madvise", Ubuntu's default) the advice is what
// gets them; where they are off, the blocks are only reused.
#pragma once
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

namespace proteus::backend::cpu {

class HugePageBlocks {
 public:
  struct Block {
    void* data = nullptr;
    size_t bytes = 0;
  };

  // Calls whose buffers fill less than one go to the heap: not worth a huge page.
  static constexpr size_t kHugePage = size_t{2} << 20;

  HugePageBlocks() = default;
  HugePageBlocks(const HugePageBlocks&) = delete;
  HugePageBlocks& operator=(const HugePageBlocks&) = delete;
  ~HugePageBlocks();

  // The smallest kept block of at least `bytes` (and at most twice that: a small call does not
  // hold a large block), or a new one: whole huge pages, on a huge-page boundary, advised to use
  // them. Throws std::bad_alloc.
  Block take(size_t bytes);
  // Back for a later take. What is kept never exceeds the most that was out at once (a training
  // step's layers take the same blocks again each step); past it, the longest kept go back to the
  // system (a shape no longer run).
  void give(Block block);
  size_t kept() const;        // blocks
  size_t kept_bytes() const;

 private:
  mutable std::mutex mutex_;
  std::vector<Block> free_;  // oldest first
  size_t out_bytes_ = 0, peak_out_bytes_ = 0;
};

// A block taken for as long as this lives and given back when it goes: declared before whatever
// lives in it, so that goes first.
class BlockLease {
 public:
  BlockLease(std::shared_ptr<HugePageBlocks> blocks, size_t bytes)
      : blocks_(std::move(blocks)), block_(blocks_->take(bytes)) {}
  BlockLease(const BlockLease&) = delete;
  BlockLease& operator=(const BlockLease&) = delete;
  ~BlockLease() { blocks_->give(block_); }
  void* data() const { return block_.data; }
  size_t bytes() const { return block_.bytes; }

 private:
  std::shared_ptr<HugePageBlocks> blocks_;  // shared: a rule's state may outlive its backend
  HugePageBlocks::Block block_;
};

}  // namespace proteus::backend::cpu
