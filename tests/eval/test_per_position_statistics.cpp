// Per-position evaluation carries its statistics: per-sequence bucket means, a bootstrap interval
// per bucket that contains the mean, the paired difference between two models on the same
// sequences, and the round trip of all of it through the run directory.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include "core/backend/cpu/cpu_backend.hpp"
#include "core/eval/evaluate.hpp"
#include "core/eval/per_position.hpp"
#include "core/runs/eval_files.hpp"
#include "core/runs/run_dir.hpp"

namespace {

using namespace proteus;

config::ModelConfig tiny_model(int E) {
  config::ModelConfig m;
  m.vocab = 32;
  m.d_model = 16;
  m.layers = 1;
  m.mixer.heads = 2;
  m.mixer.d_head = 4;
  m.mixer.E = E;
  return m;
}

std::vector<std::vector<int32_t>> random_sequences(int n, int L, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::vector<int32_t>> out(n, std::vector<int32_t>(L + 1));
  for (auto& s : out)
    for (auto& t : s) t = static_cast<int32_t>(rng() % 32);
  return out;
}

TEST(PerPositionStatistics, IntervalsContainTheBucketMeans) {
  auto be = backend::make_cpu_backend<float>(1);
  model::Model<float> m(tiny_model(4), 24, *be, 3);
  const auto r = eval::per_position_loss(m, random_sequences(24, 24, 1), 6, 8);
  ASSERT_EQ(r.bucket_interval.size(), r.bucket_nll.size());
  ASSERT_EQ(r.sequence_bucket_nll.size(), r.bucket_nll.size() * 24);
  ASSERT_EQ(r.sequence_nll.size(), 24u);
  for (size_t k = 0; k < r.bucket_nll.size(); ++k) {
    const auto& i = r.bucket_interval[k];
    EXPECT_EQ(i.n, 24);
    EXPECT_NEAR(i.mean, r.bucket_nll[k], 1e-9) << "the interval is around the bucket's own mean";
    EXPECT_LE(i.lo, i.mean);
    EXPECT_GE(i.hi, i.mean);
    EXPECT_LT(i.lo, i.hi) << "random sequences differ, so there is a spread";
  }
  EXPECT_NEAR(r.mean_interval.mean, r.mean_nll, 1e-9);
}

TEST(PerPositionStatistics, MoreSequencesGiveNarrowerIntervals) {
  auto be = backend::make_cpu_backend<float>(1);
  model::Model<float> m(tiny_model(1), 16, *be, 5);
  const auto few = eval::per_position_loss(m, random_sequences(8, 16, 2), 4, 8);
  auto seqs = random_sequences(8, 16, 2);
  const auto extra = random_sequences(120, 16, 3);
  seqs.insert(seqs.end(), extra.begin(), extra.end());
  const auto many = eval::per_position_loss(m, seqs, 4, 8);
  ASSERT_EQ(few.bucket_interval.size(), many.bucket_interval.size());
  const auto width = [](const eval::Interval& i) { return i.hi - i.lo; };
  EXPECT_LT(width(many.mean_interval), width(few.mean_interval));
  for (size_t k = 0; k < few.bucket_interval.size(); ++k)
    EXPECT_LT(width(many.bucket_interval[k]), width(few.bucket_interval[k])) << "bucket " << k;
}

TEST(PerPositionStatistics, PairedDifferenceNeedsTheSameSequences) {
  auto be = backend::make_cpu_backend<float>(1);
  model::Model<float> a(tiny_model(4), 16, *be, 3), b(tiny_model(1), 16, *be, 3);
  const auto seqs = random_sequences(16, 16, 4);
  const auto ra = eval::per_position_loss(a, seqs, 4, 8);
  const auto rb = eval::per_position_loss(b, seqs, 4, 8);
  const auto d = eval::paired_bucket_difference(ra, rb);
  ASSERT_EQ(d.size(), ra.bucket_nll.size());
  for (size_t k = 0; k < d.size(); ++k) EXPECT_NEAR(d[k].mean, ra.bucket_nll[k] - rb.bucket_nll[k], 1e-9);
  // A model against itself: no difference at all, and an interval of zero width.
  for (const auto& i : eval::paired_bucket_difference(ra, ra)) {
    EXPECT_EQ(i.mean, 0.0);
    EXPECT_EQ(i.lo, 0.0);
    EXPECT_EQ(i.hi, 0.0);
  }
  const auto other = eval::per_position_loss(b, random_sequences(16, 16, 5), 4, 8);
  EXPECT_THROW(eval::paired_bucket_difference(ra, other), std::invalid_argument);
}

TEST(PerPositionStatistics, HeldOutLossWithinTheTrainingLengthIsTheMeanOfItsPositions) {
  auto be = backend::make_cpu_backend<float>(1);
  model::Model<float> m(tiny_model(4), 8, *be, 3);
  const auto seqs = random_sequences(20, 32, 7);
  const auto r = eval::per_position_loss(m, seqs, 6, 8, 8);
  ASSERT_EQ(r.train_len, 8);
  ASSERT_EQ(r.sequence_train_nll.size(), 20u);
  // The mean over sequences of each sequence's mean over positions 1..8 is the mean of nll[0..7].
  double direct = 0;
  for (int t = 0; t < 8; ++t) direct += r.nll[t];
  direct /= 8;
  EXPECT_NEAR(r.train_interval.mean, direct, 1e-9);
  EXPECT_LT(r.train_interval.lo, r.train_interval.mean);
  EXPECT_GT(r.train_interval.hi, r.train_interval.mean);
  EXPECT_EQ(r.train_interval.n, 20);
  EXPECT_NEAR(r.heldout_bits_per_byte().mean, direct / std::log(2.0), 1e-9);
  // No training length, or one past the evaluation: nothing is claimed.
  EXPECT_EQ(eval::per_position_loss(m, seqs, 6, 8).train_len, 0);
  EXPECT_EQ(eval::per_position_loss(m, seqs, 6, 8, 33).train_len, 0);
}

TEST(PerPositionStatistics, StatisticsRoundTripThroughTheRunDirectory) {
  auto be = backend::make_cpu_backend<float>(1);
  model::Model<float> m(tiny_model(2), 16, *be, 9);
  eval::EvalReport report;
  report.per_position = eval::per_position_loss(m, random_sequences(12, 16, 6), 4, 8, 10);
  const auto dir = std::filesystem::temp_directory_path() / ("proteus-pp-stats-" + std::to_string(std::random_device{}()));
  auto writer = runs::RunWriter::create(dir, "r", nlohmann::json{{"name", "r"}});
  runs::write_eval_report(writer, report);
  const auto back = runs::read_eval_report(runs::RunReader::open(writer.dir()));
  ASSERT_TRUE(back.per_position);
  const auto& p = *report.per_position;
  const auto& q = *back.per_position;
  EXPECT_EQ(q.sequences_fingerprint, p.sequences_fingerprint);
  EXPECT_EQ(q.sequence_bucket_nll, p.sequence_bucket_nll);
  ASSERT_EQ(q.bucket_interval.size(), p.bucket_interval.size());
  for (size_t k = 0; k < p.bucket_interval.size(); ++k) {
    EXPECT_EQ(q.bucket_interval[k].lo, p.bucket_interval[k].lo);
    EXPECT_EQ(q.bucket_interval[k].hi, p.bucket_interval[k].hi);
    EXPECT_EQ(q.bucket_interval[k].n, p.bucket_interval[k].n);
  }
  EXPECT_EQ(q.mean_interval.hi, p.mean_interval.hi);
  EXPECT_EQ(q.train_len, 10);
  EXPECT_EQ(q.sequence_train_nll, p.sequence_train_nll);
  EXPECT_EQ(q.train_interval.lo, p.train_interval.lo);
  EXPECT_GT(p.bytes_per_word, 0.0);  // ids below 32 are bytes (control characters: one word each run)
  EXPECT_EQ(q.bytes_per_word, p.bytes_per_word);
  // The bucket CSV carries mean, lo, hi, n.
  std::ifstream csv(writer.dir() / "per_position_buckets.csv");
  std::string header;
  std::getline(csv, header);
  EXPECT_EQ(header, "position_lo,position_hi,mean,lo,hi,n,ppl");
  std::filesystem::remove_all(dir);
}

// The per-word unit: scored targets (each sequence's first token is context only) per word, words
// being runs of non-space bytes; ids that are not bytes give 0 (no word count for them).
TEST(PerPositionStatistics, BytesPerWordCountsTheScoredTargetsOfEachWord) {
  auto bytes = [](const std::string& text) { return std::vector<int32_t>(text.begin(), text.end()); };
  // "Xthe cat  sat\n": 13 scored targets, words "the", "cat", "sat".
  EXPECT_DOUBLE_EQ(eval::bytes_per_word({bytes("Xthe cat  sat\n")}), 13.0 / 3);
  // Per sequence: a word cut by the end of one sequence and one begun by the next count apart.
  EXPECT_DOUBLE_EQ(eval::bytes_per_word({bytes("Xab"), bytes("Ycd e")}), 6.0 / 3);
  EXPECT_EQ(eval::bytes_per_word({bytes("X   ")}), 0.0);
  EXPECT_EQ(eval::bytes_per_word({{1, 2, 300}}), 0.0);
  // NLL per word is NLL per byte scaled by it.
  runs::PerPositionResult r;
  r.mean_nll = 0.5;
  r.bytes_per_word = 6.0;
  EXPECT_DOUBLE_EQ(r.nll_per_word(), 3.0);
  // Tokens of several bytes (a BPE run): NLL per byte divides by bytes per token first.
  r.bytes_per_token = 2.0;
  EXPECT_DOUBLE_EQ(r.nll_per_byte(), 0.25);
  EXPECT_DOUBLE_EQ(r.nll_per_word(), 1.5);
}

// math.md section 8's units from the decoded scored targets: a byte tokenizer gives one byte per
// token and the same bytes per word as above.
TEST(PerPositionStatistics, ScoredTextCountsTokensBytesAndWordsOfTheDecodedTargets) {
  auto bytes = [](const std::string& text) { return std::vector<int32_t>(text.begin(), text.end()); };
  const std::vector<std::vector<int32_t>> seqs = {bytes("Xthe cat  sat\n"), bytes("Yab")};
  const auto n = eval::scored_text(seqs, data::Tokenizer());
  EXPECT_EQ(n.tokens, 15);
  EXPECT_EQ(n.bytes, 15);
  EXPECT_EQ(n.words, 4);
  runs::PerPositionResult r;
  eval::set_text_units(r, seqs, data::Tokenizer());
  EXPECT_EQ(r.bytes_per_token, 1.0);
  EXPECT_DOUBLE_EQ(r.bytes_per_word, eval::bytes_per_word(seqs));
}

// One summary for the evaluation and the live curve: a NaN loss (a position its row does not
// count) is left out of that position's mean; a position no row counts is NaN and left out of
// mean_nll and of the buckets.
TEST(PerPositionStatistics, SummariseLossesLeavesOutWhatARowDoesNotCount) {
  const double nan = std::nan("");
  // rows x L = 2 x 4; position 4 is counted by no row, position 2 by the second only.
  const std::vector<double> losses = {1.0, nan, 3.0, nan,  //
                                      3.0, 4.0, 5.0, nan};
  const auto r = eval::summarise_losses(losses, 2, 4, 4);
  ASSERT_EQ(r.nll.size(), 4u);
  EXPECT_DOUBLE_EQ(r.nll[0], 2.0);
  EXPECT_DOUBLE_EQ(r.nll[1], 4.0);
  EXPECT_DOUBLE_EQ(r.nll[2], 4.0);
  EXPECT_TRUE(std::isnan(r.nll[3]));
  EXPECT_DOUBLE_EQ(r.mean_nll, 10.0 / 3);
  for (size_t b = 0; b < r.bucket_nll.size(); ++b) {
    EXPECT_FALSE(std::isnan(r.bucket_nll[b]));
    EXPECT_LE(r.bucket_hi[b], 3) << "the bucket of position 4 alone is dropped";
  }
  // Without NaN it is the plain mean over rows, as the evaluation has always computed it.
  const auto plain = eval::summarise_losses({1.0, 2.0, 3.0, 4.0}, 2, 2, 2);
  EXPECT_DOUBLE_EQ(plain.nll[0], 2.0);
  EXPECT_DOUBLE_EQ(plain.nll[1], 3.0);
  EXPECT_DOUBLE_EQ(plain.mean_nll, 2.5);
}

}  // namespace
