// The output gate's W_g in a checkpoint: saved under its table name with its (H d_head, d_model)
// shape, and loaded back into a fresh model bit for bit.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <vector>

#include "core/backend/cpu/cpu_backend.hpp"
#include "core/runs/safetensors.hpp"
#include "core/train/checkpoint.hpp"

namespace {

using namespace proteus;
namespace fs = std::filesystem;

TEST(OutputGateCheckpoint, WgRoundTripsBitForBit) {
  config::ModelConfig cfg;
  cfg.vocab = 17, cfg.d_model = 16, cfg.layers = 1, cfg.d_hidden = 24;
  cfg.mixer.heads = 2, cfg.mixer.d_head = 4, cfg.mixer.output_gate = config::OutputGate::sigmoid;
  auto be = backend::make_cpu_backend<float>(1);
  model::Model<float> saved(cfg, 8, *be, 3);
  const fs::path path = fs::temp_directory_path() / ("proteus-gate-" + std::to_string(::getpid()) + ".safetensors");
  train::save_checkpoint(path.string(), saved, nullptr, train::CheckpointState{});

  const auto file = runs::read_safetensors(path);
  const auto& wg = file.at("layers.0.mixer.g_proj.weight");
  EXPECT_EQ(wg.shape, (std::vector<int64_t>{8, 16}));

  model::Model<float> loaded(cfg, 8, *be, 4);  // another seed: other weights until loaded
  train::load_checkpoint(path.string(), loaded, nullptr);
  fs::remove(path);
  std::vector<float> a(saved.num_params()), b(loaded.num_params());
  be->download(a.data(), saved.params(), a.size());
  be->download(b.data(), loaded.params(), b.size());
  EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(float)));
  const auto* entry = saved.table().find("layers.0.mixer.g_proj.weight");
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->size, 8u * 16u);
}

}  // namespace
