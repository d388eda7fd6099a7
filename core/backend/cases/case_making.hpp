// How a parity case is made (seeded inputs, outputs, both precisions, the shapes): apart, as every case file uses it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/backend/cases/op_cases.hpp"

namespace proteus::backend::parity {

// Uniform in [lo, hi) from a fixed seed, rounded to float so both precisions see the same values.
inline std::vector<double> values(size_t n, uint32_t seed, double lo = -1.0, double hi = 1.0) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> x(n);
  for (auto& e : x) e = static_cast<float>(u(rng));
  return x;
}

inline CaseOutput plain(std::vector<double> v) { return {std::move(v), {}}; }

// Every element must match the oracle exactly (copies, fills: no arithmetic).
inline CaseOutput exact(std::vector<double> v) {
  std::vector<uint8_t> m(v.size(), 1);
  return {std::move(v), std::move(m)};
}

// One generic body, run in both precisions.
template <class Body>
OpCase make_case(std::string name, Op op, OpShape shape, double max_nmse, Body body) {
  return {std::move(name), op, shape, max_nmse, std::nullopt, [body](CaseBuffers<float>& s) { return body(s); },
          [body](CaseBuffers<double>& s) { return body(s); }};
}

template <class S>
using Scalar = std::remove_reference_t<decltype(*std::declval<S&>().output("", 0))>;

// The shape of an op over n elements (elementwise ops, fill, copy, reductions, adamw).
inline OpShape elements(int64_t n) {
  OpShape sh;
  sh.n = n;
  return sh;
}

constexpr int N = 37, C = 24, OC = 19, B = 2, T = 11, H = 2, d = 6, V = 29;
constexpr size_t kLong = 1001;  // elementwise ops: a ragged tail after any power of two

}  // namespace proteus::backend::parity
