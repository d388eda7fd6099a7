#include "core/eval/occupancy.hpp"

namespace proteus::eval {

template <class T>
OccupancyResult block_occupancy(model::Model<T>& model, const std::vector<int32_t>& tokens, int B, int seq_len,
                                int blocks) {
  OccupancyResult r;
  if (model.config().mixer.type != config::MixerType::memory) return r;
  model.forward(tokens.data(), nullptr, nullptr, B, seq_len);
  const auto raw = model.block_occupancy(blocks);  // (layers, B, H, T, blocks)
  r.layers = model.config().layers;
  r.heads = model.config().mixer.heads;
  r.seq_len = seq_len;
  r.blocks = blocks;
  r.norms.assign(static_cast<size_t>(r.layers) * r.heads * seq_len * blocks, 0.0f);
  const size_t per_head = static_cast<size_t>(seq_len) * blocks;
  for (int l = 0; l < r.layers; ++l)
    for (int b = 0; b < B; ++b)
      for (int h = 0; h < r.heads; ++h) {
        const float* src = raw.data() + ((static_cast<size_t>(l) * B + b) * r.heads + h) * per_head;
        float* dst = r.norms.data() + (static_cast<size_t>(l) * r.heads + h) * per_head;
        for (size_t i = 0; i < per_head; ++i) dst[i] += src[i] / B;
      }
  return r;
}

template OccupancyResult block_occupancy<float>(model::Model<float>&, const std::vector<int32_t>&, int, int, int);
template OccupancyResult block_occupancy<double>(model::Model<double>&, const std::vector<int32_t>&, int, int, int);

}  // namespace proteus::eval
