#include "core/config/mixer_schedule.hpp"
#include "core/figures/explore_figures.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace proteus::figures {
namespace {

// The bucket curve of one result: each bucket at its geometric centre, exp of the mean and of
// its interval ends.
Series bucket_series(const eval::PerPositionResult& r, const std::string& name, int palette_index) {
  Series s;
  s.name = name;
  s.color = palette(palette_index);
  s.markers = true;
  const bool bands = r.bucket_interval.size() == r.bucket_nll.size();
  for (size_t k = 0; k < r.bucket_nll.size() && k < r.bucket_lo.size(); ++k) {
    if (!std::isfinite(r.bucket_nll[k])) continue;
    s.x.push_back(std::sqrt(static_cast<double>(r.bucket_lo[k]) * r.bucket_hi[k]));
    s.y.push_back(std::exp(r.bucket_nll[k]));
    if (bands) {
      s.lo.push_back(std::exp(r.bucket_interval[k].lo));
      s.hi.push_back(std::exp(r.bucket_interval[k].hi));
    }
  }
  return s;
}

Series dashed_line(double x0, double y0, double x1, double y1) {
  Series s;
  s.x = {x0, x1};
  s.y = {y0, y1};
  s.color = {0.45f, 0.45f, 0.45f};
  s.dashed = true;
  s.width = 1.0f;
  return s;
}

void add_train_len(Figure& f, int train_len) {
  if (train_len <= 0) return;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const auto& s : f.series)
    for (size_t i = 0; i < s.y.size(); ++i) {
      lo = std::min({lo, s.y[i], s.lo.empty() ? s.y[i] : s.lo[i]});
      hi = std::max({hi, s.y[i], s.hi.empty() ? s.y[i] : s.hi[i]});
    }
  if (!(lo <= hi)) return;
  f.series.push_back(dashed_line(train_len, lo, train_len, hi));
  f.notes.push_back("dashed line: training length " + std::to_string(train_len));
}

}  // namespace

Figure explore_curve_figure(const eval::PerPositionResult& trained, const eval::PerPositionResult* edited,
                            const std::string& edit_label, int train_len) {
  Figure f;
  f.title = "Perplexity by position: trained vs edited schedule";
  f.x.label = "position";
  f.x.scale = Scale::log;
  f.y.label = "perplexity";
  f.series.push_back(bucket_series(trained, "trained schedule", 0));
  if (edited) f.series.push_back(bucket_series(*edited, edit_label.empty() ? "edited" : edit_label, 1));
  f.notes.push_back("mean over " + std::to_string(trained.sequences) +
                    " held-out sequences, bands: 95% bootstrap over sequences");
  for (const auto* r : {&trained, edited})
    if (r && r->partial())  // still arriving: the band narrows as the rest come
      f.notes.push_back((r == &trained ? "trained" : "edited") + std::string(": ") + std::to_string(r->sequences) +
                        " of " + std::to_string(r->sequences_total) + " sequences so far");
  add_train_len(f, train_len);
  return f;
}

Figure explore_ratio_figure(const eval::PerPositionResult& trained, const eval::PerPositionResult& edited,
                            const std::string& edit_label, int train_len) {
  Figure f;
  f.title = "Perplexity ratio: edited / trained schedule";
  f.x.label = "position";
  f.x.scale = Scale::log;
  f.y.label = "perplexity ratio";
  Series s;
  s.name = edit_label.empty() ? "edited" : edit_label;
  s.color = palette(1);
  s.markers = true;
  std::vector<eval::Interval> diff;
  try {
    diff = eval::paired_bucket_difference(edited, trained);
  } catch (const std::invalid_argument&) {
    // Not the same sequences (another eval setting): the ratio of bucket means, no band.
  }
  const size_t K = std::min(trained.bucket_nll.size(), edited.bucket_nll.size());
  // While one curve is partial its mean is over fewer sequences: the point is the paired mean then.
  const bool on_prefix = diff.size() == K && (edited.partial() || trained.partial());
  for (size_t k = 0; k < K; ++k) {
    const double d = on_prefix ? diff[k].mean : edited.bucket_nll[k] - trained.bucket_nll[k];
    if (!std::isfinite(d)) continue;
    s.x.push_back(std::sqrt(static_cast<double>(trained.bucket_lo[k]) * trained.bucket_hi[k]));
    s.y.push_back(std::exp(d));
    if (diff.size() == K) {
      s.lo.push_back(std::exp(diff[k].lo));
      s.hi.push_back(std::exp(diff[k].hi));
    }
  }
  if (!s.x.empty()) {
    const double x0 = s.x.front(), x1 = s.x.back();
    f.series.push_back(std::move(s));
    f.series.push_back(dashed_line(x0, 1, x1, 1));
  }
  f.notes.push_back(diff.empty() ? "ratio of bucket means (not the same sequences: no interval)"
                                 : "band: 95% bootstrap of the paired difference over sequences");
  if (!diff.empty() && (edited.partial() || trained.partial()))
    f.notes.push_back("paired over the first " + std::to_string(std::min(edited.sequences, trained.sequences)) +
                      " sequences so far");
  add_train_len(f, train_len);
  return f;
}

Figure sweep_figure(const std::string& axis, const std::vector<SweepCurve>& points,
                    const eval::PerPositionResult* trained, int train_len) {
  Figure f;
  f.title = axis == "N" ? "Inference sweep over the horizon N" : "Inference sweep over E";
  f.x.label = axis == "N" ? "horizon N (positions)" : "E (memory blocks)";
  f.x.scale = Scale::log;
  f.y.label = "mean perplexity over positions";
  f.legend = false;
  Series s;
  s.color = palette(1);
  s.markers = true;
  s.name = "";
  int sequences = 0;
  for (const auto& p : points) {
    f.x.tick_values.push_back(p.x);
    if (!p.per_position) continue;
    const auto& i = p.per_position->mean_interval;
    s.x.push_back(p.x);
    s.y.push_back(std::exp(p.per_position->mean_nll));
    s.lo.push_back(std::exp(i.lo));
    s.hi.push_back(std::exp(i.hi));
    sequences = p.per_position->sequences;
  }
  if (s.lo.size() != s.x.size()) s.lo.clear(), s.hi.clear();
  s.name = "edited";
  f.legend = true;
  const double x0 = points.empty() ? 1 : points.front().x, x1 = points.empty() ? 1 : points.back().x;
  f.series.push_back(std::move(s));
  if (trained) {
    Series t = dashed_line(x0, std::exp(trained->mean_nll), x1, std::exp(trained->mean_nll));
    t.name = "trained schedule";
    f.series.push_back(std::move(t));
  }
  if (sequences > 0)
    f.notes.push_back("mean over " + std::to_string(sequences) + " sequences, band: 95% bootstrap over sequences");
  if (axis == "N" && train_len > 0) f.notes.push_back("training length " + std::to_string(train_len));
  return f;
}

std::vector<NamedFigure> explore_figures(const ExploreResults& r) {
  std::vector<NamedFigure> out;
  if (!r.trained || !r.trained->per_position) return out;
  const auto* edited_pp = r.edited && r.edited->per_position ? &*r.edited->per_position : nullptr;
  out.push_back({"explore_per_position", explore_curve_figure(*r.trained->per_position, edited_pp, r.edit_label, r.train_len)});
  if (edited_pp)
    out.push_back({"explore_ratio", explore_ratio_figure(*r.trained->per_position, *edited_pp, r.edit_label, r.train_len)});
  if (r.edited_config && r.edited_config->model.mixer.type == config::MixerType::memory) {
    const auto& m = r.edited_config->model.mixer;
    const int64_t N = config::resolved_mixer_horizon(*r.edited_config);
    const int64_t horizon = std::max<int64_t>(N + 1, edited_pp ? edited_pp->seq_len : 2 * N);
    auto f = activation_map_figure(config::schedule_from_config(m, N), horizon, r.edit_label);
    out.push_back({"explore_activation_map", std::move(f)});
  }
  if (r.trained->occupancy && r.trained->occupancy->layers > 0)
    out.push_back({"explore_occupancy_trained", occupancy_figure(*r.trained->occupancy, 0, 0, r.run + " (trained)")});
  if (r.edited && r.edited->occupancy && r.edited->occupancy->layers > 0)
    out.push_back({"explore_occupancy_edited", occupancy_figure(*r.edited->occupancy, 0, 0, r.run + " (" + r.edit_label + ")")});
  return out;
}

}  // namespace proteus::figures
