// rows_product and rows_product_transposed_b (core/memory/rows_product.hpp) against Eigen's
// product: every row and column tail of the register blocking and of the 16x16 transposes, both
// forms of A, assignment and accumulation, operands that are blocks of wider matrices; and nothing
// written outside C.
#include "core/memory/rows_product.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <type_traits>

#include "core/memory/chunk_matrices.hpp"

namespace {

using proteus::memory::detail::Into;
using proteus::memory::detail::Mat;
using proteus::memory::detail::OpA;
using proteus::memory::detail::rows_product;
using proteus::memory::detail::rows_product_transposed_b;

template <class T>
Mat<T> random_mat(int64_t rows, int64_t cols, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  Mat<T> m(rows, cols);
  for (int64_t i = 0; i < m.size(); ++i) m.data()[i] = static_cast<T>(u(rng));
  return m;
}

// C is the (M, N) block at (1, 2) of a wider matrix filled with a sentinel; B the (K, N) block at
// (0, 3) of a wider one; A the block at (2, 1).
template <class T>
void check_shape(int64_t M, int64_t N, int64_t K, OpA op, Into into, std::mt19937& rng) {
  const T sentinel = T(1234.5);
  Mat<T> Cw = Mat<T>::Constant(M + 3, N + 5, sentinel);
  const Mat<T> C0 = random_mat<T>(M, N, rng);
  Cw.block(1, 2, M, N) = C0;
  const bool trans = op == OpA::transposed;
  const Mat<T> Aw = random_mat<T>((trans ? K : M) + 4, (trans ? M : K) + 3, rng);
  const Mat<T> Bw = random_mat<T>(K + 2, N + 7, rng);
  const auto A = Aw.block(2, 1, trans ? K : M, trans ? M : K);
  const auto B = Bw.block(0, 3, K, N);
  rows_product(Cw.block(1, 2, M, N), A, op, B, into);

  Mat<double> want = Mat<double>::Zero(M, N);
  if (into == Into::add) want = C0.template cast<double>();
  const Mat<double> Ad = A.template cast<double>(), Bd = B.template cast<double>();
  want += (trans ? Mat<double>(Ad.transpose()) : Ad) * Bd;
  const double tol = std::is_same_v<T, float> ? 1e-5 : 1e-12;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j)
      ASSERT_NEAR(static_cast<double>(Cw(1 + i, 2 + j)), want(i, j), tol * (1 + static_cast<double>(K)))
          << "M " << M << " N " << N << " K " << K << " at (" << i << ", " << j << ")";
  for (int64_t i = 0; i < Cw.rows(); ++i)
    for (int64_t j = 0; j < Cw.cols(); ++j)
      if (i < 1 || i >= 1 + M || j < 2 || j >= 2 + N) {
        ASSERT_EQ(Cw(i, j), sentinel) << "written outside C at (" << i << ", " << j << "), M " << M << " N " << N;
      }
}

// C (+)= A B^T with C, A and B blocks of wider matrices, as above; B (N, K).
template <class T>
void check_transposed_b(int64_t M, int64_t N, int64_t K, Into into, std::mt19937& rng) {
  const T sentinel = T(1234.5);
  Mat<T> Cw = Mat<T>::Constant(M + 3, N + 5, sentinel);
  const Mat<T> C0 = random_mat<T>(M, N, rng);
  Cw.block(1, 2, M, N) = C0;
  const Mat<T> Aw = random_mat<T>(M + 4, K + 3, rng), Bw = random_mat<T>(N + 2, K + 7, rng);
  const auto A = Aw.block(2, 1, M, K);
  const auto B = Bw.block(1, 3, N, K);
  rows_product_transposed_b(Cw.block(1, 2, M, N), A, B, into);

  Mat<double> want = Mat<double>::Zero(M, N);
  if (into == Into::add) want = C0.template cast<double>();
  want += A.template cast<double>() * B.template cast<double>().transpose();
  const double tol = std::is_same_v<T, float> ? 1e-5 : 1e-12;
  for (int64_t i = 0; i < Cw.rows(); ++i)
    for (int64_t j = 0; j < Cw.cols(); ++j) {
      if (i < 1 || i >= 1 + M || j < 2 || j >= 2 + N) {
        ASSERT_EQ(Cw(i, j), sentinel) << "written outside C at (" << i << ", " << j << "), M " << M << " N " << N;
      } else {
        ASSERT_NEAR(static_cast<double>(Cw(i, j)), want(i - 1, j - 2), tol * (1 + static_cast<double>(K)))
            << "M " << M << " N " << N << " K " << K << " at (" << i - 1 << ", " << j - 2 << ")";
      }
    }
}

template <class T>
void check_all_shapes() {
  std::mt19937 rng(7);
  for (int64_t M : {1, 3, 4, 5, 16, 33})
    for (int64_t N : {1, 15, 16, 17, 48, 64, 65, 128, 130})
      for (int64_t K : {0, 1, 7, 16, 64, 65, 130})
        for (OpA op : {OpA::as_is, OpA::transposed})
          for (Into into : {Into::assign, Into::add}) check_shape<T>(M, N, K, op, into, rng);
}

TEST(RowsProduct, FloatEqualsEigenAtEveryTail) { check_all_shapes<float>(); }
TEST(RowsProduct, DoubleEqualsEigenAtEveryTail) { check_all_shapes<double>(); }

template <class T>
void check_all_transposed_b_shapes() {
  std::mt19937 rng(11);
  for (int64_t M : {1, 4, 5, 16, 33})
    for (int64_t N : {1, 15, 16, 17, 31, 48, 64, 65, 130})
      for (int64_t K : {0, 1, 15, 16, 17, 64, 65, 130})
        for (Into into : {Into::assign, Into::add}) check_transposed_b<T>(M, N, K, into, rng);
}

TEST(RowsProduct, TransposedRightSideEqualsEigenAtEveryTail) {
  check_all_transposed_b_shapes<float>();
  check_all_transposed_b_shapes<double>();
}

// Each element of B lands where its transpose belongs: integers, exact in float, so any misplaced
// lane of the 16x16 transposes shows as a wrong value, not a rounding.
TEST(RowsProduct, TransposedRightSidePlacesEveryElement) {
  const int64_t N = 37, K = 50;
  Mat<float> B(N, K);
  for (int64_t j = 0; j < N; ++j)
    for (int64_t k = 0; k < K; ++k) B(j, k) = static_cast<float>(j * 100 + k);
  for (int64_t k = 0; k < K; ++k) {  // row k of A picks column k of B^T
    Mat<float> A = Mat<float>::Zero(1, K), C(1, N);
    A(0, k) = 1;
    rows_product_transposed_b(C, A, B, Into::assign);
    for (int64_t j = 0; j < N; ++j) ASSERT_EQ(C(0, j), static_cast<float>(j * 100 + k)) << "k " << k << " j " << j;
  }
}

// The same inputs give the same bits, call after call (the order of the sums is fixed).
TEST(RowsProduct, SameInputsSameBits) {
  std::mt19937 rng(3);
  const Mat<float> A = random_mat<float>(32, 64, rng), B = random_mat<float>(64, 64, rng);
  Mat<float> C1(32, 64), C2(32, 64);
  rows_product(C1, A, OpA::as_is, B, Into::assign);
  rows_product(C2, A, OpA::as_is, B, Into::assign);
  EXPECT_EQ(0, std::memcmp(C1.data(), C2.data(), sizeof(float) * C1.size()));
}

}  // namespace
