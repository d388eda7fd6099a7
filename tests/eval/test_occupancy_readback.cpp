// Block occupancy reads back only the norms, never the state tape: the backend computes the
// norms where the tape lives (memory_block_norms), and the host receives (layers, B, H, T,
// blocks) values. A counting backend (the CPU with download() counted) shows what crosses.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/backend/cpu/cpu_backend.hpp"
#include "core/eval/occupancy.hpp"

namespace {

using namespace proteus;

class CountingBackend : public backend::CpuBackend<float> {
 public:
  CountingBackend() : backend::CpuBackend<float>(1) {}
  void download(float* host, const float* src, size_t n) override {
    downloaded += n;
    backend::CpuBackend<float>::download(host, src, n);
  }
  size_t downloaded = 0;
};

TEST(OccupancyReadback, OnlyTheNormsCrossToTheHost) {
  config::ModelConfig cfg;
  cfg.vocab = 17;
  cfg.d_model = 16;
  cfg.layers = 2;
  cfg.mixer.type = config::MixerType::memory;
  cfg.mixer.rule = memory::Rule::delta;
  cfg.mixer.heads = 2;
  cfg.mixer.d_head = 8;
  cfg.mixer.E = 4;
  const int B = 2, T = 24, blocks = 4;
  CountingBackend be;
  model::Model<float> m(cfg, T, be, 3);
  std::vector<int32_t> tokens(B * T);
  for (int i = 0; i < B * T; ++i) tokens[i] = (i * 5 + 1) % cfg.vocab;
  be.downloaded = 0;
  const auto r = eval::block_occupancy(m, tokens, B, T, blocks);
  const size_t norms = static_cast<size_t>(cfg.layers) * B * cfg.mixer.heads * T * blocks;
  const size_t tape = static_cast<size_t>(cfg.layers) * B * cfg.mixer.heads * (T + 1) * cfg.mixer.d_head *
                      cfg.mixer.d_head;
  EXPECT_EQ(be.downloaded, norms);
  EXPECT_LT(be.downloaded * 10, tape);
  // And the norms are real: later blocks fill as positions unlock them.
  ASSERT_EQ(r.norms.size(), static_cast<size_t>(cfg.layers) * cfg.mixer.heads * T * blocks);
  EXPECT_EQ(r.at(0, 0, 0, blocks - 1), 0.0f);
  EXPECT_GT(r.at(0, 0, T - 1, blocks - 1), 0.0f);
}

}  // namespace
