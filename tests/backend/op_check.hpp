// Helpers for the backend op tests: seeded random buffers, the weighted-sum loss and a central
// finite-difference check of an analytic gradient (ggml's `grad` mode, in float64).
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace proteus::backend::testing {

// Uniform in [lo, hi), from a fixed seed so every failure replays.
template <class F = double>
std::vector<F> random_vector(size_t n, uint32_t seed, double lo = -1.0, double hi = 1.0) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<F> x(n);
  for (auto& e : x) e = static_cast<F>(u(rng));
  return x;
}

inline double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// Checks `analytic` against central differences of loss() over every element of x (which loss()
// reads); the error is normwise, max |analytic - numeric| / max |numeric|, and must be < tol.
// The gradient must not be all zero: a check of zeros against zeros proves nothing.
inline void expect_gradient(const std::string& what, std::vector<double>& x, const std::vector<double>& analytic,
                            const std::function<double()>& loss, double tol = 1e-6, double h = 1e-5) {
  ASSERT_EQ(x.size(), analytic.size()) << what;
  double worst = 0, scale = 0;
  size_t worst_at = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double x0 = x[i];
    x[i] = x0 + h;
    const double up = loss();
    x[i] = x0 - h;
    const double down = loss();
    x[i] = x0;
    const double numeric = (up - down) / (2 * h);
    scale = std::max(scale, std::fabs(numeric));
    const double err = std::fabs(numeric - analytic[i]);
    if (err > worst) worst = err, worst_at = i;
  }
  ASSERT_GT(scale, 1e-3) << what << ": the gradient is (nearly) zero, the check would prove nothing";
  EXPECT_LT(worst / scale, tol) << what << ": max abs error " << worst << " at element " << worst_at << ", scale "
                                << scale << ", analytic " << analytic[worst_at];
}

// Largest |a - b| over max |b|: the float-vs-double and variant comparisons.
template <class A>
double rel_max_error(const std::vector<A>& a, const std::vector<double>& b) {
  double worst = 0, scale = 1e-300;
  for (size_t i = 0; i < b.size(); ++i) {
    worst = std::max(worst, std::fabs(static_cast<double>(a[i]) - b[i]));
    scale = std::max(scale, std::fabs(b[i]));
  }
  return worst / scale;
}

template <class F>
bool same_bits(const std::vector<F>& a, const std::vector<F>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(F)) == 0;
}

template <class F>
std::vector<F> to(const std::vector<double>& x) {
  return std::vector<F>(x.begin(), x.end());
}

}  // namespace proteus::backend::testing
