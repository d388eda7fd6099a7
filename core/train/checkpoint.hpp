// A training checkpoint as one safetensors file (so PyTorch reads the weights directly): every
// parameter under its table name, the optimiser's moments, and in the metadata the step, the
// data sampler's RNG state and the wall time so far (and an MLP chain's summed gradients), so a
// resumed run continues bit for bit.
// Written atomically: a crash mid-write leaves the previous checkpoint intact.
#pragma once
#include <random>
#include <string>

#include "core/model/model.hpp"
#include "core/train/gated_adamw.hpp"

namespace proteus::train {

inline constexpr const char* kCheckpointFile = "checkpoint.safetensors";
// With slow MLP chain blocks (model.mlp.chain): their gradients summed since their period began,
// and where each block is in its period ("0,2,10", step % every), so a resume mid-period goes on
// bit for bit.
inline constexpr const char* kChainGradSums = "optimizer.mlp_chain_grad_sums";
inline constexpr const char* kChainPhase = "mlp_chain_phase";

struct CheckpointState {
  int step = 0;
  double wall_s = 0;
  std::mt19937_64 rng;
};

void save_checkpoint(const std::string& path, const model::Model<float>& model, const GatedAdamW<float>* opt,
                     const CheckpointState& state);
// The step a checkpoint was saved at (its metadata), without loading the tensors' values.
// Throws InputError naming the file when it is not a checkpoint of this program.
int checkpoint_step(const std::string& path);

// Loads into an already-built model (and optimiser, when given); throws InputError naming the
// file and the tensor or metadata entry when it does not match the model.
CheckpointState load_checkpoint(const std::string& path, model::Model<float>& model, GatedAdamW<float>* opt);

}  // namespace proteus::train
