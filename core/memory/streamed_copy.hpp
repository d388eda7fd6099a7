// A copy into memory that nothing reads soon: a head's gradients into the caller's (B, T, H, d)
// tensors, and what the chunked forward keeps for its backward, which reads it after every other
// head's forward (each chunk's start state into its checkpoint, the chunk's kept products).
// A plain store reads each cache line before writing it, so such a copy moved every byte twice;
// in float on AVX-512 the whole lines go by streaming stores, which write a line without reading
// it (delta's chunked fwd+bwd: experiments/results/perf-history.md). Elsewhere it is std::copy.
// Streaming stores are weakly ordered: call streamed_copy_done() after the last copy, before
// anything else may read what was written.
#pragma once
#include <algorithm>
#include <cstdint>
#include <type_traits>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace proteus::memory {

template <class T>
inline void streamed_copy(const T* from, int64_t n, T* to) {
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<T, float>) {
    const auto misaligned = static_cast<int64_t>(reinterpret_cast<uintptr_t>(to) % 64);
    if (misaligned % static_cast<int64_t>(sizeof(float)) == 0) {
      // plain stores up to `to`'s first line boundary and after its last whole line
      int64_t i = std::min<int64_t>(n, misaligned ? (64 - misaligned) / static_cast<int64_t>(sizeof(float)) : 0);
      std::copy(from, from + i, to);
      for (; i + 16 <= n; i += 16) _mm512_stream_ps(to + i, _mm512_loadu_ps(from + i));
      std::copy(from + i, from + n, to + i);
      return;
    }
  }
#endif
  std::copy(from, from + n, to);
}

inline void streamed_copy_done() {
#if defined(__AVX512F__)
  _mm_sfence();
#endif
}

}  // namespace proteus::memory
