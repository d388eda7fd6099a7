// Builders from run results to Figures, and standard_figures over run directories.
#include "core/figures/run_figures.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "core/config/config.hpp"
#include "core/eval/evaluate.hpp"
#include "core/memory/input_error.hpp"
#include "core/runs/run_dir.hpp"

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

// Runs with the same directory name (two "tiny" runs from different folders) get -2, -3, ...
std::vector<std::string> unique_names(const std::vector<runs::RunReader>& runs) {
  std::vector<std::string> names;
  std::map<std::string, int> seen;
  for (const auto& r : runs) {
    std::string n = r.name();
    if (int k = ++seen[n]; k > 1) n += "-" + std::to_string(k);
    names.push_back(n);
  }
  return names;
}

}  // namespace

LossCurve loss_curve(const std::string& name, const std::vector<nlohmann::json>& metrics) {
  LossCurve c;
  c.name = name;
  auto number = [](const nlohmann::json& j, const char* key, double& out) {
    const auto it = j.find(key);
    if (it == j.end() || !it->is_number()) return false;
    out = it->get<double>();
    return std::isfinite(out);
  };
  for (const auto& m : metrics) {
    double step = 0, v = 0;
    if (!number(m, "step", step)) continue;
    if (number(m, "loss", v)) {
      c.step.push_back(step);
      c.loss.push_back(v);
    }
    if (number(m, "val_bpb", v)) {
      c.val_step.push_back(step);
      c.val_bpb.push_back(v);
    }
  }
  return c;
}

Figure loss_figure(const std::vector<LossCurve>& runs) {
  Figure f;
  f.title = "Training loss";
  f.x.label = "step";
  f.y.label = "loss (nats / token)";
  for (size_t i = 0; i < runs.size(); ++i) {
    Series s;
    s.name = runs[i].name;
    s.x = runs[i].step;
    s.y = runs[i].loss;
    s.color = palette(static_cast<int>(i));
    s.width = 1.2f;
    f.series.push_back(std::move(s));
  }
  return f;
}

Figure val_bpb_figure(const std::vector<LossCurve>& runs) {
  Figure f;
  f.title = "Held-out bits per byte";
  f.x.label = "step";
  f.y.label = "validation bits per byte";
  for (size_t i = 0; i < runs.size(); ++i) {
    Series s;
    s.name = runs[i].name;
    s.x = runs[i].val_step;
    s.y = runs[i].val_bpb;
    s.color = palette(static_cast<int>(i));
    s.dashed = true;
    s.markers = true;
    f.series.push_back(std::move(s));
  }
  return f;
}

Figure per_position_figure(const std::vector<Named<eval::PerPositionResult>>& runs, int train_len, bool buckets) {
  Figure f;
  f.title = "Perplexity by position";
  f.x.label = "position";
  f.x.scale = Scale::log;
  f.y.label = "perplexity";
  int sequences = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto& r = runs[i].value;
    Series s;
    s.name = runs[i].name;
    s.color = palette(static_cast<int>(i));
    if (buckets) {
      const auto bounds = buckets_of(r);
      const bool stored = r.bucket_nll.size() == bounds.size();
      for (size_t k = 0; k < bounds.size(); ++k) {
        const auto [lo, hi] = bounds[k];
        // The stored bucket mean when present: it is what per_position_buckets.csv reports.
        const double v = stored ? r.bucket_nll[k] : mean_nll(r.nll, lo, hi);
        if (!std::isfinite(v)) continue;
        s.x.push_back(std::sqrt(static_cast<double>(lo) * hi));
        s.y.push_back(std::exp(v));
      }
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
                      (buckets ? ", log-spaced position buckets" : ""));
  add_train_len_guide(f, train_len);
  return f;
}

Figure perplexity_ratio_figure(const std::vector<Named<eval::PerPositionResult>>& runs, int train_len) {
  Figure f;
  f.title = "Perplexity ratio by position";
  f.x.label = "position";
  f.x.scale = Scale::log;
  f.y.label = runs.empty() ? "perplexity ratio" : "perplexity / perplexity of " + runs[0].name;
  if (runs.size() < 2) return f;
  const auto& base = runs[0].value;
  const auto bounds = buckets_of(base);
  for (size_t i = 1; i < runs.size(); ++i) {
    Series s;
    s.name = runs[i].name;
    s.color = palette(static_cast<int>(i));
    s.markers = true;
    const int covered = static_cast<int>(std::min(base.nll.size(), runs[i].value.nll.size()));
    for (const auto& [lo, hi] : bounds) {
      if (lo > covered) break;
      const int h = std::min(hi, covered);
      const double a = mean_nll(runs[i].value.nll, lo, h), b = mean_nll(base.nll, lo, h);
      if (!std::isfinite(a) || !std::isfinite(b)) continue;
      s.x.push_back(std::sqrt(static_cast<double>(lo) * h));
      s.y.push_back(std::exp(a - b));  // ratio of perplexities = exp of the NLL difference
    }
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
  f.notes.push_back("below 1: lower perplexity than " + runs[0].name);
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
  f.y.label = "final validation bits per byte";
  std::vector<std::string> groups;
  for (const auto& p : points)
    if (std::find(groups.begin(), groups.end(), p.group) == groups.end()) groups.push_back(p.group);
  std::set<int> es;
  for (size_t g = 0; g < groups.size(); ++g) {
    std::vector<EPoint> mine;
    for (const auto& p : points)
      if (p.group == groups[g] && p.E >= 1 && std::isfinite(p.val_bpb)) mine.push_back(p);
    std::stable_sort(mine.begin(), mine.end(), [](const EPoint& a, const EPoint& b) { return a.E < b.E; });
    Series s;
    s.name = groups[g];
    s.color = palette(static_cast<int>(g));
    s.markers = true;
    for (const auto& p : mine) {
      s.x.push_back(p.E);
      s.y.push_back(p.val_bpb);
      es.insert(p.E);
    }
    f.series.push_back(std::move(s));
  }
  // Powers of two read best at the E values themselves.
  f.x.tick_values.assign(es.begin(), es.end());
  f.legend = groups.size() > 1 || (groups.size() == 1 && !groups[0].empty());
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

std::vector<NamedFigure> standard_figures(const std::vector<runs::RunReader>& runs) {
  const auto names = unique_names(runs);
  struct RunData {
    config::RunConfig cfg;
    LossCurve curve;
    eval::EvalReport report;
  };
  std::vector<RunData> data;
  for (size_t i = 0; i < runs.size(); ++i) {
    RunData d;
    d.cfg = runs[i].run_config();
    d.curve = loss_curve(names[i], runs[i].metrics());
    d.report = eval::read_eval_report(runs[i]);
    data.push_back(std::move(d));
  }

  std::vector<NamedFigure> out;
  // Overlays keep run i at palette(i): a run missing from one figure leaves its colour unused.
  auto recolour = [](Figure& f, const std::vector<int>& run_index) {
    for (size_t k = 0; k < run_index.size() && k < f.series.size(); ++k) f.series[k].color = palette(run_index[k]);
  };

  {
    std::vector<LossCurve> curves;
    std::vector<int> idx;
    bool any_loss = false, any_val = false;
    for (size_t i = 0; i < data.size(); ++i) {
      curves.push_back(data[i].curve);
      idx.push_back(static_cast<int>(i));
      any_loss |= !data[i].curve.loss.empty();
      any_val |= !data[i].curve.val_bpb.empty();
    }
    if (any_loss) out.push_back({"loss", loss_figure(curves)});
    if (any_val) out.push_back({"val_bpb", val_bpb_figure(curves)});
  }

  {
    std::vector<Named<eval::PerPositionResult>> pp;
    std::vector<int> idx;
    int train_len = 0;
    for (size_t i = 0; i < data.size(); ++i)
      if (data[i].report.per_position && !data[i].report.per_position->nll.empty()) {
        pp.push_back({names[i], *data[i].report.per_position});
        idx.push_back(static_cast<int>(i));
        if (!train_len) train_len = data[i].cfg.data.seq_len;
      }
    if (!pp.empty()) {
      auto f = per_position_figure(pp, train_len);
      recolour(f, idx);
      out.push_back({"per_position", std::move(f)});
    }
    if (pp.size() >= 2) {
      auto f = perplexity_ratio_figure(pp, train_len);
      recolour(f, std::vector<int>(idx.begin() + 1, idx.end()));
      out.push_back({"ppl_ratio", std::move(f)});
    }
  }

  for (size_t i = 0; i < data.size(); ++i)
    if (data[i].report.niah)
      for (const auto& grid : data[i].report.niah->tasks)
        out.push_back({"niah_" + file_name_part(grid.task) + "_" + file_name_part(names[i]),
                       niah_heatmap_figure(grid, names[i])});

  // The token needle task: the same heatmap, its lengths counted in tokens.
  for (size_t i = 0; i < data.size(); ++i)
    if (data[i].report.needle)
      for (const auto& grid : data[i].report.needle->forms) {
        auto f = niah_heatmap_figure(grid, names[i]);
        f.title = "Token needle, " + grid.task + ": " + names[i];
        f.x.label = "context length (tokens)";
        f.heatmap->colorbar_label = "accuracy (greedy answer token, %)";
        out.push_back({"needle_" + file_name_part(grid.task) + "_" + file_name_part(names[i]), std::move(f)});
      }

  for (size_t i = 0; i < data.size(); ++i) {
    const auto& occ = data[i].report.occupancy;
    if (occ && occ->layers > 0 && occ->heads > 0 && occ->seq_len > 0 && occ->blocks > 0 &&
        occ->norms.size() == static_cast<size_t>(occ->layers) * occ->heads * occ->seq_len * occ->blocks)
      out.push_back({"occupancy_" + file_name_part(names[i]) + "_l0_h0", occupancy_figure(*occ, 0, 0, names[i])});
  }

  for (size_t i = 0; i < data.size(); ++i) {
    const auto& cfg = data[i].cfg;
    const auto& m = cfg.model.mixer;
    if (m.type != "memory") continue;
    const int64_t D = static_cast<int64_t>(m.d_head) * m.d_head;
    const int64_t N = config::resolved_mixer_horizon(cfg);
    const auto schedule = memory::Schedule::make(m.schedule, D, m.E, N);
    // As far as the per-position evaluation reaches, else twice the horizon: past N all is open.
    int64_t horizon = 2 * N;
    if (data[i].report.per_position && data[i].report.per_position->seq_len > 0)
      horizon = std::max<int64_t>(N + 1, data[i].report.per_position->seq_len);
    auto f = activation_map_figure(schedule, horizon, names[i]);
    f.notes.front() = m.schedule.type + " schedule, " + f.notes.front();
    out.push_back({"activation_map_" + file_name_part(names[i]), std::move(f)});
  }

  {
    std::vector<EPoint> points;
    std::set<int> es;
    for (size_t i = 0; i < data.size(); ++i) {
      const auto& m = data[i].cfg.model.mixer;
      if (m.type != "memory" || data[i].curve.val_bpb.empty()) continue;
      points.push_back({m.rule, m.E, data[i].curve.val_bpb.back()});
      es.insert(m.E);
    }
    if (es.size() >= 2) out.push_back({"e_ablation", e_ablation_figure(points)});
  }
  return out;
}

}  // namespace proteus::figures
