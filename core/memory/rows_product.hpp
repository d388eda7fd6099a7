// C = op(A) B or C += op(A) B for the chunked forms' products whose right side is read by its rows
// (a state block, a chunk's values): op(A) is A or A^T, every operand row-major with unit inner stride.
// In float with AVX-512 a register-blocked loop broadcasts A's elements against B's rows, packing
// nothing: at the chunks' shapes (16-64 rows, 16-128 deep, 64-128 wide) it ran at the FMA units'
// rate where Eigen's packed GEMM ran 1.2-1.6x slower (experiments/results/perf-history.md). Elsewhere
// (double, no AVX-512, fewer than 16 columns) it is Eigen's product. The CPU backend's dense
// matmuls run through it too (core/backend/cpu/cpu_backend.cpp).
#pragma once
#include <Eigen/Dense>
#include <cstdint>
#include <type_traits>
#include <vector>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace proteus::memory::detail {

#if defined(__AVX512F__)
// ROWS rows of C by VECS 16-float columns from column 0 of the given pointers; `last` masks the
// last vector's columns. C's accumulators stay in registers over the whole depth K.
template <int ROWS, int VECS, bool TransA>
inline void rows_product_tile(float* C, int64_t ldc, const float* A, int64_t lda, const float* B, int64_t ldb,
                              int64_t K, __mmask16 last, bool accumulate) {
  __m512 c[ROWS][VECS];
#pragma GCC unroll 4
  for (int r = 0; r < ROWS; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < VECS; ++v)
      c[r][v] = accumulate ? _mm512_maskz_loadu_ps(v + 1 == VECS ? last : __mmask16(0xFFFF), C + r * ldc + 16 * v)
                           : _mm512_setzero_ps();
  for (int64_t k = 0; k < K; ++k) {
    const float* b = B + k * ldb;
    __m512 bv[VECS];
#pragma GCC unroll 4
    for (int v = 0; v < VECS; ++v) bv[v] = _mm512_maskz_loadu_ps(v + 1 == VECS ? last : __mmask16(0xFFFF), b + 16 * v);
#pragma GCC unroll 4
    for (int r = 0; r < ROWS; ++r) {
      const __m512 a = _mm512_set1_ps(TransA ? A[k * lda + r] : A[r * lda + k]);
#pragma GCC unroll 4
      for (int v = 0; v < VECS; ++v) c[r][v] = _mm512_fmadd_ps(a, bv[v], c[r][v]);
    }
  }
#pragma GCC unroll 4
  for (int r = 0; r < ROWS; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < VECS; ++v)
      _mm512_mask_storeu_ps(C + r * ldc + 16 * v, v + 1 == VECS ? last : __mmask16(0xFFFF), c[r][v]);
}

template <int ROWS, bool TransA>
inline void rows_product_panel(int vecs, float* C, int64_t ldc, const float* A, int64_t lda, const float* B,
                               int64_t ldb, int64_t K, __mmask16 last, bool accumulate) {
  switch (vecs) {
    case 1: return rows_product_tile<ROWS, 1, TransA>(C, ldc, A, lda, B, ldb, K, last, accumulate);
    case 2: return rows_product_tile<ROWS, 2, TransA>(C, ldc, A, lda, B, ldb, K, last, accumulate);
    case 3: return rows_product_tile<ROWS, 3, TransA>(C, ldc, A, lda, B, ldb, K, last, accumulate);
    default: return rows_product_tile<ROWS, 4, TransA>(C, ldc, A, lda, B, ldb, K, last, accumulate);
  }
}

// Depth is taken 64 rows of B at a time: a (64, 64) piece of B (16 KB) stays in L1 while every row
// of C passes over it (at depth 128 whole panels spilled to L2 and ran slower than Eigen).
constexpr int64_t kRowsProductDepth = 64;

// C (M, N) (+)= op(A) (M, K) B (K, N); A holds op(A)'s transpose (K, M) when TransA.
template <bool TransA>
void rows_product_avx512(float* C, int64_t ldc, const float* A, int64_t lda, const float* B, int64_t ldb, int64_t M,
                         int64_t N, int64_t K, bool accumulate) {
  for (int64_t j0 = 0; j0 < N; j0 += 64) {
    const int64_t cols = N - j0 < 64 ? N - j0 : 64;
    const int vecs = static_cast<int>((cols + 15) / 16);
    const int tail = static_cast<int>(cols - 16 * (vecs - 1));  // 1..16 columns in the last vector
    const __mmask16 last = static_cast<__mmask16>(tail == 16 ? 0xFFFF : (1u << tail) - 1);
    for (int64_t k0 = 0; k0 < K || k0 == 0; k0 += kRowsProductDepth) {
      const int64_t depth = K - k0 < kRowsProductDepth ? K - k0 : kRowsProductDepth;
      const bool add = accumulate || k0 > 0;
      const float* b = B + k0 * ldb + j0;
      for (int64_t i0 = 0; i0 < M; i0 += 4) {
        const float* a = TransA ? A + k0 * lda + i0 : A + i0 * lda + k0;
        float* c = C + i0 * ldc + j0;
        switch (M - i0 < 4 ? M - i0 : 4) {
          case 1: rows_product_panel<1, TransA>(vecs, c, ldc, a, lda, b, ldb, depth, last, add); break;
          case 2: rows_product_panel<2, TransA>(vecs, c, ldc, a, lda, b, ldb, depth, last, add); break;
          case 3: rows_product_panel<3, TransA>(vecs, c, ldc, a, lda, b, ldb, depth, last, add); break;
          default: rows_product_panel<4, TransA>(vecs, c, ldc, a, lda, b, ldb, depth, last, add); break;
        }
      }
    }
  }
}

// Rows r[0..15] of a 16x16 tile become its columns: unpacks pair the rows' floats then their
// float pairs within each 128-bit lane, two lane shuffles gather the lanes (64 shuffles a tile).
inline void transpose_16x16(__m512 r[16]) {
  __m512 t[16];
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  // u[4g + c], lane l: column 4l + c of rows 4g..4g+3
#pragma GCC unroll 4
  for (int g = 0; g < 4; ++g) {
    const __m512d a = _mm512_castps_pd(t[4 * g]), b = _mm512_castps_pd(t[4 * g + 2]);
    const __m512d c = _mm512_castps_pd(t[4 * g + 1]), d = _mm512_castps_pd(t[4 * g + 3]);
    r[4 * g] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, b));
    r[4 * g + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, b));
    r[4 * g + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(c, d));
    r[4 * g + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(c, d));
  }
  // column 4l + c: lane l of u[c], u[4 + c], u[8 + c], u[12 + c]
#pragma GCC unroll 4
  for (int c = 0; c < 4; ++c) {
    const __m512 v01 = _mm512_shuffle_f32x4(r[c], r[4 + c], 0x44), v23 = _mm512_shuffle_f32x4(r[c], r[4 + c], 0xEE);
    const __m512 w01 = _mm512_shuffle_f32x4(r[8 + c], r[12 + c], 0x44),
                 w23 = _mm512_shuffle_f32x4(r[8 + c], r[12 + c], 0xEE);
    t[c] = _mm512_shuffle_f32x4(v01, w01, 0x88);
    t[4 + c] = _mm512_shuffle_f32x4(v01, w01, 0xDD);
    t[8 + c] = _mm512_shuffle_f32x4(v23, w23, 0x88);
    t[12 + c] = _mm512_shuffle_f32x4(v23, w23, 0xDD);
  }
#pragma GCC unroll 16
  for (int i = 0; i < 16; ++i) r[i] = t[i];
}

// Bt (K, N) = B^T for B (N, K), a 16x16 tile at a time; the tiles at B's edges load and store
// masked.
inline void transpose_rows(float* Bt, int64_t ldt, const float* B, int64_t ldb, int64_t N, int64_t K) {
  for (int64_t j0 = 0; j0 < N; j0 += 16) {
    const int64_t rows = N - j0 < 16 ? N - j0 : 16;
    const __mmask16 row_mask = static_cast<__mmask16>(rows == 16 ? 0xFFFF : (1u << rows) - 1);
    for (int64_t k0 = 0; k0 < K; k0 += 16) {
      const int64_t cols = K - k0 < 16 ? K - k0 : 16;
      const __mmask16 col_mask = static_cast<__mmask16>(cols == 16 ? 0xFFFF : (1u << cols) - 1);
      __m512 r[16];
      for (int i = 0; i < 16; ++i)
        r[i] = i < rows ? _mm512_maskz_loadu_ps(col_mask, B + (j0 + i) * ldb + k0) : _mm512_setzero_ps();
      transpose_16x16(r);
      for (int i = 0; i < cols; ++i) _mm512_mask_storeu_ps(Bt + (k0 + i) * ldt + j0, row_mask, r[i]);
    }
  }
}
#endif

// Whether rows_product runs its own loop for a right side N columns wide (else Eigen's product).
template <class T>
constexpr bool rows_product_runs_own_loop(int64_t N) {
#if defined(__AVX512F__)
  return std::is_same_v<T, float> && N >= 16;
#else
  (void)N;
  return false;
#endif
}

enum class OpA { as_is, transposed };
enum class Into { assign, add };

// C (+)= op(A) B. C must already have op(A)'s rows and B's columns (a Block cannot be resized), and
// share no memory with A or B.
template <class CM, class AM, class BM>
void rows_product(CM&& C, const AM& A, OpA op, const BM& B, Into into) {
  using T [[maybe_unused]] = typename std::decay_t<CM>::Scalar;
  const bool trans = op == OpA::transposed;
  // Read by the assertion and the AVX-512 loop only: unused where both are compiled out.
  [[maybe_unused]] const int64_t M = trans ? A.cols() : A.rows(), K = trans ? A.rows() : A.cols(), N = B.cols();
  eigen_assert(C.rows() == M && C.cols() == N && B.rows() == K);
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<T, float>) {
    static_assert(std::decay_t<CM>::IsRowMajor && AM::IsRowMajor && BM::IsRowMajor, "row-major operands only");
    if (rows_product_runs_own_loop<T>(N) && C.innerStride() == 1 && A.innerStride() == 1 && B.innerStride() == 1) {
      if (trans)
        rows_product_avx512<true>(C.data(), C.outerStride(), A.data(), A.outerStride(), B.data(), B.outerStride(), M, N,
                                  K, into == Into::add);
      else
        rows_product_avx512<false>(C.data(), C.outerStride(), A.data(), A.outerStride(), B.data(), B.outerStride(), M,
                                   N, K, into == Into::add);
      return;
    }
  }
#endif
  if (trans) {
    if (into == Into::add)
      C.noalias() += A.transpose() * B;
    else
      C.noalias() = A.transpose() * B;
  } else {
    if (into == Into::add)
      C.noalias() += A * B;
    else
      C.noalias() = A * B;
  }
}

// C (+)= A B^T, B (N, K) read by its rows: in float on AVX-512 B is transposed into a scratch of
// the calling thread by register transposes and the product is rows_product's loop (Eigen's
// product packed both sides for these shapes: 30% on top of its kernel, perf); elsewhere Eigen's.
template <class CM, class AM, class BM>
void rows_product_transposed_b(CM&& C, const AM& A, const BM& B, Into into) {
  using T [[maybe_unused]] = typename std::decay_t<CM>::Scalar;
  [[maybe_unused]] const int64_t M = A.rows(), K = A.cols(), N = B.rows();  // as above
  eigen_assert(C.rows() == M && C.cols() == N && B.cols() == K);
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<T, float>) {
    static_assert(std::decay_t<CM>::IsRowMajor && AM::IsRowMajor && BM::IsRowMajor, "row-major operands only");
    if (rows_product_runs_own_loop<T>(N) && C.innerStride() == 1 && A.innerStride() == 1 && B.innerStride() == 1) {
      thread_local std::vector<float> Bt;  // (K, N), kept from call to call
      Bt.resize(static_cast<size_t>(K * N));
      transpose_rows(Bt.data(), N, B.data(), B.outerStride(), N, K);
      rows_product_avx512<false>(C.data(), C.outerStride(), A.data(), A.outerStride(), Bt.data(), N, M, N, K,
                                 into == Into::add);
      return;
    }
  }
#endif
  if (into == Into::add)
    C.noalias() += A * B.transpose();
  else
    C.noalias() = A * B.transpose();
}

}  // namespace proteus::memory::detail
