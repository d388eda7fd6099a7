#include "core/eval/comparison.hpp"

#include <cmath>
#include <stdexcept>

#include "core/eval/seed_group_summary.hpp"

namespace proteus::eval {
namespace {

void same_buckets(const PerPositionResult& a, const PerPositionResult& b, const std::string& what) {
  if (a.bucket_lo != b.bucket_lo || a.bucket_hi != b.bucket_hi)
    throw std::invalid_argument(what + ": the runs' position buckets differ (evaluated at other lengths?)");
}

}  // namespace

BucketTable paired_comparison(const PerPositionResult& a, const PerPositionResult& b) {
  BucketTable t;
  t.bucket_lo = a.bucket_lo;
  t.bucket_hi = a.bucket_hi;
  t.value = paired_bucket_difference(a, b);  // checks the sequences
  t.overall = paired_difference(a.sequence_nll, b.sequence_nll, a.sequences, 1).front();
  return t;
}

GroupSummary summarise_group(const std::vector<PerPositionResult>& runs,
                             const std::vector<const BlockUseResult*>& block_use) {
  GroupSummary g;
  if (runs.empty()) throw std::invalid_argument("seed group: no runs");
  g.seeds = static_cast<int>(runs.size());
  g.nll.bucket_lo = runs.front().bucket_lo;
  g.nll.bucket_hi = runs.front().bucket_hi;
  std::vector<std::vector<double>> buckets;
  std::vector<SeedGroupValue> means, bpb;
  for (const auto& r : runs) {
    same_buckets(runs.front(), r, "seed group");
    buckets.push_back(r.bucket_nll);
    means.push_back({.value = r.mean_nll});
    // Held-out bits per byte within the training length when the evaluation measured it.
    bpb.push_back({.value = r.train_len > 0 ? r.heldout_bits_per_byte().mean : r.bits_per_byte()});
  }
  g.nll.value = t_intervals(buckets);
  g.nll.overall = summarise_seed_group(means).mean;
  g.bits_per_byte = summarise_seed_group(bpb).mean;

  std::vector<std::vector<double>> entropy;
  for (const auto* u : block_use) {
    if (!u || !u->applicable) continue;
    if (!g.block_use_positions.empty() && u->positions != g.block_use_positions)
      throw std::invalid_argument("seed group: block use was measured at different positions");
    g.block_use_positions = u->positions;
    std::vector<double> row;
    for (const auto& i : u->mean_entropy) row.push_back(i.mean);
    entropy.push_back(row);
  }
  if (!entropy.empty()) g.block_use_entropy = t_intervals(entropy);
  return g;
}

BucketTable paired_group_comparison(const std::vector<PerPositionResult>& runs,
                                    const std::vector<PerPositionResult>& baseline) {
  if (runs.empty() || runs.size() != baseline.size())
    throw std::invalid_argument("paired group comparison: needs one baseline run per seed (got " +
                                std::to_string(runs.size()) + " and " + std::to_string(baseline.size()) + ")");
  BucketTable t;
  t.bucket_lo = runs.front().bucket_lo;
  t.bucket_hi = runs.front().bucket_hi;
  std::vector<std::vector<double>> diffs;
  std::vector<double> overall;
  for (size_t i = 0; i < runs.size(); ++i) {
    same_buckets(runs.front(), runs[i], "paired group comparison");
    same_buckets(runs[i], baseline[i], "paired group comparison");
    std::vector<double> d(runs[i].bucket_nll.size());
    for (size_t k = 0; k < d.size(); ++k) d[k] = runs[i].bucket_nll[k] - baseline[i].bucket_nll[k];
    diffs.push_back(d);
    overall.push_back(runs[i].mean_nll - baseline[i].mean_nll);
  }
  t.value = t_intervals(diffs);
  t.overall = t_interval(overall);
  return t;
}

std::vector<std::string> bucket_table_header() { return {"position_lo", "position_hi", "mean", "lo", "hi", "n"}; }

std::vector<std::vector<double>> bucket_table_rows(const BucketTable& t, int seq_len) {
  std::vector<std::vector<double>> rows;
  for (size_t k = 0; k < t.value.size(); ++k) {
    const auto& i = t.value[k];
    rows.push_back({double(t.bucket_lo[k]), double(t.bucket_hi[k]), i.mean, i.lo, i.hi, double(i.n)});
  }
  const auto& o = t.overall;
  rows.push_back({1.0, double(seq_len), o.mean, o.lo, o.hi, double(o.n)});
  return rows;
}

}  // namespace proteus::eval
