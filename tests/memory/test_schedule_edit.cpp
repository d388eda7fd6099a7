// Hand edits of a custom schedule's unlock positions: re-spreading over another E keeps the
// shape of k(t) / E and a valid list, drags stop at the neighbours and the horizon, and a shorter
// horizon pulls the points in. Every result is checked by Schedule::custom itself.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/memory/schedule.hpp"
#include "core/memory/schedule_edit.hpp"

namespace {

using namespace proteus::memory;

// A valid custom schedule for D = 64 over horizon N, or a test failure.
void expect_valid(const std::vector<int64_t>& u, int64_t N) {
  ASSERT_FALSE(u.empty());
  EXPECT_EQ(u.front(), 1);
  EXPECT_TRUE(std::is_sorted(u.begin(), u.end()));
  EXPECT_LE(u.back(), N);
  EXPECT_NO_THROW(Schedule::custom(64, static_cast<int64_t>(u.size()), N, u));
}

TEST(RespreadUnlocks, AUniformScheduleStaysUniform) {
  const auto u = Schedule::uniform(64, 4, 64).unlock();  // 1, 17, 33, 49
  EXPECT_EQ(respread_unlocks(u, 8, 64), (std::vector<int64_t>{1, 9, 17, 25, 33, 41, 49, 57}));
  EXPECT_EQ(respread_unlocks(u, 2, 64), (std::vector<int64_t>{1, 33}));
  EXPECT_EQ(respread_unlocks(u, 4, 64), u) << "the same E gives the same points";
  EXPECT_EQ(respread_unlocks(u, 1, 64), (std::vector<int64_t>{1}));
}

TEST(RespreadUnlocks, KeepsTheShapeOfKOverE) {
  // Half the blocks open at once, the rest late: the same holds over twice the blocks.
  const std::vector<int64_t> u = {1, 1, 40, 60};
  const auto v = respread_unlocks(u, 8, 64);
  expect_valid(v, 64);
  const auto before = Schedule::custom(64, 4, 64, u), after = Schedule::custom(64, 8, 64, v);
  for (int64_t t : {1, 20, 39, 45, 64})
    EXPECT_NEAR(double(after.active_blocks(t)) / 8, double(before.active_blocks(t)) / 4, 0.25) << "t " << t;
}

TEST(RespreadUnlocks, AlwaysValid) {
  for (const auto& u : std::vector<std::vector<int64_t>>{{1, 2, 3, 64}, {1, 64, 64, 64}, {1, 1, 1, 1}, {1, 30}})
    for (int64_t E : {1, 2, 3, 5, 16, 64}) {
      SCOPED_TRACE("E " + std::to_string(E));
      const auto v = respread_unlocks(u, E, 64);
      EXPECT_EQ(v.size(), size_t(E));
      expect_valid(v, 64);
    }
  EXPECT_TRUE(respread_unlocks({}, 4, 64).empty());
}

TEST(DragUnlock, StopsAtItsNeighboursAndTheHorizon) {
  std::vector<int64_t> u = {1, 17, 33, 49};
  EXPECT_EQ(unlock_drag_range(u, 1, 64), (std::pair<int64_t, int64_t>{1, 33}));
  EXPECT_EQ(unlock_drag_range(u, 3, 64), (std::pair<int64_t, int64_t>{33, 64}));
  EXPECT_EQ(drag_unlock(u, 1, 5, 64), 5);
  EXPECT_EQ(u, (std::vector<int64_t>{1, 5, 33, 49}));
  EXPECT_EQ(drag_unlock(u, 1, 40, 64), 33);
  EXPECT_EQ(drag_unlock(u, 1, -3, 64), 1);
  EXPECT_EQ(drag_unlock(u, 3, 1000, 64), 64);
  expect_valid(u, 64);
}

TEST(DragUnlock, TheFirstPointIsFixedAndOthersOutOfRangeChangeNothing) {
  std::vector<int64_t> u = {1, 17, 33, 49};
  EXPECT_EQ(drag_unlock(u, 0, 20, 64), 1);
  EXPECT_EQ(drag_unlock(u, 4, 20, 64), -1);
  EXPECT_EQ(drag_unlock(u, -1, 20, 64), -1);
  EXPECT_EQ(u, (std::vector<int64_t>{1, 17, 33, 49}));
  EXPECT_EQ(unlock_drag_range(u, 0, 64), (std::pair<int64_t, int64_t>{1, 1}));
}

TEST(ClampUnlocks, AShorterHorizonPullsPointsIn) {
  std::vector<int64_t> u = {1, 17, 33, 49};
  clamp_unlocks(u, 20);
  EXPECT_EQ(u, (std::vector<int64_t>{1, 17, 20, 20}));
  expect_valid(u, 20);
}

}  // namespace
