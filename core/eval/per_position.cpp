#include "core/eval/per_position.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace proteus::eval {

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

PerPositionResult summarise_losses(const std::vector<double>& losses, int rows, int L, int buckets, int train_len) {
  PerPositionResult r;
  r.seq_len = L;
  r.sequences = rows;
  r.nll.assign(L, std::nan(""));
  for (int t = 0; t < L; ++t) {
    double s = 0;
    int n = 0;
    for (int q = 0; q < rows; ++q)
      if (const double x = losses[static_cast<size_t>(q) * L + t]; !std::isnan(x)) s += x, ++n;
    if (n > 0) r.nll[t] = s / n;
  }
  double total = 0;
  int counted = 0;
  for (double x : r.nll)
    if (!std::isnan(x)) total += x, ++counted;
  r.mean_nll = counted > 0 ? total / counted : 0;
  for (auto [lo, hi] : log_buckets(L, buckets)) {
    double s = 0;
    int n = 0;
    for (int t = lo; t <= hi; ++t)
      if (!std::isnan(r.nll[t - 1])) s += r.nll[t - 1], ++n;
    if (n == 0) continue;
    r.bucket_lo.push_back(lo);
    r.bucket_hi.push_back(hi);
    r.bucket_nll.push_back(s / n);
  }
  summarise_sequences(r, losses, train_len);
  return r;
}

ScoredText scored_text(const std::vector<std::vector<int32_t>>& sequences, const data::Tokenizer& tokenizer) {
  ScoredText n;
  for (const auto& s : sequences) {
    if (s.size() < 2) continue;
    bool in_word = false;
    for (unsigned char c : tokenizer.decode(s.data() + 1, s.size() - 1)) {
      const bool space = c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
      n.words += !space && !in_word;
      in_word = !space;
      ++n.bytes;
    }
    n.tokens += static_cast<int64_t>(s.size()) - 1;
  }
  return n;
}

double bytes_per_word(const std::vector<std::vector<int32_t>>& sequences) {
  for (const auto& s : sequences)
    for (size_t i = 1; i < s.size(); ++i)
      if (s[i] < 0 || s[i] > 255) return 0;
  const ScoredText n = scored_text(sequences, data::Tokenizer());
  return n.words > 0 ? static_cast<double>(n.bytes) / n.words : 0;
}

void set_text_units(PerPositionResult& r, const std::vector<std::vector<int32_t>>& sequences,
                    const data::Tokenizer& tokenizer) {
  const ScoredText n = scored_text(sequences, tokenizer);
  r.bytes_per_token = n.tokens > 0 && n.bytes > 0 ? static_cast<double>(n.bytes) / n.tokens : 1;
  r.bytes_per_word = n.words > 0 ? static_cast<double>(n.bytes) / n.words : 0;
}

template <class T>
PerPositionResult per_position_loss(model::Model<T>& model, const std::vector<std::vector<int32_t>>& sequences,
                                    int buckets, int batch, int train_len, const PerPositionProgress& progress) {
  if (sequences.empty()) throw std::invalid_argument("per_position_loss: no sequences");
  const int L = static_cast<int>(sequences.front().size()) - 1;
  const int S = static_cast<int>(sequences.size());
  std::vector<double> all_losses;  // (sequences done, L)
  all_losses.reserve(sequences.size() * static_cast<size_t>(L));
  uint64_t fingerprint = 1469598103934665603ull;  // FNV-1a over every token id
  for (const auto& s : sequences)
    for (int32_t tok : s) fingerprint = (fingerprint ^ static_cast<uint32_t>(tok)) * 1099511628211ull;
  std::vector<int32_t> tokens, targets;
  int done = 0;
  while (done < S) {
    const int size = done == 0 && progress.first_batch > 0 ? progress.first_batch : batch;
    const int B = std::min(std::max(1, size), S - done);
    tokens.clear();
    targets.clear();
    for (int b = 0; b < B; ++b) {
      const auto& s = sequences[done + b];
      if (static_cast<int>(s.size()) != L + 1) throw std::invalid_argument("per_position_loss: ragged sequences");
      tokens.insert(tokens.end(), s.begin(), s.end() - 1);
      targets.insert(targets.end(), s.begin() + 1, s.end());
    }
    model.forward(tokens.data(), targets.data(), nullptr, B, L);
    const auto losses = model.position_losses();
    all_losses.insert(all_losses.end(), losses.begin(), losses.begin() + static_cast<size_t>(B) * L);
    done += B;
    if (progress.on_batch && !progress.on_batch(done, S)) return PerPositionResult{};
    if (progress.on_partial && done < S) {
      auto partial = summarise_losses(all_losses, done, L, buckets, train_len);
      partial.sequences_total = S;
      partial.sequences_fingerprint = fingerprint;  // of the whole set: a prefix of it pairs with a full result
      progress.on_partial(partial);
    }
  }
  auto r = summarise_losses(all_losses, S, L, buckets, train_len);
  r.sequences_fingerprint = fingerprint;
  r.bytes_per_word = bytes_per_word(sequences);
  return r;
}

void summarise_sequences(PerPositionResult& r, const std::vector<double>& losses, int train_len) {
  const int L = r.seq_len, S = r.sequences, K = static_cast<int>(r.bucket_lo.size());
  if (S < 1 || L < 1 || losses.size() != static_cast<size_t>(S) * L)
    throw std::invalid_argument("summarise_sequences: losses do not hold sequences x seq_len values");
  r.sequence_bucket_nll.assign(static_cast<size_t>(S) * K, 0.0);
  r.sequence_nll.assign(S, 0.0);
  // A NaN loss (a position that does not count in that row, as in masked validation rows) is left
  // out of the row's means; a mean over nothing is NaN, which the bootstrap skips.
  const auto mean_of = [](const double* first, int count) {
    double s = 0;
    int n = 0;
    for (int i = 0; i < count; ++i)
      if (!std::isnan(first[i])) s += first[i], ++n;
    return n > 0 ? s / n : std::nan("");
  };
  for (int q = 0; q < S; ++q) {
    const double* row = losses.data() + static_cast<size_t>(q) * L;
    r.sequence_nll[q] = mean_of(row, L);
    for (int k = 0; k < K; ++k)
      r.sequence_bucket_nll[static_cast<size_t>(q) * K + k] =
          mean_of(row + r.bucket_lo[k] - 1, r.bucket_hi[k] - r.bucket_lo[k] + 1);
  }
  r.bucket_interval = bootstrap_column_means(r.sequence_bucket_nll, S, K);
  r.mean_interval = bootstrap_mean(r.sequence_nll);
  r.train_len = 0;
  r.sequence_train_nll.clear();
  r.train_interval = {};
  if (train_len > 0 && train_len <= L) {
    r.train_len = train_len;
    r.sequence_train_nll.assign(S, 0.0);
    for (int q = 0; q < S; ++q) {
      r.sequence_train_nll[q] = mean_of(losses.data() + static_cast<size_t>(q) * L, train_len);
    }
    r.train_interval = bootstrap_mean(r.sequence_train_nll);
  }
}

std::vector<Interval> paired_bucket_difference(const PerPositionResult& a, const PerPositionResult& b) {
  if (a.sequence_bucket_nll.empty() || b.sequence_bucket_nll.empty())
    throw std::invalid_argument("paired difference: a run has no per-sequence results (evaluate it again)");
  const auto whole = [](const PerPositionResult& r) { return std::max(r.sequences, r.sequences_total); };
  if (a.sequences_fingerprint != b.sequences_fingerprint || whole(a) != whole(b) || a.seq_len != b.seq_len ||
      a.bucket_lo != b.bucket_lo || a.bucket_hi != b.bucket_hi)
    throw std::invalid_argument("paired difference: the runs were not evaluated on the same sequences");
  // A partial result holds the first sequences of the same set, in order: pair over those.
  const int rows = std::min(a.sequences, b.sequences), K = static_cast<int>(a.bucket_lo.size());
  const auto first_rows = [&](const std::vector<double>& v) {
    return std::vector<double>(v.begin(), v.begin() + static_cast<size_t>(rows) * K);
  };
  return paired_difference(first_rows(a.sequence_bucket_nll), first_rows(b.sequence_bucket_nll), rows, K);
}

template PerPositionResult per_position_loss<float>(model::Model<float>&, const std::vector<std::vector<int32_t>>&,
                                                    int, int, int, const PerPositionProgress&);
template PerPositionResult per_position_loss<double>(model::Model<double>&,
                                                     const std::vector<std::vector<int32_t>>&, int, int, int,
                                                     const PerPositionProgress&);

}  // namespace proteus::eval
