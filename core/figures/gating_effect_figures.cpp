#include "core/figures/gating_effect_figures.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

#include "core/common/input_error.hpp"
#include "core/config/config_json.hpp"
#include "core/config/flat_fields.hpp"
#include "core/eval/paired_points.hpp"
#include "core/eval/statistics.hpp"
#include "core/runs/run_dir.hpp"

namespace proteus::figures {

std::string nll_unit(const config::RunConfig& c) {
  return c.data.tokenizer == config::Tokenizer::bytes ? "nats per byte" : "nats per token";
}

const std::vector<common::Named<EffectRanges>>& name_table(EffectRanges) {
  static const std::vector<common::Named<EffectRanges>> table = {{EffectRanges::regime_map, "map"},
                                                                 {EffectRanges::diagnosis, "diagnosis"}};
  return table;
}

namespace {

using nlohmann::json;
using Flat = std::map<std::string, json>;

Flat flat_config(const config::RunConfig& c) { return config::flat_fields(c, config::JsonForm::as_given); }

// One point of the sweep: a gated seed group and the baselines paired with its seeds.
struct Point {
  Flat fields;
  std::vector<const EffectRun*> gated, baseline;  // by seed, only the paired seeds
};

// The gated runs with a report, each with its baseline among the runs with one (eval::paired_points).
std::vector<Point> paired_points(const std::vector<EffectRun>& runs) {
  std::vector<eval::BaselineCandidate> candidates;
  std::vector<const EffectRun*> of;
  for (const auto& r : runs)
    if (r.report) {
      candidates.push_back({r.name, &r.config});
      of.push_back(&r);
    }
  std::vector<Point> points;
  for (const auto& pp : eval::paired_points(candidates)) {
    Point p{flat_config(of[pp.gated.front()]->config), {}, {}};
    for (size_t i = 0; i < pp.gated.size(); ++i) {
      p.gated.push_back(of[pp.gated[i]]);
      p.baseline.push_back(of[pp.baseline[i]]);
    }
    points.push_back(std::move(p));
  }
  return points;
}

// The fields whose values differ between flat configs (run identity aside: a budget sweep sets
// eval_every to fit its shortest run, and that must not become an axis), each lockstep class once
// (see gating_effect_maps), named by `asked` where it is one of them (config::differing_fields).
std::vector<std::string> varying_fields(const std::vector<Flat>& configs, const std::string& asked) {
  std::vector<const Flat*> of;
  for (const auto& f : configs) of.push_back(&f);
  return config::differing_fields(of, {.lockstep = true, .named_first = asked});
}

bool numeric_everywhere(const std::vector<Point>& points, const std::string& path) {
  return std::all_of(points.begin(), points.end(), [&](const Point& p) {
    const auto it = p.fields.find(path);
    return it != p.fields.end() && it->second.is_number();
  });
}

std::vector<double> cells_of(const eval::NeedleResult& n) {
  std::vector<double> out;
  for (const auto& g : n.forms) out.insert(out.end(), g.score.begin(), g.score.end());
  return out;
}

// The tokens a run trained on (kTrainingTokensX).
double training_tokens(const config::RunConfig& c) {
  return static_cast<double>(c.train.steps) * c.data.batch * c.data.seq_len;
}

// What kTrainingTokensX counts: bytes when the run trained on byte-tokenized text alone (task
// rows keep their own ids), else tokens.
std::string training_positions_unit(const config::RunConfig& c) {
  const bool text_only = std::all_of(c.data.mix.begin(), c.data.mix.end(), [](const config::MixItem& m) { return m.task == "text"; });
  return c.data.tokenizer == config::Tokenizer::bytes && text_only ? "bytes" : "tokens";
}

// One unit for the map, or both named when its runs differ ("nats per byte or nats per token").
std::string one_unit(const std::set<std::string>& units) {
  std::string out;
  for (const auto& u : units) out += (out.empty() ? "" : " or ") + u;
  return out;
}

// The fields whose product is kTrainingTokensX: the axis when it is asked for, never a line.
bool budget_factor(const std::string& path) {
  return path == "train.steps" || path == "data.batch" || path == "data.seq_len";
}

// The effect of every range of one metric at one point; false when the point lacks its data.
bool point_effects(const Point& p, const std::string& metric, EffectRanges range_set, std::vector<eval::PositionRange>* ranges,
                   std::vector<eval::Interval>* effects) {
  effects->clear();
  if (metric == "nll") {
    std::vector<const eval::PerPositionResult*> g, b;
    for (size_t i = 0; i < p.gated.size(); ++i) {
      const auto& rg = p.gated[i]->report->per_position;
      const auto& rb = p.baseline[i]->report->per_position;
      if (!rg || !rb || rg->nll.empty() || rb->nll.empty()) continue;
      g.push_back(&*rg);
      b.push_back(&*rb);
    }
    if (g.empty()) return false;
    const int train_len = p.gated.front()->config.data.seq_len, eval_len = g.front()->seq_len;
    const bool diagnosis = range_set == EffectRanges::diagnosis;
    *ranges = diagnosis ? eval::diagnosis_ranges(train_len, eval_len) : eval::effect_ranges(train_len, eval_len);
    const auto reading = diagnosis ? eval::PositionReading::exact : eval::PositionReading::buckets;
    for (const auto& r : *ranges) effects->push_back(eval::paired_range_effect(g, b, r, reading));
    return true;
  }
  std::vector<std::vector<double>> g, b;
  for (size_t i = 0; i < p.gated.size(); ++i) {
    const auto& rg = *p.gated[i]->report;
    const auto& rb = *p.baseline[i]->report;
    if (metric == "needle" && rg.needle && rb.needle) {
      g.push_back(cells_of(*rg.needle));
      b.push_back(cells_of(*rb.needle));
    } else if (metric == "mqar" && rg.mqar && rb.mqar && rg.mqar->answers > 0 && rb.mqar->answers > 0) {
      g.push_back({100 * rg.mqar->accuracy});
      b.push_back({100 * rb.mqar->accuracy});
    }
  }
  if (g.empty()) return false;
  *ranges = {{"all", 1, 1}};
  effects->push_back(eval::paired_score_effect(g, b));
  return true;
}

std::string metric_title(const std::string& metric) {
  if (metric == "needle") return "token needle accuracy";
  if (metric == "needle_length") return "token needle accuracy by context length";
  if (metric == "mqar") return "MQAR accuracy";
  return "mean NLL";
}

std::string range_words(const eval::PositionRange& r) {
  if (r.name == "first-N16") return "the first N/16 positions";
  if (r.name == "N16-N") return "positions N/16 to N";
  if (r.name == "N-4N") return "positions N to 4N";
  if (r.name == "257-N") return "positions 257 to N";
  if (r.name != "all") return "positions " + std::to_string(r.lo) + " to " + std::to_string(r.hi);
  return "every position";
}

// A value on the x axis as its ticks print large ones ("67.1M"), else to four digits.
std::string x_value_text(double x) {
  if (std::abs(x) >= 1e4) return tick_label(x);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", x);
  return buf;
}

// Where on the x axis: "67.1M training bytes" on the budget axis, "train.steps = 282.8" elsewhere.
std::string x_position(const GatingEffectMap& map, double x) {
  if (map.x_field == kTrainingTokensX) return x_value_text(x) + " training " + map.x_unit;
  return map.x_field + " = " + x_value_text(x);
}

// The effect's unit as the map says it; a map built without one reads nats or points.
std::string effect_unit(const GatingEffectMap& map) {
  if (!map.unit.empty()) return map.unit;
  return map.metric == "nll" ? "nats" : "points";
}

bool log_axis(const std::vector<double>& xs) {
  if (xs.empty() || *std::min_element(xs.begin(), xs.end()) <= 0) return false;
  return *std::max_element(xs.begin(), xs.end()) / *std::min_element(xs.begin(), xs.end()) >= 4;
}

std::vector<const EffectPoint*> line_points(const GatingEffectMap& map, const std::string& line, const std::string& range) {
  std::vector<const EffectPoint*> out;
  for (const auto& p : map.points)
    if (p.line == line && p.range == range && std::isfinite(p.effect.mean)) out.push_back(&p);
  std::stable_sort(out.begin(), out.end(), [](const EffectPoint* a, const EffectPoint* b) { return a->x < b->x; });
  return out;
}

// Whether the map's x axis is logarithmic: over every point's x, as the figure and zero_crossings read it.
bool map_log_axis(const GatingEffectMap& map) {
  std::vector<double> xs;
  for (const auto& p : map.points) xs.push_back(p.x);
  return log_axis(xs);
}

// The least-squares line through one line's means against u (eval::fit_line), nullopt under three distinct x values.
std::optional<TrendFit> fit_line(const std::vector<const EffectPoint*>& pts, bool log) {
  std::set<double> distinct;
  std::vector<double> xs, ys;
  for (const auto* p : pts) distinct.insert(p->x), xs.push_back(p->x), ys.push_back(p->effect.mean);
  if (distinct.size() < 3) return std::nullopt;
  TrendFit f;
  static_cast<eval::LineFit&>(f) = eval::fit_line(xs, ys, log);
  f.line = pts.front()->line;
  f.range = pts.front()->range;
  return f;
}

// "-0.093", "+1.1": a slope's sign always shown.
std::string signed_digits(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.3g", x);
  return buf;
}

// "trend: -0.093 nats per byte per doubling [-0.139, -0.047] (least squares over 5 points, t 3 df);
// crosses zero near train.steps = 1000 (extrapolated)", the line's name first when the map has several.
std::string trend_note(const GatingEffectMap& map, const TrendFit& t) {
  const std::string unit = " " + effect_unit(map);
  const std::string per = t.log_x ? " per doubling" : " per unit of " + map.x_field;
  std::string note = (t.line.empty() ? "" : t.line + ": ") + std::string("trend: ") + signed_digits(t.slope) + unit + per +
                     " [" + signed_digits(t.slope_lo) + ", " + signed_digits(t.slope_hi) + "] (least squares over " +
                     std::to_string(t.points) + " points, t " + std::to_string(t.points - 2) + " df); ";
  if (!std::isfinite(t.zero_x)) return note + "flat: no zero crossing";
  return note + "crosses zero near " + x_position(map, t.zero_x) +
         (t.zero_inside ? " (within the runs)" : " (extrapolated)");
}

// The fitted line as an unnamed dashed guide in the line's colour over the measured x range, at
// points evenly spaced in u so it stays straight on either axis.
Series trend_series(const TrendFit& t, double x_lo, double x_hi, Rgb color) {
  Series s;  // unnamed: a guide, not data (as the zero line)
  const auto axis = [&](double v) { return t.log_x ? std::log2(v) : v; };
  constexpr int kSteps = 4;
  for (int i = 0; i <= kSteps; ++i) {
    const double u = axis(x_lo) + (axis(x_hi) - axis(x_lo)) * i / kSteps;
    s.x.push_back(t.log_x ? std::exp2(u) : u);
    s.y.push_back(t.intercept + t.slope * u);
  }
  s.color = color;
  s.width = 1.0f;
  s.dashed = true;
  return s;
}

// options.x_field when it names a numeric swept field (else InputError "x"); by default the first
// numeric swept field other than E, else E; "" when nothing numeric was swept.
std::string choose_x_field(const std::vector<std::string>& swept, const std::vector<Point>& points,
                           const GatingEffectOptions& options) {
  const auto swept_list = [&] {
    std::string s;
    for (const auto& f : swept) s += (s.empty() ? "" : ", ") + f;
    return s.empty() ? std::string("nothing") : s;
  };
  if (options.x_field == kTrainingTokensX) {
    if (std::none_of(swept.begin(), swept.end(), budget_factor))
      throw InputError("x", std::string("'") + kTrainingTokensX +
                                "' needs gated runs trained on different numbers of tokens (train.steps, data.batch or "
                                "data.seq_len); they differ in: " + swept_list());
    return options.x_field;
  }
  if (!options.x_field.empty()) {
    const auto& x = options.x_field;
    if (std::find(swept.begin(), swept.end(), x) == swept.end() || !numeric_everywhere(points, x))
      throw InputError("x", "'" + x + "' is not a numeric field the gated runs differ in (they differ in: " + swept_list() + ")");
    return x;
  }
  for (const auto& f : swept)
    if (f != "model.mixer.E" && numeric_everywhere(points, f)) return f;
  if (std::find(swept.begin(), swept.end(), "model.mixer.E") != swept.end()) return "model.mixer.E";
  return "";
}

// "d_head=32, rule=delta": the point's values of the line fields.
std::string line_label(const Point& p, const std::vector<std::string>& line_fields) {
  std::string line;
  for (const auto& f : line_fields) {
    const auto it = p.fields.find(f);
    line += (line.empty() ? "" : ", ") + std::string(config::last_component(f)) + "=" +
            (it == p.fields.end() ? "-" : config::field_text(it->second));
  }
  return line;
}

// One metric's map over the points that have its data; nullopt with fewer than two x values.
std::optional<GatingEffectMap> metric_map(const std::string& metric, const std::vector<Point>& points, const std::string& x,
                                          const std::vector<std::string>& line_fields, EffectRanges range_set) {
  GatingEffectMap map;
  map.metric = metric;
  map.x_field = x;
  map.line_fields = line_fields;
  map.ranges_read = metric == "nll" ? range_set : EffectRanges::regime_map;
  std::set<double> xs;
  std::set<int> seed_counts;
  std::set<std::string> units, x_units;
  for (const auto& p : points) {
    std::vector<eval::PositionRange> ranges;
    std::vector<eval::Interval> effects;
    try {
      if (!point_effects(p, metric, range_set, &ranges, &effects)) continue;
    } catch (const std::invalid_argument& e) {
      map.notes.push_back(std::string("left out a point: ") + e.what());
      continue;
    }
    const std::string line = line_label(p, line_fields);
    if (std::find(map.lines.begin(), map.lines.end(), line) == map.lines.end()) map.lines.push_back(line);
    if (map.ranges.empty()) map.ranges = ranges;
    const double xv = x == kTrainingTokensX ? training_tokens(p.gated.front()->config) : p.fields.at(x).get<double>();
    xs.insert(xv);
    seed_counts.insert(static_cast<int>(p.gated.size()));
    units.insert(metric == "nll" ? nll_unit(p.gated.front()->config) : "points");
    x_units.insert(training_positions_unit(p.gated.front()->config));
    for (size_t k = 0; k < ranges.size(); ++k) map.points.push_back({xv, line, ranges[k].name, effects[k]});
  }
  if (xs.size() < 2) return std::nullopt;
  map.unit = one_unit(units);
  if (x_units.size() == 1) map.x_unit = *x_units.begin();
  const auto line_index = [&](const std::string& l) { return std::find(map.lines.begin(), map.lines.end(), l) - map.lines.begin(); };
  std::stable_sort(map.points.begin(), map.points.end(), [&](const EffectPoint& a, const EffectPoint& b) {
    if (a.line != b.line) return line_index(a.line) < line_index(b.line);
    if (a.range != b.range) return a.range < b.range;
    return a.x < b.x;
  });
  if (*seed_counts.rbegin() >= 2) map.notes.push_back("intervals: 95% t over seeds (each seed's run minus its E = 1 baseline)");
  const bool exact = metric == "nll" && range_set == EffectRanges::diagnosis;
  if (seed_counts.count(1) > 0 && metric != "mqar")
    map.notes.push_back(metric != "nll" ? "one seed: 95% bootstrap over the grid's paired cells"
                        : exact         ? "one seed: 95% bootstrap over the shared evaluation sequences (every position only)"
                                        : "one seed: 95% bootstrap over the shared evaluation sequences");
  return map;
}

// One form's depth cells at one context length of a needle grid; empty when the grid lacks them.
std::vector<double> depth_cells(const eval::NeedleResult& n, const std::string& form, int length) {
  for (const auto& g : n.forms) {
    if (g.task != form) continue;
    const auto at = std::find(g.lengths.begin(), g.lengths.end(), length);
    if (at == g.lengths.end()) return {};
    std::vector<double> cells;
    for (size_t d = 0; d < g.depths.size(); ++d) cells.push_back(g.at(d, static_cast<size_t>(at - g.lengths.begin())));
    return cells;
  }
  return {};
}

// One point's needle effect at every (form, length) of its first gated run's grid, x = the length.
void add_needle_length_points(const Point& p, const std::string& label, GatingEffectMap& map, std::set<int>& seed_counts) {
  const auto& grid = *p.gated.front()->report->needle;
  for (const auto& form : grid.forms) {
    const std::string line = label.empty() ? form.task : form.task + ", " + label;
    for (int length : form.lengths) {
      std::vector<std::vector<double>> g, b;
      for (size_t i = 0; i < p.gated.size(); ++i) {
        const auto& rg = p.gated[i]->report->needle;
        const auto& rb = p.baseline[i]->report->needle;
        if (!rg || !rb) continue;
        g.push_back(depth_cells(*rg, form.task, length));
        b.push_back(depth_cells(*rb, form.task, length));
      }
      try {
        map.points.push_back({static_cast<double>(length), line, "all", eval::paired_score_effect(g, b)});
      } catch (const std::invalid_argument& e) {
        map.notes.push_back("left out " + line + " at " + std::to_string(length) + ": " + e.what());
        continue;
      }
      if (std::find(map.lines.begin(), map.lines.end(), line) == map.lines.end()) map.lines.push_back(line);
      seed_counts.insert(static_cast<int>(g.size()));
    }
  }
}

// Claim (c)'s figure: the needle effect against the context length it was asked at, a line per
// form (and per gated point when several), nullopt unless some grid has two or more lengths.
std::optional<GatingEffectMap> needle_length_map(const std::vector<Point>& points, const std::vector<std::string>& line_fields) {
  GatingEffectMap map;
  map.metric = "needle_length";
  map.x_field = "context length (tokens)";
  map.unit = "points";
  map.ranges = {{"all", 1, 1}};
  std::set<int> seed_counts, train_lengths;
  for (const auto& p : points) {
    const auto& r = p.gated.front()->report;
    if (!r->needle || r->needle->forms.empty() || r->needle->forms.front().lengths.size() < 2) continue;
    add_needle_length_points(p, line_label(p, line_fields), map, seed_counts);
    train_lengths.insert(p.gated.front()->config.data.seq_len);
  }
  if (map.points.empty()) return std::nullopt;
  if (train_lengths.size() == 1) map.notes.push_back("training length N = " + std::to_string(*train_lengths.begin()) + " tokens");
  if (*seed_counts.rbegin() >= 2) map.notes.push_back("intervals: 95% t over seeds (each seed's run minus its E = 1 baseline)");
  if (seed_counts.count(1) > 0) map.notes.push_back("one seed: 95% bootstrap over the paired depth cells at each length");
  return map;
}

}  // namespace

std::vector<GatingEffectMap> gating_effect_maps(const std::vector<EffectRun>& runs, const GatingEffectOptions& options) {
  const auto points = paired_points(runs);
  if (points.size() < 2) return {};
  std::vector<Flat> flats;
  for (const auto& p : points) flats.push_back(p.fields);
  const bool by_tokens = options.x_field == kTrainingTokensX;
  // A budget's lockstep class (train.warmup scaled with train.steps) is named by its factor.
  const auto swept = varying_fields(flats, by_tokens ? "train.steps" : options.x_field);
  const std::string x = choose_x_field(swept, points, options);
  if (x.empty()) return {};  // nothing numeric was swept: the per-run figures say it all
  std::vector<std::string> line_fields;
  for (const auto& f : swept)
    if (f != x && !(by_tokens && budget_factor(f))) line_fields.push_back(f);
  std::set<int> lengths;
  for (const auto& p : points) lengths.insert(p.gated.front()->config.data.seq_len);
  std::vector<GatingEffectMap> maps;
  for (const std::string metric : {"nll", "needle", "mqar"})
    if (auto map = metric_map(metric, points, x, line_fields, options.ranges)) {
      map->lengths_differ = lengths.size() > 1;
      maps.push_back(std::move(*map));
    }
  return maps;
}

std::vector<ZeroCrossing> zero_crossings(const GatingEffectMap& map) {
  std::vector<ZeroCrossing> out;
  const bool log = map_log_axis(map);
  const auto axis = [&](double v) { return log ? std::log2(v) : v; };
  for (const auto& line : map.lines)
    for (const auto& range : map.ranges) {
      const auto pts = line_points(map, line, range.name);
      for (size_t i = 0; i < pts.size(); ++i) {
        const double m = pts[i]->effect.mean;
        if (m == 0) {
          out.push_back({line, range.name, pts[i]->x});
          continue;
        }
        if (i + 1 >= pts.size()) continue;
        const double n = pts[i + 1]->effect.mean;
        if (n == 0 || (m < 0) == (n < 0)) continue;
        const double a = axis(pts[i]->x), b = axis(pts[i + 1]->x);
        const double at = a + (b - a) * m / (m - n);
        out.push_back({line, range.name, log ? std::exp2(at) : at});
      }
    }
  return out;
}

std::vector<TrendFit> trend_fits(const GatingEffectMap& map) {
  const bool log = map_log_axis(map);
  std::vector<TrendFit> out;
  for (const auto& line : map.lines)
    for (const auto& range : map.ranges)
      if (auto fit = fit_line(line_points(map, line, range.name), log)) out.push_back(std::move(*fit));
  return out;
}

namespace {

// The fits of one range as the trend CSV (gating_effect_trend_csv's columns).
std::string trend_csv(const std::vector<TrendFit>& fits, const std::string& range) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& t : fits)
    if (t.range == range)
      rows.push_back({t.line, t.range, std::to_string(t.points), runs::shortest_number(t.slope),
                      runs::shortest_number(t.slope_lo), runs::shortest_number(t.slope_hi),
                      runs::shortest_number(t.intercept), runs::shortest_number(t.zero_x), t.zero_inside ? "1" : "0",
                      t.log_x ? "log2" : "linear"});
  return runs::format_csv({"line", "range", "points", "slope", "slope_lo", "slope_hi", "intercept", "zero_x", "zero_inside", "axis"},
                          rows);
}

// The range's trend lines (after the zero line, so the data series keep their places) and notes.
void add_trends(const GatingEffectMap& map, const std::string& range, Figure& f) {
  const auto fits = trend_fits(map);
  bool any = false;
  for (const auto& t : fits) {
    if (t.range != range) continue;
    const auto pts = line_points(map, t.line, range);
    const auto l = std::find(map.lines.begin(), map.lines.end(), t.line) - map.lines.begin();
    f.series.push_back(trend_series(t, pts.front()->x, pts.back()->x, palette(static_cast<int>(l))));
    f.notes.push_back(trend_note(map, t));
    any = true;
  }
  if (any) f.extra_csv.push_back({"trend", trend_csv(fits, range)});
}

}  // namespace

Figure gating_effect_figure(const GatingEffectMap& map, const std::string& range) {
  Figure f;
  const auto r = std::find_if(map.ranges.begin(), map.ranges.end(), [&](const eval::PositionRange& x) { return x.name == range; });
  const bool nll = map.metric == "nll";
  f.title = "Gating minus E = 1: " + metric_title(map.metric) + (nll && r != map.ranges.end() ? ", " + range_words(*r) : "");
  f.x.label = map.x_field == kTrainingTokensX ? "training " + map.x_unit + " (train.steps x data.batch x data.seq_len)" : map.x_field;
  f.y.label = nll ? "difference in mean NLL (" + effect_unit(map) + "; < 0: gating helps)"
                  : "difference in accuracy (" + effect_unit(map) + "; > 0: gating helps)";
  std::vector<double> xs;
  for (size_t l = 0; l < map.lines.size(); ++l) {
    Series s;
    s.name = map.lines[l].empty() ? "gated - baseline" : map.lines[l];
    s.color = palette(static_cast<int>(l));
    s.markers = true;
    const auto pts = line_points(map, map.lines[l], range);
    const bool bars = std::any_of(pts.begin(), pts.end(), [](const EffectPoint* p) { return p->effect.has_interval(); });
    for (const auto* p : pts) {
      s.x.push_back(p->x);
      s.y.push_back(p->effect.mean);
      if (bars) s.lo.push_back(p->effect.lo), s.hi.push_back(p->effect.hi);
      xs.push_back(p->x);
    }
    s.error_bars = bars;
    f.series.push_back(std::move(s));
  }
  if (!xs.empty()) {
    Series zero;  // unnamed: a guide, not data
    zero.x = {*std::min_element(xs.begin(), xs.end()), *std::max_element(xs.begin(), xs.end())};
    zero.y = {0, 0};
    zero.color = {0.5f, 0.5f, 0.5f};
    zero.width = 1.0f;
    zero.dashed = true;
    f.series.push_back(std::move(zero));
  }
  if (log_axis(xs)) f.x.scale = Scale::log;
  std::set<double> ticks(xs.begin(), xs.end());
  if (ticks.size() <= 8) f.x.tick_values.assign(ticks.begin(), ticks.end());
  f.legend = map.lines.size() > 1 || (map.lines.size() == 1 && !map.lines.front().empty());
  const bool exact = map.ranges_read == EffectRanges::diagnosis;
  const std::string reading = exact ? "position by position" : "by whole buckets";
  // The diagnosis's first ranges are fixed positions, true at every training length.
  const bool fixed = exact && r != map.ranges.end() && r->name.find('N') == std::string::npos && r->name != "all";
  if (nll && r != map.ranges.end() && (!map.lengths_differ || fixed))
    f.notes.push_back("positions " + std::to_string(r->lo) + "-" + std::to_string(r->hi) + " (N = training length; " + reading + ")");
  else if (nll && r != map.ranges.end())  // N moves with the swept field: no one range of positions is true
    f.notes.push_back("positions in units of each point's training length N (" + reading + ")");
  for (const auto& n : map.notes) f.notes.push_back(n);
  // math.md section 7: with n = 1 there is no interval, and the figure of that range says so.
  if (std::any_of(map.points.begin(), map.points.end(), [&](const EffectPoint& e) { return e.range == range && !e.effect.has_interval(); }))
    f.notes.push_back(map.metric == "mqar" ? "no interval where one seed was trained (MQAR keeps no per-sample record)"
                      : exact              ? "no interval where n = 1 (one seed: a run keeps each sequence's loss by bucket, not by position)"
                                           : "no interval where n = 1 (one seed, evaluated on other sequences than its baseline)");
  for (const auto& z : zero_crossings(map))
    if (z.range == range)
      f.notes.push_back((z.line.empty() ? std::string("the mean crosses zero") : z.line + ": the mean crosses zero") +
                        " near " + x_position(map, z.x));
  add_trends(map, range, f);
  f.data_csv = gating_effect_csv(map, range);
  return f;
}

std::string gating_effect_csv(const GatingEffectMap& map, const std::string& range) {
  std::vector<std::string> header = {"x", "range", "mean", "lo", "hi", "n"};
  const bool lines = map.lines.size() > 1;
  if (lines) header.push_back("line");
  std::vector<std::vector<std::string>> rows;
  for (const auto& line : map.lines)
    for (const auto* p : line_points(map, line, range)) {
      std::vector<std::string> row = {runs::shortest_number(p->x), p->range, runs::shortest_number(p->effect.mean),
                                      runs::shortest_number(p->effect.lo), runs::shortest_number(p->effect.hi),
                                      std::to_string(p->effect.n)};
      if (lines) row.push_back(p->line);
      rows.push_back(std::move(row));
    }
  return runs::format_csv(header, rows);
}

std::string gating_effect_trend_csv(const GatingEffectMap& map, const std::string& range) {
  return trend_csv(trend_fits(map), range);
}

std::optional<GatingEffectMap> needle_effect_by_length(const std::vector<EffectRun>& runs) {
  const auto points = paired_points(runs);
  if (points.empty()) return std::nullopt;
  std::vector<Flat> flats;
  for (const auto& p : points) flats.push_back(p.fields);
  return needle_length_map(points, points.size() > 1 ? varying_fields(flats, "") : std::vector<std::string>{});
}

std::vector<NamedFigure> gating_effect_figures(const std::vector<EffectRun>& runs, const GatingEffectOptions& options) {
  std::vector<NamedFigure> out;
  if (auto by_length = needle_effect_by_length(runs)) out.push_back({"gating_effect_needle_by_length", gating_effect_figure(*by_length, "all")});
  for (const auto& map : gating_effect_maps(runs, options)) {
    if (map.metric != "nll") {
      out.push_back({"gating_effect_" + map.metric, gating_effect_figure(map, "all")});
      continue;
    }
    for (const auto& r : map.ranges) out.push_back({"gating_effect_nll_" + file_name_part(r.name), gating_effect_figure(map, r.name)});
  }
  return out;
}

}  // namespace proteus::figures
