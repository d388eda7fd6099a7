// Figures with every part drawn, for the painters' tests (the file painter and the window's).
#pragma once
#include <cmath>
#include <limits>

#include "core/figures/run_figures.hpp"

namespace proteus::test_support {

// Two runs on a log x axis: a solid line with a NaN gap, a dashed line with markers; with
// bands = true each carries an interval of +-0.3 around it.
inline figures::Figure sample_lines(bool bands = false) {
  figures::Figure f;
  f.title = "Perplexity by position";
  f.notes = {"mean over 8 held-out sequences"};
  f.x.label = "position";
  f.x.scale = figures::Scale::log;
  f.y.label = "perplexity";
  for (int r = 0; r < 2; ++r) {
    figures::Series s;
    s.name = r ? "proteus" : "baseline";
    s.color = figures::palette(r);
    s.dashed = r == 1;
    s.markers = r == 1;
    for (int t = 1; t <= 512; t *= 2) {
      const double y = 10.0 / std::sqrt(t) + r;
      s.x.push_back(t);
      s.y.push_back(t == 8 && r == 0 ? std::numeric_limits<double>::quiet_NaN() : y);
      if (bands) {
        s.lo.push_back(y - 0.3);
        s.hi.push_back(y + 0.3);
      }
    }
    f.series.push_back(s);
  }
  return f;
}

// An annotated NIAH heatmap: 5 depths x 3 lengths, the middle cell without a value.
inline figures::Figure sample_grid() {
  eval::NiahTaskGrid g;
  g.task = "s-niah-1";
  g.lengths = {128, 256, 512};
  g.depths = {0, 25, 50, 75, 100};
  for (int i = 0; i < 15; ++i) g.score.push_back(i == 7 ? std::numeric_limits<double>::quiet_NaN() : i * 7.0);
  return figures::niah_heatmap_figure(g, "proteus");
}

// One layer and head, 4 blocks over seq_len positions, block b filling from position b seq_len / 4.
inline eval::OccupancyResult sample_occupancy(int seq_len) {
  eval::OccupancyResult o;
  o.layers = o.heads = 1;
  o.seq_len = seq_len;
  o.blocks = 4;
  for (int t = 0; t < seq_len; ++t)
    for (int b = 0; b < 4; ++b) o.norms.push_back(static_cast<float>(b <= t * 4 / seq_len ? 1.0 + t * 0.01 : 0.0));
  return o;
}

}  // namespace proteus::test_support
