// The figure set of a list of runs: which figures exist for the data the runs have, their names
// and order, run colours kept across figures. The figures themselves come from run_figures.hpp.
#include "core/figures/figure_set.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "core/runs/run_dir.hpp"

namespace proteus::figures {
namespace {

bool any_result(const eval::EvalReport& r) {
  return r.per_position || r.niah || r.needle || r.mqar || r.occupancy || r.block_use;
}

// Runs with the same name (two "tiny" runs from different folders) get -2, -3, ...
void make_names_unique(std::vector<RunResults>& runs) {
  std::map<std::string, int> seen;
  for (auto& r : runs) {
    const int k = ++seen[r.name];
    if (k > 1) r.name = r.name + '-' + std::to_string(k);
    r.curve.name = r.name;
  }
}

// Overlays keep run i at palette(i): a run missing from one figure leaves its colour unused.
void recolour(Figure& f, const std::vector<int>& run_index) {
  for (size_t k = 0; k < run_index.size() && k < f.series.size(); ++k) f.series[k].color = palette(run_index[k]);
}

void add_curves(const std::vector<RunResults>& runs, const FigureSetOptions& options, std::vector<NamedFigure>& out) {
  std::vector<LossCurve> curves;
  bool any_loss = false, any_val = false;
  for (const auto& r : runs) {
    curves.push_back(r.curve);
    any_loss |= !r.curve.loss.empty();
    any_val |= !r.curve.val_bpb.empty();
  }
  if (any_loss || options.loss_before_data) out.push_back({"loss", loss_figure(curves)});
  if (any_val) out.push_back({"val_bpb", val_bpb_figure(curves)});
}

// Per-position perplexity from the final evaluation where there is one, else the live curve.
void add_per_position(const std::vector<RunResults>& runs, std::vector<NamedFigure>& out) {
  std::vector<Named<eval::PerPositionResult>> pp;
  std::vector<int> idx;
  int train_len = 0, live_step = 0;
  bool any_live = false;
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto& r = runs[i];
    if (r.report && r.report->per_position && !r.report->per_position->nll.empty()) {
      pp.push_back({r.name, *r.report->per_position});
    } else if (r.live_per_position && !r.live_per_position->bucket_nll.empty()) {
      pp.push_back({r.name, *r.live_per_position});
      any_live = true;
      live_step = std::max(live_step, r.live_per_position_step);
    } else {
      continue;
    }
    idx.push_back(static_cast<int>(i));
    if (!train_len && r.config) train_len = r.config->data.seq_len;
  }
  if (!pp.empty()) {
    auto f = per_position_figure(pp, train_len);
    recolour(f, idx);
    if (any_live) f.notes.push_back("live: validation rows at step " + std::to_string(live_step));
    out.push_back({"per_position", std::move(f)});
  }
  if (pp.size() >= 2) {
    auto f = perplexity_ratio_figure(pp, train_len);
    recolour(f, std::vector<int>(idx.begin() + 1, idx.end()));
    out.push_back({"ppl_ratio", std::move(f)});
  }
}

void add_heatmaps(const std::vector<RunResults>& runs, std::vector<NamedFigure>& out) {
  for (const auto& r : runs)
    if (r.report && r.report->niah)
      for (const auto& grid : r.report->niah->tasks)
        out.push_back({"niah_" + file_name_part(grid.task) + "_" + file_name_part(r.name), niah_heatmap_figure(grid, r.name)});

  // The token needle task: the same heatmap, its lengths counted in tokens.
  for (const auto& r : runs)
    if (r.report && r.report->needle)
      for (const auto& grid : r.report->needle->forms) {
        auto f = niah_heatmap_figure(grid, r.name);
        f.title = "Token needle, " + grid.task + ": " + r.name;
        f.x.label = "context length (tokens)";
        f.heatmap->colorbar_label = "accuracy (greedy answer token, %)";
        out.push_back({"needle_" + file_name_part(grid.task) + "_" + file_name_part(r.name), std::move(f)});
      }

  for (const auto& r : runs) {
    if (!r.report || !r.report->occupancy) continue;
    const auto& occ = *r.report->occupancy;
    if (occ.layers > 0 && occ.heads > 0 && occ.seq_len > 0 && occ.blocks > 0 &&
        occ.norms.size() == static_cast<size_t>(occ.layers) * occ.heads * occ.seq_len * occ.blocks)
      out.push_back({"occupancy_" + file_name_part(r.name) + "_l0_h0", occupancy_figure(occ, 0, 0, r.name)});
  }
}

void add_activation_maps(const std::vector<RunResults>& runs, std::vector<NamedFigure>& out) {
  for (const auto& r : runs) {
    if (!r.config || r.config->model.mixer.type != "memory" || !r.has_results()) continue;
    const auto& m = r.config->model.mixer;
    const int64_t D = static_cast<int64_t>(m.d_head) * m.d_head;
    const int64_t N = config::resolved_mixer_horizon(*r.config);
    const auto schedule = memory::Schedule::make(m.schedule, D, m.E, N);
    // As far as the per-position evaluation reaches, else twice the horizon: past N all is open.
    int64_t horizon = 2 * N;
    if (r.report && r.report->per_position && r.report->per_position->seq_len > 0)
      horizon = std::max<int64_t>(N + 1, r.report->per_position->seq_len);
    auto f = activation_map_figure(schedule, horizon, r.name);
    f.notes.front() = m.schedule.type + " schedule, " + f.notes.front();
    out.push_back({"activation_map_" + file_name_part(r.name), std::move(f)});
  }
}

void add_e_ablation(const std::vector<RunResults>& runs, std::vector<NamedFigure>& out) {
  std::vector<EPoint> points;
  std::set<int> es;
  for (const auto& r : runs) {
    if (!r.config || r.config->model.mixer.type != "memory" || r.curve.val_bpb.empty()) continue;
    const auto& m = r.config->model.mixer;
    points.push_back({m.rule, m.E, r.curve.val_bpb.back()});
    es.insert(m.E);
  }
  if (es.size() >= 2) out.push_back({"e_ablation", e_ablation_figure(points)});
}

}  // namespace

bool RunResults::has_results() const {
  return !curve.step.empty() || !curve.val_step.empty() || (report && any_result(*report)) || live_per_position;
}

RunResults read_run_results(const runs::RunReader& run, const std::string& name) {
  RunResults r;
  r.name = name;
  r.config = run.run_config();
  r.curve = loss_curve(name, run.metrics());
  auto report = eval::read_eval_report(run);
  if (any_result(report)) r.report = std::make_shared<const eval::EvalReport>(std::move(report));
  return r;
}

std::vector<NamedFigure> figure_set(std::vector<RunResults> runs, const FigureSetOptions& options) {
  make_names_unique(runs);
  std::vector<NamedFigure> out;
  add_curves(runs, options, out);
  add_per_position(runs, out);
  add_heatmaps(runs, out);
  add_activation_maps(runs, out);
  add_e_ablation(runs, out);
  return out;
}

std::vector<NamedFigure> standard_figures(const std::vector<runs::RunReader>& runs) {
  std::vector<RunResults> results;
  for (const auto& r : runs) results.push_back(read_run_results(r, r.name()));
  return figure_set(std::move(results));
}

}  // namespace proteus::figures
