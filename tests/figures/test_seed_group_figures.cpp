// A seed group in the figures: one legend entry with intervals (figure_set merges the runs of one
// config.group). Runs are tiny untrained models evaluated per position.
#include <gtest/gtest.h>

#include <cmath>

#include "core/backend/cpu/cpu_backend.hpp"
#include "core/figures/figure_set.hpp"
#include "tests/support/seed_group_runs.hpp"
#include "core/eval/per_position.hpp"

namespace {

using namespace proteus;

// A seed group is one legend entry whose bands contain its means, and the bands narrow when
// each run is evaluated on more sequences (seeds that differ only in their evaluation sample).
TEST(SeedGroups, AGroupIsOneEntryWithIntervalsThatShrinkWithMoreSequences) {
  const auto group_figure = [](int sequences) {
    std::vector<figures::RunResults> runs;
    for (uint64_t s : {1, 2, 3}) {
      auto c = test_support::seed_group_member("g", 2, 7);  // one model: the runs differ by their sequences alone
      c.seed = s;
      auto be = backend::make_cpu_backend<float>(1);
      model::Model<float> m(c.model, c.data.seq_len, *be, 7);
      auto report = std::make_shared<eval::EvalReport>();
      report->per_position = eval::per_position_loss(m, test_support::random_sequences(sequences, 16, 100 + s), 3, 8, 8);
      figures::RunResults r;
      r.name = c.name;
      r.config = c;
      r.report = report;
      runs.push_back(r);
    }
    for (const auto& f : figures::figure_set(runs))
      if (f.name == "per_position") return f.figure;
    ADD_FAILURE() << "no per_position figure";
    return figures::Figure{};
  };
  const auto few = group_figure(8), many = group_figure(512);
  ASSERT_EQ(few.series.size(), 1u + 1u) << "one entry for the group (and the training-length guide)";
  EXPECT_EQ(few.series[0].name, "g (3 seeds)");
  const auto& a = few.series[0];
  const auto& b = many.series[0];
  ASSERT_EQ(a.lo.size(), a.y.size());
  ASSERT_EQ(b.hi.size(), b.y.size());
  double width_few = 0, width_many = 0;
  for (size_t k = 0; k < a.y.size(); ++k) {
    EXPECT_LE(a.lo[k], a.y[k]);
    EXPECT_GE(a.hi[k], a.y[k]);
    width_few += a.hi[k] - a.lo[k];
    width_many += b.hi[k] - b.lo[k];
  }
  EXPECT_LT(width_many, width_few / 2);
}

}  // namespace
