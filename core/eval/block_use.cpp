#include "core/eval/block_use.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/config/mixer_schedule.hpp"
#include "core/memory/schedule.hpp"

namespace proteus::eval {

std::vector<int> block_use_positions(int horizon) {
  const int N = std::max(1, horizon);
  std::vector<int> p = {std::max(1, N / 4), std::max(1, N / 2), N, 2 * N};
  std::sort(p.begin(), p.end());
  p.erase(std::unique(p.begin(), p.end()), p.end());
  return p;
}

double normalised_entropy(const double* w, int n) {
  double total = 0;
  for (int i = 0; i < n; ++i) total += w[i];
  if (!(total > 0)) return std::nan("");
  if (n == 1) return 1.0;
  double h = 0;
  for (int i = 0; i < n; ++i)
    if (w[i] > 0) {
      const double p = w[i] / total;
      h -= p * std::log(p);
    }
  return h / std::log(static_cast<double>(n));
}

template <class T>
BlockUseResult block_use(model::Model<T>& model, const std::vector<int32_t>& tokens, int B, int seq_len,
                         const std::vector<int>& positions) {
  BlockUseResult r;
  const auto& cfg = model.config();
  if (cfg.mixer.type != config::MixerType::memory) {
    r.reason = "an attention model has no memory state";
    return r;
  }
  if (cfg.mixer.E == 1) {
    r.reason = "E = 1: the whole state is one block";
    return r;
  }
  if (positions.empty()) throw std::invalid_argument("block_use: no positions");
  for (int p : positions)
    if (p < 1 || p > seq_len) throw std::invalid_argument("block_use: position " + std::to_string(p) + " is outside the sequences");
  if (tokens.size() != static_cast<size_t>(B) * seq_len) throw std::invalid_argument("block_use: tokens are not (B, seq_len)");

  const int E = cfg.mixer.E, H = cfg.mixer.heads, Lyr = cfg.layers, P = static_cast<int>(positions.size());
  const auto schedule = config::schedule_from_config(cfg.mixer, model.horizon());
  model.forward(tokens.data(), nullptr, nullptr, B, seq_len);
  const auto norms = model.block_occupancy(E);  // (layers, B, H, T, E): ||block||

  r.applicable = true;
  r.layers = Lyr, r.heads = H, r.blocks = E, r.sequences = B;
  r.positions = positions;
  for (int p : positions) r.open_blocks.push_back(static_cast<int>(schedule.active_blocks(p)));
  r.share.assign(static_cast<size_t>(Lyr) * H * P * E, 0.0);
  r.entropy.resize(static_cast<size_t>(Lyr) * H * P);
  r.entropy_open.resize(r.entropy.size());
  std::vector<std::vector<double>> per_sequence_mean(P, std::vector<double>(B, 0.0));  // over layers and heads
  std::vector<double> sq(E), all(B), open(B);
  for (int l = 0; l < Lyr; ++l)
    for (int h = 0; h < H; ++h)
      for (int pi = 0; pi < P; ++pi) {
        const int t = positions[pi] - 1, k = r.open_blocks[pi];
        for (int b = 0; b < B; ++b) {
          const float* n = norms.data() + ((((static_cast<size_t>(l) * B + b) * H + h) * seq_len + t) * E);
          double total = 0;
          for (int e = 0; e < E; ++e) total += (sq[e] = double(n[e]) * n[e]);
          for (int e = 0; e < E; ++e)
            r.share[((static_cast<size_t>(l) * H + h) * P + pi) * E + e] += total > 0 ? sq[e] / total / B : 0.0;
          all[b] = normalised_entropy(sq.data(), E);
          open[b] = normalised_entropy(sq.data(), k);
          per_sequence_mean[pi][b] += all[b] / (Lyr * H);
        }
        const size_t at = (static_cast<size_t>(l) * H + h) * P + pi;
        r.entropy[at] = bootstrap_mean(all);
        r.entropy_open[at] = bootstrap_mean(open);
      }
  for (int pi = 0; pi < P; ++pi) r.mean_entropy.push_back(bootstrap_mean(per_sequence_mean[pi]));
  return r;
}

template BlockUseResult block_use<float>(model::Model<float>&, const std::vector<int32_t>&, int, int, const std::vector<int>&);
template BlockUseResult block_use<double>(model::Model<double>&, const std::vector<int32_t>&, int, int,
                                          const std::vector<int>&);

}  // namespace proteus::eval
