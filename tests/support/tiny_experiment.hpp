// The CLI tests' tiny experiment: 2 variants (baseline E = 1, proteus E = 2) x seeds 1, 2 of a
// one-layer model over a text file of the test's own, trained and evaluated in about a second.
#pragma once
#include <string>

#include "tests/support/temp_dir.hpp"

namespace proteus::test_support {

// Writes text.txt and tiny.json into tmp; tiny.json's path.
inline std::string write_tiny_experiment(const TempDir& tmp) {
  std::string text;
  for (int i = 0; i < 400; ++i) text += "the quick brown fox jumps over the lazy dog " + std::to_string(i) + "\n";
  tmp.write("text.txt", text);
  return tmp.write("tiny.json", R"({
    "name": "tiny", "threads": 1,
    "model": {"d_model": 16, "layers": 1, "mixer": {"heads": 1, "d_head": 4, "E": 2}},
    "data": {"seq_len": 16, "batch": 2, "text": {"path": "text.txt"}},
    "train": {"steps": 4, "warmup": 1, "eval_every": 2, "log_every": 1, "val_batches": 1},
    "eval": {"per_position": {"seq_len": 20, "sequences": 2}, "niah": {"enabled": false}, "occupancy": {"blocks": 2}},
    "variants": [{"name": "baseline", "set": {"model.mixer.E": 1}}, {"name": "proteus"}],
    "seeds": [1, 2]
  })");
}

}  // namespace proteus::test_support
