// Builders from run results to Figures: one figure each, any number of runs overlaid.
#include "core/figures/run_figures.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>

#include "core/common/input_error.hpp"
#include "core/runs/metrics_record.hpp"

namespace proteus::figures {
namespace {

constexpr Rgb kGuide{0.45f, 0.45f, 0.45f};  // reference lines (training length, ratio 1)

std::string fmt(double v) { return tick_label(v); }

// A dashed grey vertical line spanning the data's y extent.
Series vertical_guide(double x, double ylo, double yhi) {
  Series s;
  s.x = {x, x};
  s.y = {ylo, yhi};
  s.color = kGuide;
  s.width = 1.0f;
  s.dashed = true;
  return s;
}

std::pair<double, double> y_extent(const std::vector<Series>& series) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const auto& s : series)
    for (double v : s.y)
      if (std::isfinite(v)) {
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
  return {lo, hi};
}

// Mean of nll over the 1-based positions [lo, hi] that exist; NaN when none.
double mean_nll(const std::vector<double>& nll, int lo, int hi) {
  double sum = 0;
  int n = 0;
  for (int t = std::max(lo, 1); t <= std::min<int>(hi, static_cast<int>(nll.size())); ++t) {
    sum += nll[t - 1];
    ++n;
  }
  return n ? sum / n : std::numeric_limits<double>::quiet_NaN();
}

// Bucket bounds of a result, or log-spaced ones when it stored none.
std::vector<std::pair<int, int>> buckets_of(const eval::PerPositionResult& r) {
  std::vector<std::pair<int, int>> b;
  for (size_t i = 0; i < std::min(r.bucket_lo.size(), r.bucket_hi.size()); ++i) b.emplace_back(r.bucket_lo[i], r.bucket_hi[i]);
  if (b.empty() && r.seq_len > 0) b = eval::log_buckets(static_cast<int>(r.nll.size()), 24);
  return b;
}

void add_train_len_guide(Figure& f, int train_len) {
  if (train_len <= 0 || f.series.empty()) return;
  const auto [lo, hi] = y_extent(f.series);
  if (!(lo <= hi)) return;
  f.series.push_back(vertical_guide(train_len, lo, hi));
  f.notes.push_back("dashed line: training length " + std::to_string(train_len));
}

// One series per run over steps, run i in palette(i).
Figure curves_figure(const std::vector<LossCurve>& runs, std::vector<double> LossCurve::*x,
                     std::vector<double> LossCurve::*y) {
  Figure f;
  f.x.label = "step";
  for (size_t i = 0; i < runs.size(); ++i) {
    Series s;
    s.name = runs[i].name;
    s.x = runs[i].*x;
    s.y = runs[i].*y;
    s.color = palette(static_cast<int>(i));
    f.series.push_back(std::move(s));
  }
  return f;
}

}  // namespace

LossCurve loss_curve(const std::string& name, const std::vector<nlohmann::json>& metrics) {
  LossCurve c;
  c.name = name;
  for (const auto& line : metrics) {
    const auto m = runs::metrics_record_from_json(line);  // metrics.jsonl's one reader
    if (!m) continue;
    const auto step = static_cast<double>(m->step);
    if (!std::isnan(m->loss)) {
      c.step.push_back(step);
      c.loss.push_back(m->loss);
    }
    if (!std::isnan(m->val_bpb)) {
      c.val_step.push_back(step);
      c.val_bpb.push_back(m->val_bpb);
    }
  }
  return c;
}

Figure loss_figure(const std::vector<LossCurve>& runs) {
  Figure f = curves_figure(runs, &LossCurve::step, &LossCurve::loss);
  f.title = "Training loss";
  f.y.label = "loss (nats / token)";
  for (auto& s : f.series) s.width = 1.2f;
  return f;
}

Figure val_bpb_figure(const std::vector<LossCurve>& runs) {
  Figure f = curves_figure(runs, &LossCurve::val_step, &LossCurve::val_bpb);
  f.title = "Held-out bits per byte";
  f.y.label = "validation bits per byte";
  bool bands = false;
  for (size_t i = 0; i < f.series.size(); ++i) {
    auto& s = f.series[i];
    s.dashed = s.markers = true;
    if (runs[i].val_lo.size() == s.x.size() && runs[i].val_hi.size() == s.x.size()) {
      s.lo = runs[i].val_lo;
      s.hi = runs[i].val_hi;
      bands = true;
    }
  }
  if (bands) f.notes.push_back("seed groups: mean over seeds, 95% t interval");
  return f;
}

namespace {

// A BPE run's positions are tokens of several bytes: the axis says so, and a note gives each such
// run's bytes per token (byte runs keep the plain "position").
void state_token_unit(Figure& f, const std::vector<Named<eval::PerPositionResult>>& runs) {
  std::string note;
  for (const auto& r : runs)
    if (r.value.bytes_per_token != 1) {
      char n[32];
      std::snprintf(n, sizeof n, "%.2f", r.value.bytes_per_token);
      note += (note.empty() ? "" : ", ") + r.name + " " + n;
    }
  if (note.empty()) return;
  f.x.label = "position (tokens)";
  f.notes.push_back("bytes per token: " + note);
}

}  // namespace

Figure per_position_figure(const std::vector<Named<eval::PerPositionResult>>& runs, int train_len, bool buckets) {
  Figure f;
  f.title = "Perplexity by position";
  f.x.label = "position";
  f.x.scale = Scale::log;
  f.y.label = "perplexity";
  int sequences = 0;
  bool any_band = false;
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto& r = runs[i].value;
    Series s;
    s.name = runs[i].name;
    s.color = palette(static_cast<int>(i));
    if (buckets) {
      const auto bounds = buckets_of(r);
      const bool stored = r.bucket_nll.size() == bounds.size();
      const bool band = stored && r.bucket_interval.size() == bounds.size();
      for (size_t k = 0; k < bounds.size(); ++k) {
        const auto [lo, hi] = bounds[k];
        // The stored bucket mean when present: it is what per_position_buckets.csv reports.
        const double v = stored ? r.bucket_nll[k] : mean_nll(r.nll, lo, hi);
        if (!std::isfinite(v)) continue;
        s.x.push_back(std::sqrt(static_cast<double>(lo) * hi));
        s.y.push_back(std::exp(v));
        if (band) {
          // exp is monotone: the interval of the mean NLL maps to one of the perplexity.
          s.lo.push_back(std::exp(r.bucket_interval[k].lo));
          s.hi.push_back(std::exp(r.bucket_interval[k].hi));
        }
      }
      any_band |= band;
      s.markers = true;
    } else {
      for (size_t t = 0; t < r.nll.size(); ++t) {
        s.x.push_back(static_cast<double>(t + 1));
        s.y.push_back(std::exp(r.nll[t]));
      }
      s.width = 1.0f;
    }
    sequences = std::max(sequences, r.sequences);
    f.series.push_back(std::move(s));
  }
  if (sequences > 0)
    f.notes.push_back("mean over " + std::to_string(sequences) + " held-out sequences" +
                      (buckets ? ", log-spaced position buckets" : "") +
                      (any_band ? "; bands: 95% intervals (bootstrap over sequences, t over a group's seeds)" : ""));
  state_token_unit(f, runs);
  add_train_len_guide(f, train_len);
  return f;
}

Figure perplexity_ratio_figure(const std::vector<Named<eval::PerPositionResult>>& runs, int train_len,
                               const std::vector<std::vector<eval::Interval>>& nll_difference) {
  Figure f;
  f.title = "Perplexity ratio by position";
  f.x.label = "position";
  f.x.scale = Scale::log;
  f.y.label = runs.empty() ? "perplexity ratio" : "perplexity / perplexity of " + runs[0].name;
  if (runs.size() < 2) return f;
  bool any_band = false;
  const auto& base = runs[0].value;
  const auto bounds = buckets_of(base);
  for (size_t i = 1; i < runs.size(); ++i) {
    Series s;
    s.name = runs[i].name;
    s.color = palette(static_cast<int>(i));
    s.markers = true;
    const int covered = static_cast<int>(std::min(base.nll.size(), runs[i].value.nll.size()));
    const bool band = i < nll_difference.size() && nll_difference[i].size() == bounds.size();
    for (size_t k = 0; k < bounds.size(); ++k) {
      const auto [lo, hi] = bounds[k];
      if (lo > covered) break;
      const int h = std::min(hi, covered);
      const double a = mean_nll(runs[i].value.nll, lo, h), b = mean_nll(base.nll, lo, h);
      if (!std::isfinite(a) || !std::isfinite(b)) continue;
      s.x.push_back(std::sqrt(static_cast<double>(lo) * h));
      s.y.push_back(std::exp(a - b));  // ratio of perplexities = exp of the NLL difference
      if (band) {
        s.lo.push_back(std::exp(nll_difference[i][k].lo));
        s.hi.push_back(std::exp(nll_difference[i][k].hi));
      }
    }
    if (band) any_band = true;
    f.series.push_back(std::move(s));
  }
  // The reference at 1 spans the data's x extent, unnamed so it stays out of the legend.
  double xlo = std::numeric_limits<double>::infinity(), xhi = -xlo;
  for (const auto& s : f.series)
    for (double x : s.x) {
      xlo = std::min(xlo, x);
      xhi = std::max(xhi, x);
    }
  if (xlo <= xhi) {
    Series one;
    one.x = {xlo, xhi};
    one.y = {1, 1};
    one.color = kGuide;
    one.width = 1.0f;
    one.dashed = true;
    f.series.push_back(std::move(one));
  }
  f.notes.push_back("below 1: lower perplexity than " + runs[0].name +
                    (any_band ? "; bands: 95% paired intervals (same sequences, or seed by seed)" : ""));
  add_train_len_guide(f, train_len);
  return f;
}

Figure niah_heatmap_figure(const eval::NiahTaskGrid& grid, const std::string& run) {
  Figure f;
  f.title = "NIAH " + grid.task + (run.empty() ? "" : ": " + run);
  f.x.label = "context length (bytes)";
  f.y.label = "needle depth (%)";
  f.legend = false;
  Heatmap h;
  h.rows = static_cast<int>(grid.depths.size());
  h.cols = static_cast<int>(grid.lengths.size());
  h.values.assign(static_cast<size_t>(h.rows) * h.cols, std::numeric_limits<double>::quiet_NaN());
  for (int r = 0; r < h.rows; ++r)
    for (int c = 0; c < h.cols; ++c) {
      const size_t k = static_cast<size_t>(r) * h.cols + c;
      if (k < grid.score.size()) h.values[k] = grid.score[k];
    }
  for (int c = 0; c <= h.cols; ++c) h.x_edges.push_back(c);
  // Row 0 (depth 0%) at the top, as RULER draws it: edges run downwards.
  for (int r = 0; r <= h.rows; ++r) h.y_edges.push_back(h.rows - r);
  for (int len : grid.lengths) h.x_tick_labels.push_back(std::to_string(len));
  for (int d : grid.depths) h.y_tick_labels.push_back(std::to_string(d));
  h.vmin = 0;
  h.vmax = 100;
  h.colormap = "viridis";
  h.colorbar_label = "accuracy (string match, %)";
  h.annotate = true;
  f.heatmap = std::move(h);
  f.notes.push_back("mean accuracy " + fmt(std::round(grid.mean * 10) / 10));
  return f;
}

Figure occupancy_figure(const eval::OccupancyResult& occupancy, int layer, int head, const std::string& run,
                        bool log_x) {
  if (layer < 0 || layer >= occupancy.layers)
    throw InputError("layer", "must be in [0, " + std::to_string(occupancy.layers) + "), got " + std::to_string(layer));
  if (head < 0 || head >= occupancy.heads)
    throw InputError("head", "must be in [0, " + std::to_string(occupancy.heads) + "), got " + std::to_string(head));
  Figure f;
  f.title = "Block occupancy" + (run.empty() ? "" : ": " + run) + ", layer " + std::to_string(layer) + ", head " +
            std::to_string(head);
  f.x.label = "position";
  f.x.scale = log_x ? Scale::log : Scale::linear;
  f.y.label = "memory block";
  f.legend = false;
  Heatmap h;
  h.rows = occupancy.blocks;
  h.cols = occupancy.seq_len;
  h.values.resize(static_cast<size_t>(h.rows) * h.cols);
  double vmax = 0;
  for (int b = 0; b < h.rows; ++b)
    for (int t = 0; t < h.cols; ++t) {
      const double v = occupancy.at(layer, head, t, b);
      h.values[static_cast<size_t>(b) * h.cols + t] = v;
      if (std::isfinite(v)) vmax = std::max(vmax, v);
    }
  // Position t (1-based) is centred on t; the edges stay positive for a log axis.
  for (int t = 0; t <= h.cols; ++t) h.x_edges.push_back(t + 0.5);
  for (int b = 0; b <= h.rows; ++b) h.y_edges.push_back(b - 0.5);
  h.vmin = 0;
  h.vmax = vmax > 0 ? vmax : 1;
  h.colormap = "magma";
  h.colorbar_label = "block state norm";
  f.heatmap = std::move(h);
  f.notes.push_back(std::to_string(occupancy.blocks) + " display blocks of the head's state");
  return f;
}

Figure activation_map_figure(const memory::Schedule& schedule, int64_t horizon, const std::string& run) {
  if (horizon < 1) throw InputError("horizon", "must be >= 1, got " + std::to_string(horizon));
  Figure f;
  f.title = "Memory activation" + (run.empty() ? "" : ": " + run);
  f.x.label = "position";
  f.y.label = "memory block";
  f.legend = false;
  Heatmap h;
  h.rows = static_cast<int>(schedule.E());
  h.cols = static_cast<int>(horizon);
  h.values.resize(static_cast<size_t>(h.rows) * h.cols);
  for (int64_t t = 1; t <= horizon; ++t) {
    // The schedule's own k(t): block b is active iff b < k(t). (Not mask(t): that is D bytes per
    // position, too slow to redraw while E or N is dragged in the window.)
    const int64_t k = schedule.active_blocks(t);
    for (int b = 0; b < h.rows; ++b) h.values[static_cast<size_t>(b) * h.cols + (t - 1)] = b < k ? 1.0 : 0.0;
  }
  for (int64_t t = 0; t <= horizon; ++t) h.x_edges.push_back(t + 0.5);
  for (int b = 0; b <= h.rows; ++b) h.y_edges.push_back(b - 0.5);
  h.vmin = 0;
  h.vmax = 1;
  h.colormap = "greys";
  h.colorbar_label = "active (1) / locked (0)";
  f.heatmap = std::move(h);
  f.notes.push_back("E = " + std::to_string(schedule.E()) + ", N = " + std::to_string(schedule.N()) +
                    ", D = " + std::to_string(schedule.D()) + ", block size " + std::to_string(schedule.block_size()));
  if (horizon > schedule.N() && schedule.E() > 1) {
    f.series.push_back(vertical_guide(schedule.N() + 0.5, -0.5, schedule.E() - 0.5));
    f.series.back().color = {0.84f, 0.37f, 0.0f};
    f.notes.push_back("dashed line: the horizon N; all blocks active past it");
  }
  return f;
}

Figure e_ablation_figure(const std::vector<EPoint>& points) {
  Figure f;
  f.title = "E ablation";
  f.x.label = "E (memory blocks)";
  f.x.scale = Scale::log;
  f.y.label = "held-out bits per byte";
  std::vector<std::string> groups;
  for (const auto& p : points)
    if (std::find(groups.begin(), groups.end(), p.group) == groups.end()) groups.push_back(p.group);
  std::set<int> es;
  bool bars = false;
  for (size_t g = 0; g < groups.size(); ++g) {
    std::vector<EPoint> mine;
    for (const auto& p : points)
      if (p.group == groups[g] && p.E >= 1 && std::isfinite(p.val_bpb)) mine.push_back(p);
    std::stable_sort(mine.begin(), mine.end(), [](const EPoint& a, const EPoint& b) { return a.E < b.E; });
    Series s;
    s.name = groups[g];
    s.color = palette(static_cast<int>(g));
    s.markers = true;
    const bool intervals = !mine.empty() && std::all_of(mine.begin(), mine.end(), [](const EPoint& p) {
      return std::isfinite(p.lo) && std::isfinite(p.hi);
    });
    for (const auto& p : mine) {
      s.x.push_back(p.E);
      s.y.push_back(p.val_bpb);
      if (intervals) {
        s.lo.push_back(p.lo);
        s.hi.push_back(p.hi);
      }
      es.insert(p.E);
    }
    s.error_bars = intervals;
    bars |= intervals;
    f.series.push_back(std::move(s));
  }
  // Powers of two read best at the E values themselves.
  f.x.tick_values.assign(es.begin(), es.end());
  f.legend = groups.size() > 1 || (groups.size() == 1 && !groups[0].empty());
  if (bars) f.notes.push_back("error bars: 95% intervals (t over seeds, or bootstrap over sequences for one run)");
  return f;
}

Figure block_use_figure(const std::vector<Named<eval::BlockUseResult>>& runs, const std::vector<std::string>& not_applicable) {
  Figure f;
  f.title = "Block use: how evenly the state's norm fills the blocks";
  f.x.label = "position";
  f.x.scale = Scale::log;
  f.y.label = "normalised entropy of the block shares";
  std::set<int> xs;
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto& u = runs[i].value;
    Series s;
    s.name = runs[i].name;
    s.color = palette(static_cast<int>(i));
    s.markers = true;
    Series most;
    most.color = s.color;
    most.width = 1.0f;
    most.dashed = true;
    for (size_t p = 0; p < u.positions.size() && p < u.mean_entropy.size(); ++p) {
      const auto& e = u.mean_entropy[p];
      if (!std::isfinite(e.mean)) continue;
      s.x.push_back(u.positions[p]);
      s.y.push_back(e.mean);
      s.lo.push_back(std::isfinite(e.lo) ? e.lo : e.mean);
      s.hi.push_back(std::isfinite(e.hi) ? e.hi : e.mean);
      xs.insert(u.positions[p]);
      if (p < u.open_blocks.size() && u.blocks > 1) {
        most.x.push_back(u.positions[p]);
        most.y.push_back(std::log(static_cast<double>(std::max(1, u.open_blocks[p]))) / std::log(static_cast<double>(u.blocks)));
      }
    }
    s.error_bars = true;
    f.series.push_back(std::move(s));
    if (!most.x.empty()) f.series.push_back(std::move(most));
  }
  f.x.tick_values.assign(xs.begin(), xs.end());
  f.y.min = 0;
  f.y.max = 1;
  f.notes.push_back("1 = every block used evenly, 0 = one block; dashed: the most the open blocks allow");
  if (!not_applicable.empty()) {
    std::string names;
    for (const auto& n : not_applicable) names += (names.empty() ? "" : ", ") + n;
    f.notes.push_back("not applicable (one block, E = 1): " + names);
  }
  return f;
}

std::string file_name_part(const std::string& name) {
  std::string out;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                    c == '_' || c == '.';
    out += ok ? c : '_';
  }
  return out.empty() ? "_" : out;
}

}  // namespace proteus::figures
