// The CPU backend's loops on its pool, pieces fixed by the problem: apart, as its dense ops and memory rule share them.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "core/backend/cpu/flush_subnormals.hpp"
#include "core/backend/cpu/thread_pool.hpp"

namespace proteus::backend::cpu {

constexpr size_t kElementPiece = 1 << 14;  // elementwise ops: pieces of this many elements
constexpr int kColumnPiece = 64;           // column reductions: pieces of this many columns

// Runs body(i) for i in [0, count) on the pool; the first exception is rethrown here.
// grain: the fewest items worth the pool. Waking the workers costs microseconds; with tiny work
// (a few rows of a one-sequence forward, say) that costs more than the work, so small loops stay
// on the calling thread.
template <class Body>
void parallel_for(int64_t count, ThreadPool& pool, Body&& body, int64_t grain = 1) {
  if (count <= 0) return;
  const FlushSubnormals flush;
  if (pool.threads() == 1 || count < 2 * grain) {
    for (int64_t i = 0; i < count; ++i) body(i);
    return;
  }
  pool.run(count, [&](int64_t i) { body(i); });
}

// Row-wise ops (norms, embedding rows, cross-entropy rows): only worth threads by the dozen.
constexpr int64_t kRowGrain = 256;
template <class Body>
void parallel_rows(int64_t rows, ThreadPool& pool, Body&& body) {
  parallel_for(rows, pool, std::forward<Body>(body), kRowGrain);
}

// Elementwise ops: body(begin, end) over fixed pieces of n.
template <class Body>
void parallel_elements(size_t n, ThreadPool& pool, Body&& body) {
  const int64_t pieces = static_cast<int64_t>((n + kElementPiece - 1) / kElementPiece);
  parallel_for(pieces, pool, [&](int64_t i) {
    const size_t begin = static_cast<size_t>(i) * kElementPiece;
    body(begin, std::min(n, begin + kElementPiece));
  });
}

// Column reductions: body(c0, c1) over fixed pieces of C columns.
template <class Body>
void parallel_columns(int C, ThreadPool& pool, Body&& body) {
  const int pieces = (C + kColumnPiece - 1) / kColumnPiece;
  parallel_for(pieces, pool, [&](int64_t i) {
    const int c0 = static_cast<int>(i) * kColumnPiece;
    body(c0, std::min(C, c0 + kColumnPiece));
  });
}

}  // namespace proteus::backend::cpu
