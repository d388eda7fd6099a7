// Recall errors of a stream of associations k_t -> v_t computed directly, independent of
// core/memory: a plain loop over the linear or delta rule (a = 1) with the mask given as an
// explicit list of active prefix ends, and the key re-normalisation written out again.
// recall[t-1][i] = ||(G_t ⊙ S_t)^T k~_i - v_i|| / ||v_i||, k~_i: k_i re-normalised over step t's
// open rows ceil(end_t / d_v) for mask_then_normalize and capped_renormalize.
#pragma once
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace proteus::test {

struct DirectStream {
  std::string rule = "delta";                  // linear | delta
  std::string normalize = "normalize_then_mask";
  int d_k = 0, d_v = 0;
  std::vector<int> ends;                       // end(k(t)) for t = 1..T, by hand
  std::vector<std::vector<double>> k, v;       // (T, d_k), (T, d_v)
  std::vector<double> beta;                    // (T)
};

// x as the memory sees a key when `open` of its d_k rows are open.
inline std::vector<double> direct_key(const std::vector<double>& x, int open, const std::string& normalize) {
  const int d_k = static_cast<int>(x.size());
  if (normalize == "normalize_then_mask" || open >= d_k) return x;
  double norm = 0;
  for (int i = 0; i < open; ++i) norm += x[i] * x[i];
  norm = std::sqrt(norm);
  const double floor = normalize == "capped_renormalize" ? std::sqrt(double(open) / d_k) : 1e-6;
  std::vector<double> y = x;
  for (int i = 0; i < open; ++i) y[i] = x[i] / std::max(norm, floor);
  return y;
}

inline std::vector<std::vector<double>> direct_recall(const DirectStream& s) {
  const int T = static_cast<int>(s.k.size());
  std::vector<std::vector<double>> S(s.d_k, std::vector<double>(s.d_v, 0.0));
  std::vector<std::vector<double>> recall;
  for (int t = 0; t < T; ++t) {
    const int end = s.ends[t];
    const int open = (end + s.d_v - 1) / s.d_v;
    auto active = [&](int i, int j) { return i * s.d_v + j < end; };
    const std::vector<double> key = direct_key(s.k[t], open, s.normalize);
    std::vector<double> pred(s.d_v, 0.0);  // delta: what the active memory predicts for the key
    if (s.rule == "delta")
      for (int i = 0; i < s.d_k; ++i)
        for (int j = 0; j < s.d_v; ++j)
          if (active(i, j)) pred[j] += S[i][j] * key[i];
    for (int i = 0; i < s.d_k; ++i)
      for (int j = 0; j < s.d_v; ++j)
        if (active(i, j)) S[i][j] += s.beta[t] * key[i] * (s.v[t][j] - pred[j]);
    std::vector<double> row;
    for (int a = 0; a <= t; ++a) {
      const std::vector<double> probe = direct_key(s.k[a], open, s.normalize);
      double miss = 0, size = 0;
      for (int j = 0; j < s.d_v; ++j) {
        double read = 0;
        for (int i = 0; i < s.d_k; ++i)
          if (active(i, j)) read += S[i][j] * probe[i];
        miss += (read - s.v[a][j]) * (read - s.v[a][j]);
        size += s.v[a][j] * s.v[a][j];
      }
      row.push_back(std::sqrt(miss / size));
    }
    recall.push_back(row);
  }
  return recall;
}

}  // namespace proteus::test
