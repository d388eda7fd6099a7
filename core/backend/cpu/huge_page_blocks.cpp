#include "core/backend/cpu/huge_page_blocks.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <new>

namespace proteus::backend::cpu {

HugePageBlocks::~HugePageBlocks() {
  for (const Block& b : free_) std::free(b.data);
}

HugePageBlocks::Block HugePageBlocks::take(size_t bytes) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto best = free_.end();
    for (auto it = free_.begin(); it != free_.end(); ++it)
      if (it->bytes >= bytes && it->bytes <= 2 * bytes && (best == free_.end() || it->bytes < best->bytes)) best = it;
    if (best != free_.end()) {
      const Block b = *best;
      free_.erase(best);
      out_bytes_ += b.bytes;
      peak_out_bytes_ = std::max(peak_out_bytes_, out_bytes_);
      return b;
    }
  }
  Block b;
  b.bytes = (std::max<size_t>(bytes, 1) + kHugePage - 1) / kHugePage * kHugePage;
  if (posix_memalign(&b.data, kHugePage, b.bytes) != 0) throw std::bad_alloc();
#if defined(MADV_HUGEPAGE)
  madvise(b.data, b.bytes, MADV_HUGEPAGE);  // advice: where refused, the pages stay small
#endif
  std::lock_guard<std::mutex> lock(mutex_);
  out_bytes_ += b.bytes;
  peak_out_bytes_ = std::max(peak_out_bytes_, out_bytes_);
  return b;
}

void HugePageBlocks::give(Block block) {
  if (!block.data) return;
  std::lock_guard<std::mutex> lock(mutex_);
  out_bytes_ -= block.bytes;
  free_.push_back(block);
  size_t kept = 0;
  for (const Block& b : free_) kept += b.bytes;
  while (kept > peak_out_bytes_) {
    kept -= free_.front().bytes;
    std::free(free_.front().data);
    free_.erase(free_.begin());
  }
}

size_t HugePageBlocks::kept() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return free_.size();
}

size_t HugePageBlocks::kept_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t kept = 0;
  for (const Block& b : free_) kept += b.bytes;
  return kept;
}

}  // namespace proteus::backend::cpu
