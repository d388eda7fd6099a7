#include "core/figures/state_opening_figure.hpp"

#include <algorithm>

#include "core/common/input_error.hpp"

namespace proteus::figures {
namespace {

// Index of element (h, i, j) in the flattening the axis names, and the length of that flattening.
int64_t flat_index(memory::BlockAxis axis, int64_t d_k, int64_t d_v, int64_t h, int64_t i, int64_t j) {
  switch (axis) {
    case memory::BlockAxis::key_rows: return i * d_v + j;    // per head, S row-major
    case memory::BlockAxis::value_rows: return j * d_k + i;  // per head, M = S^T row-major
    case memory::BlockAxis::layer: return h * d_k * d_v + i * d_v + j;  // the layer's heads in order
  }
  return 0;
}

int64_t flat_length(memory::BlockAxis axis, int64_t H, int64_t d_k, int64_t d_v) {
  return axis == memory::BlockAxis::layer ? H * d_k * d_v : d_k * d_v;
}

void check_shape(int64_t H, int64_t d_k, int64_t d_v) {
  for (auto [v, name] : {std::pair{H, "H"}, std::pair{d_k, "d_k"}, std::pair{d_v, "d_v"}})
    if (v < 1) throw InputError(name, "must be >= 1, got " + std::to_string(v));
}

}  // namespace

int64_t element_opens_at(const memory::Schedule& schedule, memory::BlockAxis axis, int64_t H, int64_t d_k,
                         int64_t d_v, int64_t h, int64_t i, int64_t j) {
  check_shape(H, d_k, d_v);
  const int64_t n = flat_length(axis, H, d_k, d_v), E = schedule.E();
  if (E > n) throw InputError("E", std::to_string(E) + " blocks for a state of " + std::to_string(n) + " elements");
  // Blocks of floor(n / E) elements, the last absorbing the remainder (math.md section 2).
  const int64_t block = std::min(flat_index(axis, d_k, d_v, h, i, j) / (n / E), E - 1);
  return schedule.unlock()[static_cast<size_t>(block)];
}

Figure state_opening_figure(const memory::Schedule& schedule, memory::BlockAxis axis, int64_t H, int64_t d_k,
                            int64_t d_v, const std::string& run) {
  check_shape(H, d_k, d_v);
  Figure f;
  f.title = "Which elements open, block axis " + std::string(memory::block_axis_name(axis)) +
            (run.empty() ? "" : ": " + run);
  f.x.label = H > 1 ? "value dimension (heads side by side)" : "value dimension";
  f.y.label = "key row";
  f.legend = false;
  Heatmap m;
  m.rows = static_cast<int>(d_k);
  m.cols = static_cast<int>(H * d_v);
  m.values.resize(static_cast<size_t>(m.rows) * m.cols);
  for (int64_t h = 0; h < H; ++h)
    for (int64_t i = 0; i < d_k; ++i)
      for (int64_t j = 0; j < d_v; ++j)
        m.values[static_cast<size_t>(i) * m.cols + h * d_v + j] =
            static_cast<double>(element_opens_at(schedule, axis, H, d_k, d_v, h, i, j));
  for (int64_t c = 0; c <= m.cols; ++c) m.x_edges.push_back(static_cast<double>(c));
  for (int64_t r = 0; r <= m.rows; ++r) m.y_edges.push_back(static_cast<double>(r));
  m.vmin = 0;
  m.vmax = static_cast<double>(std::max<int64_t>(schedule.N(), 2));  // linear: the paper's uniform schedule reads evenly
  m.colormap = "viridis";
  m.colorbar_label = "opens at position";
  f.heatmap = std::move(m);
  for (int64_t h = 1; h < H; ++h) {  // head boundaries
    Series s;
    s.x = {double(h * d_v), double(h * d_v)};
    s.y = {0.0, double(d_k)};
    s.color = {1.0f, 1.0f, 1.0f};
    s.width = 1.5f;
    f.series.push_back(std::move(s));
  }
  const int64_t n = flat_length(axis, H, d_k, d_v);
  f.notes.push_back("E = " + std::to_string(schedule.E()) + ", N = " + std::to_string(schedule.N()) + ", " +
                    std::to_string(H) + (H == 1 ? " head of " : " heads of ") + std::to_string(d_k) + " x " +
                    std::to_string(d_v) + "; a block is " + std::to_string(n / schedule.E()) + " elements" +
                    (axis == memory::BlockAxis::layer ? " of the layer" : " of each head"));
  return f;
}

}  // namespace proteus::figures
