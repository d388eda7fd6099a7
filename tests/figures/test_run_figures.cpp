// The builders from run results to figures, on hand-made data: series per run, names, axes, the
// NIAH and occupancy grids, the activation map against the schedule's own mask, the E ablation,
// and standard_figures over hand-written run directories.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <random>

#include "core/figures/figure_set.hpp"
#include "core/common/input_error.hpp"
#include "core/runs/run_dir.hpp"

namespace {

using namespace proteus;
using namespace proteus::figures;
namespace fs = std::filesystem;

eval::PerPositionResult per_position(int T, double base) {
  eval::PerPositionResult r;
  r.seq_len = T;
  r.sequences = 3;
  for (int t = 1; t <= T; ++t) r.nll.push_back(base + 1.0 / t);
  for (const auto& [lo, hi] : eval::log_buckets(T, 8)) {
    r.bucket_lo.push_back(lo);
    r.bucket_hi.push_back(hi);
    double s = 0;
    for (int t = lo; t <= hi; ++t) s += r.nll[t - 1];
    r.bucket_nll.push_back(s / (hi - lo + 1));
  }
  return r;
}

TEST(LossCurves, FromMetricsLines) {
  const std::vector<nlohmann::json> m = {
      {{"step", 1}, {"loss", 5.0}},
      {{"step", 2}, {"loss", 4.0}, {"val_bpb", 3.5}},
      {{"loss", 1.0}},                      // no step: skipped
      {{"step", 3}, {"loss", "bad"}},       // not a number: skipped
      {{"step", 4}, {"loss", 3.0}, {"val_bpb", 3.0}},
  };
  const auto c = loss_curve("base", m);
  EXPECT_EQ(c.step, (std::vector<double>{1, 2, 4}));
  EXPECT_EQ(c.loss, (std::vector<double>{5, 4, 3}));
  EXPECT_EQ(c.val_step, (std::vector<double>{2, 4}));
  EXPECT_EQ(c.val_bpb, (std::vector<double>{3.5, 3}));

  const auto f = loss_figure({c, loss_curve("proteus", m)});
  ASSERT_EQ(f.series.size(), 2u);
  EXPECT_EQ(f.series[0].name, "base");
  EXPECT_EQ(f.series[1].name, "proteus");
  EXPECT_NE(f.series[0].color, f.series[1].color);
  const auto v = val_bpb_figure({c});
  ASSERT_EQ(v.series.size(), 1u);
  EXPECT_TRUE(v.series[0].dashed);
  EXPECT_EQ(v.series[0].y, c.val_bpb);
}

TEST(PerPosition, OneSeriesPerRunOnALogAxis) {
  const auto a = per_position(64, 2.0), b = per_position(64, 1.8);
  const auto f = per_position_figure({{"baseline", a}, {"proteus", b}}, 32);
  EXPECT_EQ(f.x.scale, Scale::log);
  ASSERT_EQ(f.series.size(), 3u) << "two runs and the training-length line";
  EXPECT_EQ(f.series[0].name, "baseline");
  EXPECT_EQ(f.series[1].name, "proteus");
  EXPECT_TRUE(f.series[2].name.empty()) << "the guide stays out of the legend";
  EXPECT_EQ(f.series[2].x, (std::vector<double>{32, 32}));
  EXPECT_EQ(f.series[0].x.size(), a.bucket_lo.size());
  EXPECT_NEAR(f.series[0].y[0], std::exp(a.bucket_nll[0]), 1e-12);
  const auto raw = per_position_figure({{"baseline", a}}, 0, false);
  ASSERT_EQ(raw.series.size(), 1u);
  EXPECT_EQ(raw.series[0].x.size(), 64u);
  EXPECT_EQ(raw.series[0].x.front(), 1);
}

TEST(PerPosition, RatioToTheFirstRun) {
  const auto a = per_position(64, 2.0), b = per_position(64, 1.8), c = per_position(40, 2.1);
  const auto f = perplexity_ratio_figure({{"baseline", a}, {"proteus", b}, {"short", c}});
  ASSERT_GE(f.series.size(), 2u);
  EXPECT_EQ(f.series[0].name, "proteus");
  EXPECT_EQ(f.series[1].name, "short");
  for (double y : f.series[0].y) EXPECT_NEAR(y, std::exp(-0.2), 1e-9);
  for (double x : f.series[1].x) EXPECT_LE(x, 40) << "only positions both runs cover";
  const bool has_one = std::any_of(f.series.begin(), f.series.end(), [](const Series& s) {
    return s.name.empty() && s.y == std::vector<double>{1, 1};
  });
  EXPECT_TRUE(has_one);
  EXPECT_TRUE(perplexity_ratio_figure({{"alone", a}}).series.empty());
}

TEST(Niah, DepthRowsByLengthColumns) {
  eval::NiahTaskGrid g;
  g.task = "s-niah-1";
  g.lengths = {128, 256, 512};
  g.depths = {0, 50, 100};
  g.score = {100, 100, 50, 100, 66.7, 0, 100, 33.3, 0};
  g.mean = 61.1;
  const auto f = niah_heatmap_figure(g, "proteus");
  ASSERT_TRUE(f.heatmap);
  const auto& h = *f.heatmap;
  EXPECT_EQ(h.rows, 3);
  EXPECT_EQ(h.cols, 3);
  EXPECT_EQ(h.values, g.score);
  EXPECT_EQ(h.x_tick_labels, (std::vector<std::string>{"128", "256", "512"}));
  EXPECT_EQ(h.y_tick_labels, (std::vector<std::string>{"0", "50", "100"}));
  EXPECT_GT(h.y_edges[0], h.y_edges[1]) << "depth 0% on top";
  EXPECT_EQ(h.vmin, 0);
  EXPECT_EQ(h.vmax, 100);
  EXPECT_TRUE(h.annotate);
  EXPECT_NE(f.title.find("s-niah-1"), std::string::npos);
}

TEST(Occupancy, PositionByBlockOfOneHead) {
  eval::OccupancyResult o;
  o.layers = 2;
  o.heads = 2;
  o.seq_len = 5;
  o.blocks = 3;
  o.norms.resize(2 * 2 * 5 * 3);
  for (size_t i = 0; i < o.norms.size(); ++i) o.norms[i] = static_cast<float>(i);
  const auto f = occupancy_figure(o, 1, 0, "run", true);
  ASSERT_TRUE(f.heatmap);
  const auto& h = *f.heatmap;
  EXPECT_EQ(h.rows, 3);
  EXPECT_EQ(h.cols, 5);
  for (int b = 0; b < 3; ++b)
    for (int t = 0; t < 5; ++t) EXPECT_EQ(h.values[b * 5 + t], o.at(1, 0, t, b));
  EXPECT_EQ(f.x.scale, Scale::log);
  EXPECT_GT(h.x_edges.front(), 0) << "edges fit a log axis";
  EXPECT_EQ(h.vmax, o.at(1, 0, 4, 2));
  EXPECT_THROW(occupancy_figure(o, 2, 0, "run"), InputError);
  EXPECT_THROW(occupancy_figure(o, 0, -1, "run"), InputError);
}

TEST(ActivationMap, CellsAreTheSchedulesMask) {
  const auto s = memory::Schedule::uniform(16, 4, 16);
  const auto f = activation_map_figure(s, 24, "proteus");
  ASSERT_TRUE(f.heatmap);
  const auto& h = *f.heatmap;
  EXPECT_EQ(h.rows, 4);
  EXPECT_EQ(h.cols, 24);
  for (int64_t t = 1; t <= 24; ++t) {
    const auto mask = s.mask(t);
    for (int b = 0; b < 4; ++b)
      for (int64_t e = s.block_begin(b); e < s.block_end(b); ++e)
        EXPECT_EQ(h.values[b * 24 + (t - 1)], mask[e]) << "t " << t << " block " << b;
  }
  // Uniform E = 4, N = 16: block b opens at 4b + 1.
  EXPECT_EQ(h.values[1 * 24 + 3], 0);
  EXPECT_EQ(h.values[1 * 24 + 4], 1);
  EXPECT_EQ(h.values[3 * 24 + 11], 0);
  EXPECT_EQ(h.values[3 * 24 + 12], 1);
  ASSERT_EQ(f.series.size(), 1u) << "the horizon line, past N";
  EXPECT_EQ(f.series[0].x[0], 16.5);
  EXPECT_TRUE(activation_map_figure(s, 16).series.empty());
  EXPECT_THROW(activation_map_figure(s, 0), InputError);

  // Uneven blocks (D = 10 in E = 3: the last absorbs the remainder) and two unlocks at once.
  const auto c = memory::Schedule::custom(10, 3, 8, {1, 1, 5});
  const auto g = activation_map_figure(c, 12);
  for (int64_t t = 1; t <= 12; ++t) {
    const auto mask = c.mask(t);
    for (int b = 0; b < 3; ++b)
      for (int64_t e = c.block_begin(b); e < c.block_end(b); ++e)
        EXPECT_EQ(g.heatmap->values[b * 12 + (t - 1)], mask[e]) << "t " << t << " block " << b;
  }
}

TEST(EAblation, SortedByEOnALogAxisWithTicksAtE) {
  const auto f = e_ablation_figure({{"delta", 16, 2.3}, {"delta", 1, 2.5}, {"delta", 4, 2.4}, {"linear", 4, 2.9}});
  EXPECT_EQ(f.x.scale, Scale::log);
  ASSERT_EQ(f.series.size(), 2u);
  EXPECT_EQ(f.series[0].name, "delta");
  EXPECT_EQ(f.series[0].x, (std::vector<double>{1, 4, 16}));
  EXPECT_EQ(f.series[0].y, (std::vector<double>{2.5, 2.4, 2.3}));
  EXPECT_EQ(f.x.tick_values, (std::vector<double>{1, 4, 16}));
}

TEST(FileNames, SafeParts) {
  EXPECT_EQ(file_name_part("quickstart-proteus-e16"), "quickstart-proteus-e16");
  EXPECT_EQ(file_name_part("a b/c:d"), "a_b_c_d");
  EXPECT_EQ(file_name_part(""), "_");
}

fs::path temp_dir() {
  auto d = fs::temp_directory_path() / ("proteus-figures-" + std::to_string(std::random_device{}()));
  fs::create_directories(d);
  return d;
}

TEST(StandardFigures, EveryFigureTheRunsHaveDataFor) {
  const auto root = temp_dir();
  std::vector<runs::RunReader> readers;
  for (int E : {1, 4}) {
    nlohmann::json cfg = {{"name", "r"},
                          {"model", {{"mixer", {{"d_head", 4}, {"E", E}}}}},
                          {"data", {{"seq_len", 16}}}};
    auto w = runs::RunWriter::create(root, "e" + std::to_string(E), cfg);
    for (int s = 1; s <= 4; ++s) {
      nlohmann::json line = {{"step", s}, {"loss", 5.0 - s}};
      if (s % 2 == 0) line["val_bpb"] = 4.0 - s * 0.1 * E;
      w.append_metrics(line);
    }
    const auto p = per_position(32, 2.0 - 0.1 * E);
    w.write_json("per_position.json", {{"seq_len", p.seq_len}, {"sequences", p.sequences}, {"mean_nll", 2.0},
                                       {"nll", p.nll}, {"bucket_lo", p.bucket_lo}, {"bucket_hi", p.bucket_hi},
                                       {"bucket_nll", p.bucket_nll}});
    w.write_json("occupancy.json", {{"layers", 1}, {"heads", 1}, {"seq_len", 4}, {"blocks", 2},
                                    {"norms", std::vector<float>(8, 1.0f)}});
    readers.push_back(runs::RunReader::open(w.dir()));
  }
  const auto figs = standard_figures(readers);
  std::vector<std::string> names;
  for (const auto& f : figs) names.push_back(f.name);
  EXPECT_EQ(names, (std::vector<std::string>{"loss", "val_bpb", "per_position", "ppl_ratio", "occupancy_e1_l0_h0",
                                             "occupancy_e4_l0_h0", "activation_map_e1", "activation_map_e4",
                                             "state_opening_e4", "e_ablation"}));
  EXPECT_EQ(figs[0].figure.series.size(), 2u);
  // Run i keeps palette(i) across figures: run 1 is the only ratio series.
  EXPECT_EQ(figs[3].figure.series[0].color, palette(1));
  const auto& act = *figs[7].figure.heatmap;
  EXPECT_EQ(act.rows, 4);
  EXPECT_EQ(act.cols, 32) << "as far as the per-position evaluation reaches";
  fs::remove_all(root);
}

}  // namespace

namespace {

TEST(BlockUseFigure, EntropyWithIntervalsAndTheMostTheOpenBlocksAllow) {
  proteus::eval::BlockUseResult u;
  u.applicable = true;
  u.blocks = 16;
  u.positions = {64, 128, 256, 512};
  u.open_blocks = {4, 8, 16, 16};
  u.mean_entropy = {{0.2, 0.1, 0.3, 3}, {0.3, 0.25, 0.35, 3}, {0.5, 0.4, 0.6, 3}, {0.55, 0.5, 0.6, 3}};
  const auto f = proteus::figures::block_use_figure({{"p", u}}, {"base"});
  ASSERT_EQ(f.series.size(), 2u);
  const auto& s = f.series[0];
  EXPECT_EQ(s.name, "p");
  EXPECT_TRUE(s.error_bars);
  EXPECT_EQ(s.x, (std::vector<double>{64, 128, 256, 512}));
  EXPECT_EQ(s.lo[2], 0.4);
  EXPECT_EQ(s.hi[2], 0.6);
  // log k / log E: 4 of 16 blocks open allow at most half the entropy.
  EXPECT_NEAR(f.series[1].y[0], 0.5, 1e-12);
  EXPECT_NEAR(f.series[1].y[2], 1.0, 1e-12);
  EXPECT_TRUE(f.series[1].name.empty()) << "the guide stays out of the legend";
  ASSERT_EQ(f.notes.size(), 2u);
  EXPECT_NE(f.notes[1].find("not applicable"), std::string::npos);
  EXPECT_NE(f.notes[1].find("base"), std::string::npos);
}

}  // namespace
