// Block use: the share of the state's energy per block and its normalised entropy. Checked on
// known weights, and on a model where the schedule dictates the answer: before the second block
// unlocks, every bit of energy is in block 0 (entropy 0 over E, 1 over the open blocks).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/backend/cpu/cpu_backend.hpp"
#include "core/eval/block_use.hpp"

namespace {

using namespace proteus;

TEST(BlockUse, NormalisedEntropyOfKnownWeights) {
  const double uniform[4] = {2, 2, 2, 2}, one[4] = {0, 5, 0, 0}, half[4] = {1, 1, 0, 0}, zero[3] = {0, 0, 0};
  EXPECT_NEAR(eval::normalised_entropy(uniform, 4), 1.0, 1e-12);
  EXPECT_EQ(eval::normalised_entropy(one, 4), 0.0);
  EXPECT_NEAR(eval::normalised_entropy(half, 4), 0.5, 1e-12);  // log 2 / log 4
  EXPECT_EQ(eval::normalised_entropy(one + 1, 1), 1.0);
  EXPECT_TRUE(std::isnan(eval::normalised_entropy(zero, 3)));
}

TEST(BlockUse, DefaultPositions) {
  EXPECT_EQ(eval::block_use_positions(256), (std::vector<int>{64, 128, 256, 512}));
  EXPECT_EQ(eval::block_use_positions(2), (std::vector<int>{1, 2, 4}));
}

config::ModelConfig tiny(int E, config::MixerType type = config::MixerType::memory) {
  config::ModelConfig m;
  m.vocab = 32;
  m.d_model = 16;
  m.layers = 2;
  m.mixer.type = type;
  m.mixer.heads = 2;
  m.mixer.d_head = 4;
  m.mixer.E = E;
  return m;
}

std::vector<int32_t> tokens(int B, int T) {
  std::mt19937 rng(5);
  std::vector<int32_t> t(static_cast<size_t>(B) * T);
  for (auto& x : t) x = static_cast<int32_t>(rng() % 32);
  return t;
}

TEST(BlockUse, NotApplicableWithoutBlocks) {
  auto be = backend::make_cpu_backend<float>(1);
  model::Model<float> base(tiny(1), 8, *be, 1);
  const auto r = eval::block_use(base, tokens(2, 16), 2, 16, {2, 8, 16});
  EXPECT_FALSE(r.applicable);
  EXPECT_NE(r.reason.find("E = 1"), std::string::npos);
  model::Model<float> attn(tiny(1, config::MixerType::attention), 8, *be, 1);
  EXPECT_FALSE(eval::block_use(attn, tokens(2, 16), 2, 16, {2}).applicable);
}

TEST(BlockUse, BeforeTheSecondBlockUnlocksAllEnergyIsInBlockZero) {
  auto be = backend::make_cpu_backend<float>(1);
  // E = 4 over N = 16: blocks unlock at t = 1, 5, 9, 13 (uniform); past 16 all are open.
  model::Model<float> m(tiny(4), 16, *be, 3);
  const int B = 3, T = 32;
  const auto r = eval::block_use(m, tokens(B, T), B, T, {3, 10, 32});
  ASSERT_TRUE(r.applicable);
  EXPECT_EQ(r.open_blocks, (std::vector<int>{1, 3, 4}));
  for (int l = 0; l < r.layers; ++l)
    for (int h = 0; h < r.heads; ++h) {
      // t = 3: one open block holds everything; the locked ones hold exactly nothing.
      EXPECT_EQ(r.entropy_at(l, h, 0).mean, 0.0);
      EXPECT_EQ(r.entropy_open[(static_cast<size_t>(l) * r.heads + h) * 3 + 0].mean, 1.0);
      EXPECT_NEAR(r.share_at(l, h, 0, 0), 1.0, 1e-12);
      for (int b = 1; b < 4; ++b) EXPECT_EQ(r.share_at(l, h, 0, b), 0.0);
      // t = 10: block 3 is still locked and empty; t = 32: energy is spread, entropy in (0, 1].
      EXPECT_EQ(r.share_at(l, h, 1, 3), 0.0);
      for (int p = 0; p < 3; ++p) {
        double s = 0;
        for (int b = 0; b < 4; ++b) s += r.share_at(l, h, p, b);
        EXPECT_NEAR(s, 1.0, 1e-9);
      }
      EXPECT_GT(r.entropy_at(l, h, 2).mean, 0.0);
      EXPECT_LE(r.entropy_at(l, h, 2).hi, 1.0 + 1e-12);
    }
  ASSERT_EQ(r.mean_entropy.size(), 3u);
  EXPECT_EQ(r.mean_entropy[0].mean, 0.0);
  EXPECT_GT(r.mean_entropy[2].mean, r.mean_entropy[0].mean);
  EXPECT_THROW(eval::block_use(m, tokens(B, T), B, T, {33}), std::invalid_argument);
}

}  // namespace
