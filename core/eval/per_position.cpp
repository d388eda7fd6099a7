#include "core/eval/per_position.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

namespace proteus::eval {

double PerPositionResult::bits_per_byte() const { return mean_nll / std::numbers::ln2; }

std::vector<std::pair<int, int>> log_buckets(int T, int n) {
  std::vector<std::pair<int, int>> out;
  if (T < 1 || n < 1) return out;
  int lo = 1;
  for (int b = 1; b <= n && lo <= T; ++b) {
    // Upper edge at T^(b/n), but at least one position per bucket.
    int hi = static_cast<int>(std::floor(std::pow(static_cast<double>(T), static_cast<double>(b) / n) + 1e-9));
    hi = std::clamp(hi, lo, T);
    if (b == n) hi = T;
    out.push_back({lo, hi});
    lo = hi + 1;
  }
  return out;
}

template <class T>
PerPositionResult per_position_loss(model::Model<T>& model, const std::vector<std::vector<int32_t>>& sequences,
                                    int buckets, int batch) {
  if (sequences.empty()) throw std::invalid_argument("per_position_loss: no sequences");
  const int L = static_cast<int>(sequences.front().size()) - 1;
  PerPositionResult r;
  r.seq_len = L;
  r.sequences = static_cast<int>(sequences.size());
  r.nll.assign(L, 0.0);
  std::vector<int32_t> tokens, targets;
  for (size_t first = 0; first < sequences.size(); first += batch) {
    const int B = static_cast<int>(std::min<size_t>(batch, sequences.size() - first));
    tokens.clear();
    targets.clear();
    for (int b = 0; b < B; ++b) {
      const auto& s = sequences[first + b];
      if (static_cast<int>(s.size()) != L + 1) throw std::invalid_argument("per_position_loss: ragged sequences");
      tokens.insert(tokens.end(), s.begin(), s.end() - 1);
      targets.insert(targets.end(), s.begin() + 1, s.end());
    }
    model.forward(tokens.data(), targets.data(), nullptr, B, L);
    const auto losses = model.position_losses();
    for (int b = 0; b < B; ++b)
      for (int t = 0; t < L; ++t) r.nll[t] += losses[static_cast<size_t>(b) * L + t];
  }
  double total = 0;
  for (double& x : r.nll) {
    x /= r.sequences;
    total += x;
  }
  r.mean_nll = total / L;
  for (auto [lo, hi] : log_buckets(L, buckets)) {
    double s = 0;
    for (int t = lo; t <= hi; ++t) s += r.nll[t - 1];
    r.bucket_lo.push_back(lo);
    r.bucket_hi.push_back(hi);
    r.bucket_nll.push_back(s / (hi - lo + 1));
  }
  return r;
}

template PerPositionResult per_position_loss<float>(model::Model<float>&, const std::vector<std::vector<int32_t>>&,
                                                    int, int);
template PerPositionResult per_position_loss<double>(model::Model<double>&,
                                                     const std::vector<std::vector<int32_t>>&, int, int);

}  // namespace proteus::eval
