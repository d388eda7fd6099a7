// The forest plot of the gating effect by variant: which seed groups pair, each row's effect over
// the diagnosis ranges (t over the paired seeds), and its figure and CSV.
#include "core/figures/gating_effect_by_variant.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "core/common/input_error.hpp"
#include "core/config/field_role.hpp"
#include "core/config/flat_fields.hpp"
#include "core/config/seed_group_members.hpp"
#include "core/eval/baseline.hpp"
#include "core/eval/statistics.hpp"
#include "core/runs/run_dir.hpp"

namespace proteus::figures {
namespace {

// One seed group's runs that can be paired: its members as every seed group counts them
// (config::choose_seed_group_members: one run per seed, of the config most of them share).
struct SeedGroupRuns {
  std::string name;
  std::vector<const EffectRun*> runs;
};

bool evaluated_group_run(const EffectRun& r) {
  return !r.config.group.empty() && r.config.model.mixer.type == config::MixerType::memory && r.report && r.report->per_position &&
         !r.report->per_position->nll.empty();
}

// The seed groups of gated (E > 1) or of baseline (E = 1) runs, in order of first appearance.
std::vector<SeedGroupRuns> seed_groups_of(const std::vector<EffectRun>& runs, bool gated) {
  std::vector<SeedGroupRuns> groups;
  std::map<std::string, size_t> index;
  for (const auto& r : runs) {
    if (!evaluated_group_run(r) || (gated ? !eval::gated_run(r.config) : !eval::baseline_run(r.config))) continue;
    const auto [it, added] = index.emplace(r.config.group, groups.size());
    if (added) groups.push_back({r.config.group, {}});
    groups[it->second].runs.push_back(&r);
  }
  for (auto& g : groups) {
    std::vector<config::SeedGroupCandidate> candidates;
    for (const auto* r : g.runs) candidates.push_back({r->name, &r->config});
    std::vector<const EffectRun*> kept;
    for (size_t k : config::choose_seed_group_members(g.name, candidates).kept) kept.push_back(g.runs[k]);
    g.runs = std::move(kept);
  }
  return groups;
}

size_t shared_prefix(const std::string& a, const std::string& b) {
  const size_t n = std::min(a.size(), b.size());
  return static_cast<size_t>(std::mismatch(a.begin(), a.begin() + n, b.begin()).first - a.begin());
}

using RunPair = std::pair<const EffectRun*, const EffectRun*>;  // gated, baseline

// How many readings of the paper (the fields whose role is a reading, config/field_role.hpp) the
// config takes otherwise than the default config.
int readings_changed(const config::RunConfig& c) {
  static const auto defaults = config::flat_fields(config::RunConfig{}, config::JsonForm::as_given);
  const auto fields = config::flat_fields(c, config::JsonForm::as_given);
  int changed = 0;
  for (const auto& [path, role] : config::field_roles())
    changed += config::role_traits(role).reading && fields.at(path) != defaults.at(path);
  return changed;
}

// The row's pairs, by seed, that were evaluated to the first pair's length (the others noted).
std::vector<RunPair> comparable_pairs(std::vector<RunPair> pairs, VariantEffect& row) {
  std::sort(pairs.begin(), pairs.end(), [](const RunPair& a, const RunPair& b) { return a.first->config.seed < b.first->config.seed; });
  const auto& first = *pairs.front().first;
  row.train_len = first.config.data.seq_len;
  row.eval_len = first.report->per_position->seq_len;
  row.unit = nll_unit(first.config);
  row.bytes_per_word = first.report->per_position->bytes_per_word;
  row.readings_changed = readings_changed(first.config);
  std::vector<RunPair> kept;
  for (const auto& p : pairs) {
    if (p.first->report->per_position->seq_len != row.eval_len || p.second->report->per_position->seq_len != row.eval_len) {
      row.notes.push_back(row.variant + ": left out seed " + std::to_string(p.first->config.seed) + ": evaluated to another length than seed " +
                          std::to_string(first.config.seed));
      continue;
    }
    kept.push_back(p);
    row.seeds.push_back(p.first->config.seed);
  }
  return kept;
}

VariantEffect row_of(const SeedGroupRuns& gated, const std::string& baseline, const std::vector<const EffectRun*>& partners) {
  VariantEffect row;
  row.variant = gated.name;
  row.baseline = baseline;
  std::vector<RunPair> pairs;
  for (size_t i = 0; i < gated.runs.size(); ++i)
    if (partners[i]) pairs.emplace_back(gated.runs[i], partners[i]);
  const auto kept = comparable_pairs(std::move(pairs), row);
  row.ranges = eval::diagnosis_ranges(row.train_len, row.eval_len);
  for (const auto& range : row.ranges) {
    std::vector<double> d;  // each seed's gated run minus its baseline
    for (const auto& [g, b] : kept)
      d.push_back(eval::exact_range_mean_nll(*g->report->per_position, range) - eval::exact_range_mean_nll(*b->report->per_position, range));
    row.effects.push_back(eval::t_interval(d));
  }
  return row;
}

}  // namespace

const eval::Interval* VariantEffect::effect(const std::string& range) const {
  for (size_t k = 0; k < ranges.size() && k < effects.size(); ++k)
    if (ranges[k].name == range) return &effects[k];
  return nullptr;
}

std::vector<VariantEffect> variant_effects(const std::vector<EffectRun>& runs) {
  const auto gated = seed_groups_of(runs, true), baselines = seed_groups_of(runs, false);
  std::vector<eval::BaselineCandidate> candidates;
  std::vector<const EffectRun*> of;
  for (const auto& b : baselines)
    for (const auto* r : b.runs) {
      candidates.push_back({r->name, &r->config});
      of.push_back(r);
    }
  const eval::Baselines finder(candidates);
  std::vector<VariantEffect> rows;
  for (const auto& g : gated) {
    std::vector<int> found;
    std::vector<const EffectRun*> partners;
    for (const auto* r : g.runs) {
      found.push_back(finder.find({r->name, &r->config}));
      partners.push_back(found.back() < 0 ? nullptr : of[found.back()]);
    }
    const std::string baseline = finder.baseline_group(found, g.name);
    if (!baseline.empty()) rows.push_back(row_of(g, baseline, partners));
  }
  return rows;
}

bool paper_band_in_unit(const VariantEffect& row, double* lo, double* hi) {
  const double per = row.unit == "nats per word" ? 1.0 : row.unit == "nats per byte" ? row.bytes_per_word : 0.0;
  if (!(per > 0)) return false;
  *lo = kPaperEffectLo / per;  // nats per word / bytes per word = nats per byte
  *hi = kPaperEffectHi / per;
  return true;
}

namespace {

// Rows drawn top to bottom: row i at height rows - i.
double row_y(size_t i, size_t rows) { return static_cast<double>(rows - i); }

// The part of `name` between the affixes (whole "-" separated words) every name shares, so a narrow
// panel shows what tells the rows apart; the names themselves where that leaves one empty or two equal.
std::vector<std::string> row_labels(const std::vector<VariantEffect>& rows, std::string* shared) {
  std::vector<std::string> names;
  for (const auto& r : rows) names.push_back(r.variant);
  if (names.size() < 2) return names;
  size_t pre = names.front().size(), suf = names.front().size();
  for (const auto& n : names) {
    pre = std::min(pre, shared_prefix(names.front(), n));
    suf = std::min(suf, shared_prefix(std::string(names.front().rbegin(), names.front().rend()), std::string(n.rbegin(), n.rend())));
  }
  const std::string& f = names.front();
  while (pre > 0 && f[pre - 1] != '-') --pre;                 // whole words only
  while (suf > 0 && f[f.size() - suf] != '-') --suf;
  std::vector<std::string> out;
  for (const auto& n : names) {
    if (pre + suf >= n.size()) return names;
    out.push_back(n.substr(pre, n.size() - pre - suf));
  }
  for (size_t i = 0; i < out.size(); ++i)
    if (std::count(out.begin(), out.end(), out[i]) > 1) return names;
  if (pre + suf > 0) *shared = f.substr(0, pre) + "*" + f.substr(f.size() - suf);
  return out;
}

size_t reference_row(const std::vector<VariantEffect>& rows, const std::string& reference) {
  // None named: the row read as the paper's default reading, the most seeds among those, the first
  // of equals (a diagnosis folder's reference cell, not whichever variant sorts first).
  if (reference.empty()) {
    size_t best = 0;
    for (size_t i = 1; i < rows.size(); ++i) {
      const auto& a = rows[i];
      const auto& b = rows[best];
      if (a.readings_changed < b.readings_changed ||
          (a.readings_changed == b.readings_changed && a.seeds.size() > b.seeds.size()))
        best = i;
    }
    return best;
  }
  for (size_t i = 0; i < rows.size(); ++i)
    if (rows[i].variant == reference) return i;
  std::string names;
  for (const auto& r : rows) names += (names.empty() ? "" : ", ") + r.variant;
  throw InputError("reference", "'" + reference + "' is not a gated seed group with an E = 1 baseline (the rows: " + names + ")");
}

std::string range_title(const std::string& range) {
  if (range == "all") return "every position";
  if (range == "257-N") return "positions 257 to N";
  if (range == "N-4N") return "positions N to 4N";
  return "positions " + range;
}

// A vertical guide over the rows at x (unnamed: not data).
Series vertical_line(double x, size_t rows, Rgb color, bool dashed) {
  Series s;
  s.x = {x, x};
  s.y = {0.4, static_cast<double>(rows) + 0.6};
  s.color = color;
  s.width = 1.0f;
  s.dashed = dashed;
  return s;
}

// The paper's band behind each row that can carry it, neighbours with the same band as one stripe;
// false when some row cannot (its unit is not per word and no word count converts it).
bool add_paper_band(const std::vector<VariantEffect>& rows, const std::vector<size_t>& drawn, Figure& f) {
  bool every = true;
  Series* stripe = nullptr;
  for (size_t k = 0; k < drawn.size(); ++k) {
    double lo = 0, hi = 0;
    const size_t i = drawn[k];
    if (!paper_band_in_unit(rows[i], &lo, &hi)) {
      every = false;
      stripe = nullptr;
      continue;
    }
    const double y = row_y(i, rows.size());
    const bool joins = stripe && k > 0 && drawn[k - 1] + 1 == i && stripe->x == std::vector<double>{lo, hi};
    if (joins) {
      stripe->lo = {y - 0.45, y - 0.45};  // the stripe grows down to this row
      continue;
    }
    Series s;  // a shaded rectangle: a band with no line (y NaN)
    s.x = {lo, hi};
    s.y = {std::nan(""), std::nan("")};
    s.lo = {y - 0.45, y - 0.45};
    s.hi = {y + 0.45, y + 0.45};
    s.color = palette(2);
    f.series.push_back(std::move(s));
    stripe = &f.series.back();
  }
  return every;
}

// Each drawn row's mean (dots, no line between rows) and its interval as a bar along x.
void add_rows(const std::vector<VariantEffect>& rows, const std::vector<size_t>& drawn, const std::string& range, Figure& f) {
  Series means, bars;
  means.name = "gated - E = 1";
  means.markers = true;
  means.color = bars.color = palette(0);
  const double gap = std::nan("");  // a gap in the data is a gap in the line
  for (size_t i : drawn) {
    const auto& e = *rows[i].effect(range);
    const double y = row_y(i, rows.size());
    if (!means.x.empty()) means.x.push_back(gap), means.y.push_back(gap);
    means.x.push_back(e.mean);
    means.y.push_back(y);
    if (!e.has_interval()) continue;
    if (!bars.x.empty()) bars.x.push_back(gap), bars.y.push_back(gap);
    bars.x.insert(bars.x.end(), {e.lo, e.hi});
    bars.y.insert(bars.y.end(), {y, y});
  }
  f.series.push_back(std::move(bars));
  f.series.push_back(std::move(means));
}

// The x axis in the rows' one unit, or said per row when they differ.
std::string x_label(const std::vector<VariantEffect>& rows) {
  const bool one_unit = std::all_of(rows.begin(), rows.end(), [&](const VariantEffect& r) { return r.unit == rows.front().unit; });
  return "gated minus E = 1, " + (one_unit ? rows.front().unit : std::string("each row's unit (CSV: unit)")) + " (< 0: gating helps)";
}

// What the positions, intervals, lines and band are, in as few lines as a narrow panel allows.
void add_notes(const std::vector<VariantEffect>& rows, const std::vector<size_t>& drawn, const std::string& range,
               const std::string& ref_label, bool band_everywhere, const std::string& shared, Figure& f) {
  const auto& first = rows[drawn.front()];
  const bool one_n = std::all_of(drawn.begin(), drawn.end(), [&](size_t i) { return rows[i].train_len == first.train_len; });
  std::string positions = range;
  for (const auto& r : first.ranges)
    if (r.name == range) positions = "positions " + std::to_string(r.lo) + "-" + std::to_string(r.hi);
  if (!one_n && (range == "257-N" || range == "N-4N" || range == "all")) positions = range + ", N = each row's training length";
  const bool one_seed = std::any_of(drawn.begin(), drawn.end(), [&](size_t i) { return rows[i].effect(range)->n < 2; });
  f.notes.push_back(positions + "; bars: 95% t over seeds" + (one_seed ? " (none where one pairs)" : ""));
  f.notes.push_back("dashed: 0; red: reference, " + ref_label + (shared.empty() ? "" : "; rows: " + shared));
  f.notes.push_back(band_everywhere ? "green: the paper's -0.042 to -0.023 nats per word, in the row's unit"
                                    : "the paper's band is per word (-0.042 to -0.023): not drawn, no word count");
  for (size_t i : drawn)
    for (const auto& n : rows[i].notes) f.notes.push_back(n);
}

}  // namespace

Figure gating_effect_by_variant_figure(const std::vector<VariantEffect>& rows, const std::string& range, const std::string& reference) {
  Figure f;
  if (rows.empty()) return f;
  const size_t ref = reference_row(rows, reference);
  f.title = "Gating effect by variant, " + range_title(range);
  f.legend = false;  // the notes name each mark: a legend would cover rows in a narrow panel
  std::string shared;
  const auto labels = row_labels(rows, &shared);
  std::vector<size_t> drawn;  // the rows with this range
  for (size_t i = rows.size(); i-- > 0;) {  // ascending y: bottom row first
    if (!rows[i].effect(range)) continue;
    f.y.tick_values.push_back(row_y(i, rows.size()));
    f.y.tick_labels.push_back(labels[i] + ", n=" + std::to_string(rows[i].effect(range)->n));
  }
  for (size_t i = 0; i < rows.size(); ++i)
    if (rows[i].effect(range)) drawn.push_back(i);
  if (drawn.empty()) return f;
  f.y.min = 0.4;
  f.y.max = static_cast<double>(rows.size()) + 0.6;
  f.x.label = x_label(rows);
  const bool band_everywhere = add_paper_band(rows, drawn, f);
  f.series.push_back(vertical_line(0, rows.size(), {0.5f, 0.5f, 0.5f}, true));
  if (const auto* e = rows[ref].effect(range); e && std::isfinite(e->mean))
    f.series.push_back(vertical_line(e->mean, rows.size(), palette(1), false));
  add_rows(rows, drawn, range, f);
  add_notes(rows, drawn, range, labels[ref], band_everywhere, shared, f);
  f.data_csv = gating_effect_by_variant_csv(rows, range);
  return f;
}

std::string gating_effect_by_variant_csv(const std::vector<VariantEffect>& rows, const std::string& range) {
  std::vector<std::vector<std::string>> out;
  for (const auto& r : rows)
    for (size_t k = 0; k < r.ranges.size() && k < r.effects.size(); ++k) {
      if (!range.empty() && r.ranges[k].name != range) continue;
      const auto& e = r.effects[k];
      out.push_back({r.variant, r.ranges[k].name, runs::shortest_number(e.mean), runs::shortest_number(e.lo),
                     runs::shortest_number(e.hi), std::to_string(e.n), r.unit});
    }
  return runs::format_csv({"variant", "range", "mean", "lo", "hi", "n", "unit"}, out);
}

std::vector<NamedFigure> gating_effect_by_variant_figures(const std::vector<EffectRun>& runs, const std::string& reference) {
  const auto rows = variant_effects(runs);
  if (rows.empty()) return {};
  std::vector<std::string> ranges;  // every row's ranges, in their order (rows differ only in which they have)
  for (const auto& r : rows) {
    auto at = ranges.begin();
    for (const auto& range : r.ranges) {
      const auto found = std::find(ranges.begin(), ranges.end(), range.name);
      at = found != ranges.end() ? found + 1 : ranges.insert(at, range.name) + 1;
    }
  }
  std::vector<NamedFigure> out;
  auto all = gating_effect_by_variant_figure(rows, "all", reference);
  all.data_csv = gating_effect_by_variant_csv(rows);  // the one table of every cell and range
  out.push_back({"gating_effect_by_variant", std::move(all)});
  for (const auto& range : ranges)
    if (range != "all") out.push_back({"gating_effect_by_variant_" + file_name_part(range), gating_effect_by_variant_figure(rows, range, reference)});
  return out;
}

}  // namespace proteus::figures
