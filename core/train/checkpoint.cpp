#include "core/train/checkpoint.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>

#include "core/common/input_error.hpp"
#include "core/runs/safetensors.hpp"

namespace proteus::train {
namespace {

// A metadata entry, or an InputError naming the file and the entry.
const std::string& metadata(const runs::SafetensorsFile& file, const std::string& path, const std::string& key) {
  const auto it = file.metadata.find(key);
  if (it == file.metadata.end()) throw InputError(path, "metadata '" + key + "' is missing (not a checkpoint of this program)");
  return it->second;
}

// A whole decimal number in [0, 2^31), or an InputError: std::stoi would take "12abc" or throw "stoi".
int read_step(const std::string& text, const std::string& path) {
  int step = 0;
  const bool digits = !text.empty() && text.size() <= 10 &&
                      std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (digits) {
    const long long v = std::stoll(text);
    if (v <= std::numeric_limits<int>::max()) step = static_cast<int>(v);
    else step = -1;
  }
  if (!digits || step < 0) throw InputError(path, "metadata 'step' is not a step number");
  return step;
}

}  // namespace

int checkpoint_step(const std::string& path) {
  const auto file = runs::read_safetensors(path);
  return read_step(metadata(file, path, "step"), path);
}

void save_checkpoint(const std::string& path, const model::Model<float>& model, const GatedAdamW<float>* opt,
                     const CheckpointState& state) {
  auto& be = model.backend();
  std::vector<float> params(model.num_params());
  be.download(params.data(), model.params(), params.size());
  std::vector<runs::Tensor> tensors;
  for (const auto& e : model.table().entries())
    tensors.push_back(runs::Tensor::from_f32(e.name, e.shape, std::span<const float>(params.data() + e.offset, e.size)));
  if (opt) {
    std::vector<float> m(opt->size()), v(opt->size());
    be.download(m.data(), opt->m(), m.size());
    be.download(v.data(), opt->v(), v.size());
    const int64_t n = static_cast<int64_t>(m.size());
    tensors.push_back(runs::Tensor::from_f32("optimizer.exp_avg", {n}, m));
    tensors.push_back(runs::Tensor::from_f32("optimizer.exp_avg_sq", {n}, v));
    if (opt->grad_sums_size() > 0) {  // the slow MLP chain blocks' gradients summed mid-period
      std::vector<float> sums(opt->grad_sums_size());
      be.download(sums.data(), opt->grad_sums(), sums.size());
      tensors.push_back(runs::Tensor::from_f32(kChainGradSums, {static_cast<int64_t>(sums.size())}, sums));
    }
  }
  std::ostringstream rng;
  rng << state.rng;
  std::ostringstream wall;
  wall.precision(17);
  wall << state.wall_s;
  std::map<std::string, std::string> meta = {{"format", "proteus-checkpoint-1"},
                                              {"step", std::to_string(state.step)},
                                              {"wall_s", wall.str()},
                                              {"data_rng", rng.str()}};
  if (opt && opt->grad_sums_size() > 0) meta[kChainPhase] = opt->chain_phase(state.step);
  write_safetensors(path, tensors, meta);
}

CheckpointState load_checkpoint(const std::string& path, model::Model<float>& model, GatedAdamW<float>* opt) {
  const auto file = runs::read_safetensors(path);
  auto fail = [&](const std::string& what) { return InputError(path, what); };
  auto& be = model.backend();
  std::vector<float> params(model.num_params());
  for (const auto& e : model.table().entries()) {
    const auto* t = file.find(e.name);
    if (!t) throw fail("tensor '" + e.name + "' is missing (the checkpoint is of another model)");
    if (t->shape != e.shape) throw fail("tensor '" + e.name + "' has another shape than the model's");
    const auto values = t->to_f32();
    std::copy(values.begin(), values.end(), params.begin() + e.offset);
  }
  be.upload(model.params(), params.data(), params.size());
  if (opt) {
    for (auto [name, dst] : {std::pair{"optimizer.exp_avg", opt->m()}, std::pair{"optimizer.exp_avg_sq", opt->v()}}) {
      const auto* t = file.find(name);
      if (!t) throw fail(std::string("tensor '") + name + "' is missing (weights only: cannot resume training)");
      const auto values = t->to_f32();
      if (values.size() != opt->size()) throw fail(std::string("tensor '") + name + "' has the wrong size");
      be.upload(dst, values.data(), values.size());
    }
  }
  CheckpointState state;
  auto meta = [&](const std::string& key) { return metadata(file, path, key); };
  state.step = read_step(meta("step"), path);
  if (opt && opt->grad_sums_size() > 0) {
    // A run with slow MLP chain blocks resumes mid-period only with the gradients summed so far.
    const auto* t = file.find(kChainGradSums);
    if (!t) throw fail(std::string("tensor '") + kChainGradSums + "' is missing (the MLP chain's summed gradients: cannot resume training)");
    const auto values = t->to_f32();
    if (values.size() != opt->grad_sums_size()) throw fail(std::string("tensor '") + kChainGradSums + "' has the wrong size");
    const std::string phase = meta(kChainPhase);
    if (phase != opt->chain_phase(state.step))
      throw fail(std::string("metadata '") + kChainPhase + "' is " + phase + ", but step " + std::to_string(state.step) +
                 " of model.mlp.chain is at " + opt->chain_phase(state.step));
    be.upload(opt->grad_sums(), values.data(), values.size());
  }
  std::istringstream wall(meta("wall_s"));
  wall >> state.wall_s;
  if (!wall || !std::isfinite(state.wall_s)) throw fail("metadata 'wall_s' is not a number of seconds");
  std::istringstream rng(meta("data_rng"));
  rng >> state.rng;
  if (!rng) throw fail("metadata 'data_rng' is not a generator state");
  return state;
}

}  // namespace proteus::train
