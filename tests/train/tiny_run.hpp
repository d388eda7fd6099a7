// A run small enough for a unit test: a one-layer delta-rule model on the repository's corpus,
// a few steps of 2 x 16 bytes, evaluations every 3 steps; a checkpoint only at the end and on a
// cancel (a test that needs one at every step asks for it).
#pragma once
#include <filesystem>
#include <string>

#include "core/config/config.hpp"
#include "tests/support/temp_dir.hpp"

namespace proteus::test_support {

inline config::RunConfig tiny_run(const std::filesystem::path& runs_dir) {
  config::RunConfig c;
  c.name = "tiny";
  c.seed = 3;
  c.threads = 2;
  c.runs_dir = runs_dir.string();
  c.model.d_model = 16;
  c.model.layers = 1;
  c.model.mixer.heads = 2;
  c.model.mixer.d_head = 4;
  c.model.mixer.E = 4;
  c.data.seq_len = 16;
  c.data.batch = 2;
  c.data.text.path = std::string(PROTEUS_SOURCE_DIR) + "/assets/corpus/brown";
  c.train.steps = 6;
  c.train.warmup = 2;
  c.train.log_every = 1;
  c.train.eval_every = 3;
  c.train.val_batches = 1;
  c.train.checkpoint_every = 1000;
  c.eval.per_position.seq_len = 24;
  c.eval.per_position.sequences = 2;
  c.eval.niah.enabled = false;
  c.eval.occupancy.blocks = 4;
  return c;
}

}  // namespace proteus::test_support
