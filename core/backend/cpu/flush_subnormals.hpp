// Subnormal floats read and written as zero (x86's FTZ and DAZ bits) for a scope: the CPU
// backend's loops run under it, on the calling thread and in the pool's workers. A gradient that
// flows back through many retention factors into a column the gate keeps at zero (block_axis
// value_rows) decays through the subnormal range, where each operation costs about 100x: the
// backward ran at twice E = 1's time. Nothing a model learns lives below 1e-38. The caller's own
// mode comes back when the scope ends. Elsewhere than x86 it does nothing.
#pragma once
#if defined(__SSE__)
#include <xmmintrin.h>
#endif

namespace proteus::backend {

class FlushSubnormals {
 public:
#if defined(__SSE__)
  FlushSubnormals() : saved_(_mm_getcsr()) { _mm_setcsr(saved_ | kFtzDaz); }
  ~FlushSubnormals() { _mm_setcsr(saved_); }
  FlushSubnormals(const FlushSubnormals&) = delete;
  FlushSubnormals& operator=(const FlushSubnormals&) = delete;

 private:
  static constexpr unsigned kFtzDaz = 0x8040u;  // MXCSR bit 15 (flush to zero), bit 6 (denormals are zero)
  unsigned saved_;
#endif
};

}  // namespace proteus::backend
