// Parameters as one allocation seen through named views (llm.c's layout): the optimiser,
// gradient clipping, checkpoints and checksums each become one loop over a flat vector, and
// the table's names and shapes are what a safetensors file stores.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace proteus::model {

enum class Init {
  normal,         // N(0, std)
  zeros,
  ones,           // norm gains
  uniform,        // U(-std, std)
  log_uniform_a,  // A_log = log(U(1, 16)) (fla's decay rates)
  dt_bias,        // softplus^-1 of dt ~ logU(1e-3, 1e-1) (Mamba's time steps)
};

// Whether AdamW's weight decay applies: to matrices, not to gains and biases.
enum class Decay { applied, none };

struct ParamEntry {
  std::string name;            // "layers.0.mixer.q_proj.weight"
  std::vector<int64_t> shape;  // (out, in) for matrices
  size_t offset = 0;           // into the flat vector
  size_t size = 0;
  Init init = Init::normal;
  double std = 0.02;
  bool decay = true;           // weight decay applies (matrices), not to gains and biases
};

// A contiguous range of the flat parameter vector.
struct ParamRange {
  size_t offset = 0;
  size_t size = 0;
};

class ParamTable {
 public:
  // Returns the entry's offset; offsets are packed in the order of registration.
  size_t add(std::string name, std::vector<int64_t> shape, Init init, double std, Decay decay);
  const std::vector<ParamEntry>& entries() const { return entries_; }
  const ParamEntry* find(const std::string& name) const;
  size_t total() const { return total_; }

 private:
  std::vector<ParamEntry> entries_;
  size_t total_ = 0;
};

}  // namespace proteus::model
