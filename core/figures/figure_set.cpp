// The figure set of a list of runs: which figures exist for the data the runs have, their names
// and order, run colours kept across figures. The figures themselves come from run_figures.hpp.
#include "core/figures/figure_set.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "core/config/mixer_schedule.hpp"
#include "core/config/seed_group_members.hpp"
#include "core/eval/comparison.hpp"
#include "core/eval/seed_group_summary.hpp"
#include "core/figures/gating_effect_by_variant.hpp"
#include "core/figures/gating_effect_figures.hpp"
#include "core/figures/state_opening_figure.hpp"
#include "core/runs/eval_files.hpp"
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

// Mean over members of equally long vectors (the shortest length), with t intervals when asked.
std::vector<double> mean_of(const std::vector<const std::vector<double>*>& xs) {
  size_t n = std::numeric_limits<size_t>::max();
  for (const auto* x : xs) n = std::min(n, x->size());
  std::vector<double> out(xs.empty() ? 0 : n, 0.0);
  for (const auto* x : xs)
    for (size_t i = 0; i < out.size(); ++i) out[i] += (*x)[i] / static_cast<double>(xs.size());
  return out;
}

// NIAH-like grids of the members averaged cell by cell when they have one shape; else the first's.
template <class Grid>
void average_scores(std::vector<Grid>& into, const std::vector<const std::vector<Grid>*>& members) {
  for (size_t g = 0; g < into.size(); ++g) {
    std::vector<const std::vector<double>*> scores;
    for (const auto* m : members)
      if (g < m->size() && (*m)[g].score.size() == into[g].score.size()) scores.push_back(&(*m)[g].score);
    if (scores.size() != members.size()) continue;
    into[g].score = mean_of(scores);
    double total = 0;
    for (double v : into[g].score) total += v;
    if (!into[g].score.empty()) into[g].mean = total / static_cast<double>(into[g].score.size());
  }
}

// One seed group's evaluated runs as one RunResults (see figure_set.hpp).
RunResults merge_group(const std::string& group, const std::vector<const RunResults*>& members) {
  RunResults g;
  const RunResults& first = *members.front();
  g.name = group + " (" + std::to_string(members.size()) + " seeds)";
  g.config = first.config;
  std::vector<eval::PerPositionResult> pps;
  for (const auto* m : members) {
    pps.push_back(*m->report->per_position);
    g.seed_runs.push_back(*m->report->per_position);
    g.seeds.push_back(m->config ? m->config->seed : 0);
  }
  std::vector<const eval::BlockUseResult*> use;
  for (const auto* m : members) use.push_back(m->report->block_use ? &*m->report->block_use : nullptr);
  const auto summary = eval::summarise_group(pps, use);  // throws when the buckets differ

  eval::PerPositionResult p;
  p.seq_len = first.report->per_position->seq_len;
  p.sequences = first.report->per_position->sequences;
  std::vector<const std::vector<double>*> nll;
  for (const auto& r : pps) nll.push_back(&r.nll);
  p.nll = mean_of(nll);
  p.bucket_lo = summary.nll.bucket_lo;
  p.bucket_hi = summary.nll.bucket_hi;
  for (const auto& i : summary.nll.value) p.bucket_nll.push_back(i.mean);
  p.bucket_interval = summary.nll.value;
  p.mean_nll = summary.nll.overall.mean;
  p.mean_interval = summary.nll.overall;
  // Mean NLL within the training length: the group's summary over its seeds (as `proteus groups` has it).
  std::vector<eval::SeedGroupValue> held;
  for (size_t i = 0; i < pps.size(); ++i)
    if (pps[i].train_len > 0 && pps[i].train_len == pps.front().train_len) held.push_back({g.seeds[i], pps[i].train_interval.mean});
  if (held.size() == pps.size()) {
    p.train_len = pps.front().train_len;
    p.train_interval = eval::summarise_seed_group(held).mean;
  }
  auto report = std::make_shared<eval::EvalReport>(*first.report);
  report->per_position = p;
  // Block use: the first seed's shares, the entropy's mean over seeds with its t interval.
  if (report->block_use && report->block_use->applicable && !summary.block_use_entropy.empty() &&
      summary.block_use_positions == report->block_use->positions)
    report->block_use->mean_entropy = summary.block_use_entropy;
  std::vector<const std::vector<eval::NiahTaskGrid>*> niah, needle;
  for (const auto* m : members) {
    if (m->report->niah) niah.push_back(&m->report->niah->tasks);
    if (m->report->needle) needle.push_back(&m->report->needle->forms);
  }
  if (report->niah && niah.size() == members.size()) average_scores(report->niah->tasks, niah);
  if (report->needle && needle.size() == members.size()) average_scores(report->needle->forms, needle);
  g.report = std::move(report);

  // Training curves: the mean over seeds at the steps all of them logged, val_bpb with its interval.
  g.curve.name = g.name;
  std::vector<const std::vector<double>*> loss, val;
  bool same_steps = true;
  for (const auto* m : members) {
    loss.push_back(&m->curve.loss);
    val.push_back(&m->curve.val_bpb);
    const size_t n = std::min(m->curve.step.size(), first.curve.step.size());
    same_steps &= std::equal(first.curve.step.begin(), first.curve.step.begin() + n, m->curve.step.begin());
  }
  g.curve.loss = mean_of(loss);
  g.curve.step.assign(first.curve.step.begin(), first.curve.step.begin() + std::min(first.curve.step.size(), g.curve.loss.size()));
  g.curve.loss.resize(g.curve.step.size());
  g.curve.val_bpb = mean_of(val);
  g.curve.val_step.assign(first.curve.val_step.begin(),
                          first.curve.val_step.begin() + std::min(first.curve.val_step.size(), g.curve.val_bpb.size()));
  g.curve.val_bpb.resize(g.curve.val_step.size());
  for (size_t k = 0; k < g.curve.val_bpb.size(); ++k) {
    std::vector<double> at;
    for (const auto* v : val) at.push_back((*v)[k]);
    const auto i = eval::t_interval(at);
    g.curve.val_lo.push_back(i.lo);
    g.curve.val_hi.push_back(i.hi);
  }
  if (!same_steps) g.curve = first.curve;  // logged on other steps: the first seed's curve stands in
  return g;
}

// Seed groups with two or more evaluated runs become one entry, at the place of their first run.
void merge_seed_groups(std::vector<RunResults>& runs) {
  std::map<std::string, std::vector<size_t>> members;
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto& r = runs[i];
    if (r.config && !r.config->group.empty() && r.report && r.report->per_position &&
        !r.report->per_position->nll.empty())
      members[r.config->group].push_back(i);
  }
  std::vector<bool> drop(runs.size(), false);
  std::vector<std::pair<size_t, RunResults>> merged;
  for (const auto& [group, all] : members) {
    // One run per seed, of one experiment (as the group summaries count them); the runs left out
    // are drawn on their own, so the entry's n is the seeds it has.
    std::vector<config::SeedGroupCandidate> candidates;
    for (size_t i : all) candidates.push_back({runs[i].name, &*runs[i].config});
    std::vector<size_t> idx;
    for (size_t k : config::choose_seed_group_members(group, candidates).kept) idx.push_back(all[k]);
    std::sort(idx.begin(), idx.end());
    if (idx.size() < 2) continue;
    std::vector<const RunResults*> ms;
    for (size_t i : idx) ms.push_back(&runs[i]);
    try {
      merged.emplace_back(idx.front(), merge_group(group, ms));
    } catch (const std::invalid_argument&) {
      continue;  // evaluated differently: drawn run by run
    }
    for (size_t i : idx) drop[i] = true;
  }
  for (auto& [at, g] : merged) {
    runs[at] = std::move(g);
    drop[at] = false;
  }
  std::vector<RunResults> kept;
  for (size_t i = 0; i < runs.size(); ++i)
    if (!drop[i]) kept.push_back(std::move(runs[i]));
  runs = std::move(kept);
}

// The paired interval of the NLL difference a - b per bucket: seed by seed for two seed groups
// with the same seeds, over the shared sequences for two runs; empty when neither applies.
std::vector<eval::Interval> paired_interval(const RunResults& a, const eval::PerPositionResult& pa,
                                            const RunResults& b, const eval::PerPositionResult& pb) {
  try {
    if (!a.seed_runs.empty() && !b.seed_runs.empty()) {
      if (a.seeds != b.seeds) return {};
      return eval::paired_group_comparison(a.seed_runs, b.seed_runs).value;
    }
    if (a.seed_runs.empty() && b.seed_runs.empty() && !pa.sequence_bucket_nll.empty())
      return eval::paired_bucket_difference(pa, pb);
  } catch (const std::invalid_argument&) {
  }
  return {};
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
  bool any_live = false, live_band = false;
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto& r = runs[i];
    if (r.report && r.report->per_position && !r.report->per_position->nll.empty()) {
      pp.push_back({r.name, *r.report->per_position});
    } else if (r.live_per_position && !r.live_per_position->bucket_nll.empty()) {
      pp.push_back({r.name, *r.live_per_position});
      any_live = true;
      live_band |= !r.live_per_position->bucket_interval.empty();
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
    if (any_live)
      f.notes.push_back("live: validation rows at step " + std::to_string(live_step) +
                        (live_band ? " (bands: bootstrap over the rows)" : ""));
    out.push_back({"per_position", std::move(f)});
  }
  if (pp.size() >= 2) {
    std::vector<std::vector<eval::Interval>> diff(pp.size());
    for (size_t i = 1; i < pp.size(); ++i)
      diff[i] = paired_interval(runs[idx[i]], pp[i].value, runs[idx[0]], pp[0].value);
    auto f = perplexity_ratio_figure(pp, train_len, diff);
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
      // A seed group shows its first seed's occupancy (a picture of one model, not a mean).
      out.push_back({"occupancy_" + file_name_part(r.name) + "_l0_h0",
                     occupancy_figure(occ, 0, 0, r.seeds.empty() ? r.name : r.name + ", seed " + std::to_string(r.seeds.front()))});
  }
}

void add_block_use(const std::vector<RunResults>& runs, std::vector<NamedFigure>& out) {
  std::vector<Named<eval::BlockUseResult>> use;
  std::vector<std::string> not_applicable;
  std::vector<int> idx;
  bool any_live = false;
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto& r = runs[i];
    const eval::BlockUseResult* u = r.report && r.report->block_use ? &*r.report->block_use : nullptr;
    if (!u && r.live_block_use) {
      u = r.live_block_use.get();
      any_live = true;
    }
    if (!u) continue;
    if (u->applicable) {
      use.push_back({r.name, *u});
      idx.push_back(static_cast<int>(i));
    } else {
      not_applicable.push_back(r.name);
    }
  }
  if (use.empty()) return;
  auto f = block_use_figure(use, not_applicable);
  if (any_live) f.notes.push_back("live: the validation rows at the latest evaluation step");
  // Each run's series and its dashed guide in the run's colour.
  for (size_t k = 0, s = 0; k < idx.size() && s < f.series.size(); ++k) {
    const std::string name = f.series[s].name;
    f.series[s].color = palette(idx[k]);
    if (s + 1 < f.series.size() && f.series[s + 1].name.empty()) f.series[++s].color = palette(idx[k]);
    ++s;
  }
  out.push_back({"block_use", std::move(f)});
}

void add_activation_maps(const std::vector<RunResults>& runs, std::vector<NamedFigure>& out) {
  for (const auto& r : runs) {
    if (!r.config || r.config->model.mixer.type != config::MixerType::memory || !r.has_results()) continue;
    const auto& m = r.config->model.mixer;
    const int64_t N = config::resolved_mixer_horizon(*r.config);
    const auto schedule = config::schedule_from_config(m, N);
    // As far as the per-position evaluation reaches, else twice the horizon: past N all is open.
    int64_t horizon = 2 * N;
    if (r.report && r.report->per_position && r.report->per_position->seq_len > 0)
      horizon = std::max<int64_t>(N + 1, r.report->per_position->seq_len);
    auto f = activation_map_figure(schedule, horizon, r.name);
    f.notes.front() = std::string(memory::schedule_type_name(m.schedule.type)) + " schedule, " + f.notes.front();
    out.push_back({"activation_map_" + file_name_part(r.name), std::move(f)});
    // Which elements those blocks are (the block axis); with one block there is nothing to show.
    if (m.E > 1)
      out.push_back({"state_opening_" + file_name_part(r.name),
                     state_opening_figure(schedule, m.block_axis, m.heads, m.d_head,
                                          m.d_head, r.name)});
  }
}

void add_e_ablation(const std::vector<RunResults>& runs, std::vector<NamedFigure>& out) {
  std::vector<EPoint> points;
  std::set<int> es;
  for (const auto& r : runs) {
    if (!r.config || r.config->model.mixer.type != config::MixerType::memory) continue;
    const auto& m = r.config->model.mixer;
    // Held-out bits per byte within the training length from the large evaluation, with its
    // interval (t over a group's seeds, bootstrap over sequences for one run); else the last
    // validation value, which has none.
    if (r.report && r.report->per_position && r.report->per_position->train_len > 0) {
      const auto i = r.report->per_position->heldout_bits_per_byte();
      points.push_back({std::string(memory::rule_name(m.rule)), m.E, i.mean, i.lo, i.hi});
    } else if (!r.curve.val_bpb.empty()) {
      points.push_back({std::string(memory::rule_name(m.rule)), m.E, r.curve.val_bpb.back()});
    } else {
      continue;
    }
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
  auto report = runs::read_eval_report(run);
  if (any_result(report)) r.report = std::make_shared<const eval::EvalReport>(std::move(report));
  return r;
}

std::vector<NamedFigure> figure_set(std::vector<RunResults> runs, const FigureSetOptions& options) {
  // The gating effect pairs runs seed by seed, so it reads them before seed groups are merged.
  std::vector<EffectRun> effect_runs;
  for (const auto& r : runs)
    if (r.config && r.report) effect_runs.push_back({r.name, *r.config, r.report});
  auto effects = gating_effect_figures(effect_runs, {.x_field = options.effect_x, .ranges = options.effect_ranges});
  for (auto& e : gating_effect_by_variant_figures(effect_runs, options.effect_reference)) effects.push_back(std::move(e));
  merge_seed_groups(runs);
  make_names_unique(runs);
  std::vector<NamedFigure> out;
  add_curves(runs, options, out);
  add_per_position(runs, out);
  add_heatmaps(runs, out);
  add_block_use(runs, out);
  add_activation_maps(runs, out);
  add_e_ablation(runs, out);
  for (auto& e : effects) out.push_back(std::move(e));
  return out;
}

std::vector<NamedFigure> standard_figures(const std::vector<runs::RunReader>& runs, const FigureSetOptions& options) {
  std::vector<RunResults> results;
  for (const auto& r : runs) results.push_back(read_run_results(r, r.name()));
  return figure_set(std::move(results), options);
}

}  // namespace proteus::figures
